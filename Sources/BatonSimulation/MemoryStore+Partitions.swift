import Baton
import BatonStore
import Foundation

/// `Store+Partitions` on the twin: leases on the database's clock, epochs, and the fence of
/// `apply` and `failRun` (`baton.require_epochs`), with the same answers and errors.
extension MemoryStore {
    /// Sets the partition count, as `baton migrate --partitions` does on a new schema.
    public func setPartitionCount(_ count: Int) {
        tables.partitions = (0..<count).map { MemoryPartitionRow(partition: $0) }
    }

    func partitionLeases() -> [PartitionLease] {
        let now = self.now
        return tables.partitions.map {
            PartitionLease(
                partition: $0.partition, owner: $0.owner, epoch: $0.epoch, secondsLeft: $0.leaseUntil.map { $0.timeIntervalSince(now) })
        }
    }

    func acquirePartitions(_ parts: [Int], coordinator: String, leaseSeconds: Double) -> [Int: Int64] {
        let now = self.now
        var taken: [Int: Int64] = [:]
        for part in Set(parts) where tables.partitions.indices.contains(part) {
            var row = tables.partitions[part]
            guard row.owner == nil || row.leaseUntil.map({ $0 <= now }) ?? true else { continue }
            row.owner = coordinator
            row.epoch += 1
            row.leaseUntil = MemoryTimestamp.rounded(now.addingTimeInterval(leaseSeconds))
            tables.partitions[part] = row
            taken[part] = row.epoch
        }
        return taken
    }

    func renewPartitions(_ held: [Int: Int64], coordinator: String, leaseSeconds: Double) -> Set<Int> {
        let now = self.now
        var renewed = Set<Int>()
        for (part, epoch) in held where tables.partitions.indices.contains(part) {
            guard tables.partitions[part].owner == coordinator, tables.partitions[part].epoch == epoch else { continue }
            tables.partitions[part].leaseUntil = MemoryTimestamp.rounded(now.addingTimeInterval(leaseSeconds))
            renewed.insert(part)
        }
        return renewed
    }

    func releasePartitions(_ held: [Int: Int64], coordinator: String) {
        for (part, epoch) in held where tables.partitions.indices.contains(part) {
            guard tables.partitions[part].owner == coordinator, tables.partitions[part].epoch == epoch else { continue }
            tables.partitions[part].owner = nil
            tables.partitions[part].leaseUntil = nil
        }
    }

    /// `baton.require_epochs` for a statement writing for `runIDs` under `fence`: throws what it raises.
    func checkFence(_ fence: PartitionFence?, runIDs: some Sequence<String>) throws {
        guard let fence else { return }
        let claims = try fence.claims(for: runIDs)
        let lost = claims.filter { claim in
            let row = tables.partitions.indices.contains(claim.partition) ? tables.partitions[claim.partition] : nil
            return row?.owner != fence.coordinator || row?.epoch != claim.epoch
        }
        if !lost.isEmpty { throw PartitionFence.lost(fence.coordinator, claims.map(\.partition)) }
    }
}
