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
                partition: $0.partition, owner: $0.owner, epoch: $0.epoch, secondsLeft: $0.leaseUntil.map { $0.timeIntervalSince(now) },
                ownerGone: $0.owner.map(ownerGone) ?? false)
        }
    }

    func acquirePartitions(_ parts: [Int], coordinator: String, leaseSeconds: Double) -> [Int: Int64] {
        let now = self.now
        var taken: [Int: Int64] = [:]
        for part in Set(parts) where tables.partitions.indices.contains(part) {
            var row = tables.partitions[part]
            guard row.owner == nil || row.owner == coordinator || row.leaseUntil.map({ $0 <= now }) ?? true || ownerGone(row.owner!)
            else { continue }
            if row.owner != coordinator { ownerChanges += 1 }
            row.owner = coordinator
            row.epoch += 1
            row.leaseUntil = MemoryTimestamp.rounded(now.addingTimeInterval(leaseSeconds))
            row.floor = nextBatch  // nextval('baton.dispatch_batches')
            nextBatch += 1
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

    /// Makes the owner of `partition` look stalled past its lease, as the database sees it (a fault
    /// the simulator injects): its leases run out now and its announcement is older than a lease, so
    /// the others count it out and take its partitions. Returns the owner, or nil if there is none.
    public func lapseLeases(ofOwnerOf partition: Int) -> String? {
        guard tables.partitions.indices.contains(partition), let owner = tables.partitions[partition].owner else { return nil }
        for i in tables.partitions.indices where tables.partitions[i].owner == owner { tables.partitions[i].leaseUntil = now }
        if let row = tables.coordinators[owner] {
            tables.coordinators[owner]?.lastSeen = now.addingTimeInterval(-row.announcement.leaseSeconds - 1)
        }
        return owner
    }

    /// `baton.owner_gone`: the coordinator announced on a session that has ended.
    func ownerGone(_ owner: String) -> Bool {
        guard let row = tables.coordinators[owner] else { return false }
        return connections[row.session] == nil
    }

    /// `Store.announce` on `session`.
    func announce(_ coordinator: CoordinatorAnnouncement, session: Int) -> [String] {
        let now = self.now
        tables.coordinators[coordinator.id] = MemoryCoordinatorRow(announcement: coordinator, lastSeen: now, session: session)
        tables.coordinators = tables.coordinators.filter { id, row in
            id == coordinator.id || row.lastSeen >= now.addingTimeInterval(-3 * row.announcement.leaseSeconds)
        }
        return tables.coordinators.filter { id, row in
            id == coordinator.id || (row.lastSeen >= now.addingTimeInterval(-row.announcement.leaseSeconds) && !ownerGone(id))
        }.keys.sorted()
    }

    /// `Store.withdraw`.
    func withdraw(coordinator id: String) { tables.coordinators[id] = nil }

    /// `baton.require_epochs` for a statement writing for `runIDs` under `fence`: throws what it raises.
    func checkFence(_ fence: PartitionFence?, runIDs: some Sequence<String>) throws {
        guard let fence else { return }
        let claims = try fence.claims(for: runIDs)
        let lost = claims.filter { claim in
            let row = tables.partitions.indices.contains(claim.partition) ? tables.partitions[claim.partition] : nil
            return row?.owner != fence.coordinator || row?.epoch != claim.epoch
        }
        if !lost.isEmpty {
            fencedWrites += 1
            throw PartitionFence.lost(fence.coordinator, claims.map(\.partition))
        }
        // What the simulator checks: no two coordinators ever write for one partition under one epoch.
        for claim in claims {
            let writer = epochWriters[claim.partition, default: [:]][claim.epoch]
            if let writer, writer != fence.coordinator {
                epochConflicts.append(
                    "coordinators \(writer) and \(fence.coordinator) both wrote for partition \(claim.partition) under epoch \(claim.epoch)")
            }
            epochWriters[claim.partition, default: [:]][claim.epoch] = fence.coordinator
        }
    }
}
