import BatonStore

/// How live coordinators share the partitions, decided from the leases and the list of live
/// coordinators alone (no I/O, no clock: the leases carry the database's view of time). Each
/// coordinator's share is P/N, the first P mod N of them in id order taking one more; a coordinator
/// above its share hands back its highest partitions, one below takes free ones, trying them in an
/// order of its own (a hash of its id and the partition) so that coordinators starting together
/// seldom reach for the same ones. Every coordinator deciding this way converges on shares that add
/// up to P, with no partition held twice (the store's epochs guarantee that whatever they decide).
public enum PartitionBalancer {
    /// The share of `coordinator` among `coordinators` (itself counted even if not listed yet).
    public static func share(of coordinator: String, among coordinators: [String], partitions: Int) -> Int {
        let ids = Set(coordinators + [coordinator]).sorted()
        let index = ids.firstIndex(of: coordinator)!
        return partitions / ids.count + (index < partitions % ids.count ? 1 : 0)
    }

    /// What `coordinator` should do this round.
    public static func plan(for coordinator: String, coordinators: [String], leases: [PartitionLease]) -> PartitionPlan {
        let target = share(of: coordinator, among: coordinators, partitions: leases.count)
        let held = leases.filter { $0.owner == coordinator && !$0.isFree }.map(\.partition).sorted()
        if held.count > target { return PartitionPlan(release: Array(held.suffix(held.count - target))) }
        let free = leases.filter(\.isFree).map(\.partition).sorted { preference(coordinator, $0) < preference(coordinator, $1) }
        return PartitionPlan(acquire: Array(free.prefix(target - held.count)))
    }

    /// FNV-1a of the id and the partition: a stable order of the partitions for each coordinator.
    static func preference(_ coordinator: String, _ partition: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in coordinator.utf8 + [0] + String(partition).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
