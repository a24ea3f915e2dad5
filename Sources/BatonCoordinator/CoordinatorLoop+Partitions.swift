import Baton
import BatonStore
import Foundation

/// The partitions this coordinator holds: announced, renewed and balanced every round
/// (`PartitionBalancer` decides), taken with their runs, handed over drained. Rounds come at the
/// start of a turn, when nothing is pending.
extension CoordinatorLoop {
    /// One round: announce, renew (dropping what was taken over), hand over what is beyond this
    /// coordinator's share, take free partitions up to it. `reclaiming` (on connect) first takes back
    /// what it held before it reconnected.
    func balance(reclaiming: Bool = false) throws {
        guard let store else { return }
        let live = try store.announce(announcement())
        if !held.isEmpty {
            let renewedAt = now()
            let kept = try store.renewPartitions(held, coordinator: configuration.id, leaseSeconds: configuration.partitionLease)
            lastRenewed = renewedAt
            let lost = Set(held.keys).subtracting(kept)
            if !lost.isEmpty {
                logger.warning(
                    "lost partitions \(PartitionRanges.text(lost)) to another coordinator (their lease ran out before this one renewed it)")
                metrics?.partitionsChanged(.lost, count: lost.count)
                try letGo(of: lost)
            }
        }
        let leases = try store.partitionLeases()
        if reclaiming {
            let mine = leases.filter { $0.owner == configuration.id }.map(\.partition)
            if !mine.isEmpty { try take(mine) }
        }
        let plan = PartitionBalancer.plan(for: configuration.id, coordinators: live, leases: leases)
        if !plan.release.isEmpty { try handOver(Set(plan.release)) }
        if !plan.acquire.isEmpty { try take(plan.acquire) }
        health.set(role: held.isEmpty ? .standby : .owning)
        metrics?.partitions(held.count)
    }

    /// What this coordinator announces: who it is and how busy.
    private func announcement() -> CoordinatorAnnouncement {
        let now = now()
        var rate = 0.0
        if let last = lastAnnounced, now > last { rate = Double(nodesFinished) / now.timeIntervalSince(last) }
        lastAnnounced = now
        nodesFinished = 0
        return CoordinatorAnnouncement(
            id: configuration.id, host: ProcessInfo.processInfo.hostName, pid: Int(ProcessInfo.processInfo.processIdentifier),
            leaseSeconds: configuration.partitionLease, runs: runs.count, nodesPerSecond: rate)
    }

    /// Takes those of `parts` that are free, then resumes their unfinished runs (their users' requests
    /// first: a cancelled run must not start) and consumes their reports.
    private func take(_ parts: [Int]) throws {
        guard let store else { return }
        let takenAt = now()
        let taken = try store.acquirePartitions(parts, coordinator: configuration.id, leaseSeconds: configuration.partitionLease)
        guard !taken.isEmpty else { return }
        if held.isEmpty { lastRenewed = takenAt }  // the others' leases run from their own renewal
        held.merge(taken) { $1 }
        metrics?.partitionsChanged(.acquired, count: taken.count)
        try takeRequests()
        for id in try store.activeRunIDs() where runs[id] == nil {
            cache.reopen(id)  // a run this coordinator saw end before may have been retried since
            try startRun(id)
            health.beat()
        }
        try takeGrants()
        try commit(ackUpTo: nil)
        try settle()
        try broker.consume(partitions: Set(held.keys))
        logger.info(
            "took partitions \(PartitionRanges.text(Set(taken.keys))) (holding \(held.count) of \(partitionCount)); \(runs.count) unfinished run(s)")
    }

    /// Renews the leases of the partitions held once a balancing interval has gone by since the last
    /// renewal: between the tries of a commit that failed for a passing reason (a lock wait, a
    /// serialization failure, a statement timeout), and between the slices of a wait for the broker's
    /// confirms (`awaitConfirms`). The store still answers, so a commit retried, or a broker silent, for
    /// longer than a lease is no reason to lose every partition to a peer (that would meet the same
    /// error) and to be fenced off (BT001), throwing the batch away. One taken meanwhile all the same
    /// throws as the fence would: nothing was written, and the coordinator reconnects and loads what it still owns.
    func renewWhenDue() throws {
        guard let store, !held.isEmpty else { return }
        let now = now()
        if let last = lastRenewed, now.timeIntervalSince(last) < configuration.partitionLease / 5 { return }
        let kept = try store.renewPartitions(held, coordinator: configuration.id, leaseSeconds: configuration.partitionLease)
        lastRenewed = now
        let lost = Set(held.keys).subtracting(kept)
        guard lost.isEmpty else { throw PartitionFence.lost(configuration.id, lost.sorted()) }
    }

    /// Hands `parts` over cleanly: what was decided for them is committed and confirmed, their reports
    /// stop coming (the unacked ones go back to their queues), their runs leave memory, and only
    /// then are they released, for the next owner to take at once.
    func handOver(_ parts: Set<Int>) throws {
        guard let store else { return }
        let giving = held.filter { parts.contains($0.key) }
        guard !giving.isEmpty else { return }
        try commit(ackUpTo: nil)
        try settle()
        try letGo(of: Set(giving.keys))
        try store.releasePartitions(giving, coordinator: configuration.id)
        metrics?.partitionsChanged(.released, count: giving.count)
        logger.info("handed over partitions \(PartitionRanges.text(Set(giving.keys))) (holding \(held.count) of \(partitionCount))")
    }

    /// On a graceful stop: every partition handed over, and this coordinator's row removed.
    func handOverAll() {
        guard connected, let store else { return }
        do {
            try handOver(Set(held.keys))
            try store.withdraw(coordinator: configuration.id)
        } catch {
            logger.warning("handing over partitions on stopping failed (\(error)); their leases run out instead")
        }
    }

    /// Stops working for `parts`: out of the fence (with `held`), no more of their reports, their runs out of memory.
    private func letGo(of parts: Set<Int>) throws {
        for part in parts { held[part] = nil }
        try broker.consume(partitions: Set(held.keys))
        for id in Array(runs.keys) where parts.contains(partition(of: id)) {
            runs[id] = nil
            tracing?.forget(id)
            runTimers.set(id, at: nil)
            unrecordedFailures[id] = nil
        }
        // What was decided for them and not committed is the old owner's, and a run known finished
        // may have been retried by its new owner.
        pending.drop { parts.contains(partition(of: $0)) }
        cache.forget { parts.contains(partition(of: $0)) }
    }

    /// Waits for the broker to confirm everything published, acks what that releases, and records
    /// the confirmed batch: nothing of this coordinator's is left in flight.
    private func settle() throws {
        guard !backlog.isEmpty else { return }
        try awaitConfirms()
        try settleConfirms()
        if pending.confirmedBatch != nil { try commit(ackUpTo: nil) }
    }

}
