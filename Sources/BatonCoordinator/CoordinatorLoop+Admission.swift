import Baton
import BatonStore
import Foundation

/// Admission (mutexes, concurrency limits, caches) as the loop carries it out: each run's
/// commands go into the batch, and acquire, release and cache commands are settled at once
/// against the `AdmissionTable` and the cache, so a release and the grant it makes are
/// committed together.
extension CoordinatorLoop {
    /// Adds a run's commands to the batch and carries out its admission commands at once: a release
    /// grants the next waiter (of any run) within the same batch, so both are committed together.
    func record(_ runID: String, _ commands: [SchedulerCommand]) {
        pending.record(runID, commands)
        runTimers.set(runID, at: runs[runID]?.nextWakeUp)  // every event may arm or disarm a timer, even one with no commands
        for command in commands {
            switch command {
            case let .acquire(request):
                if let lookup = request.cache, let hit = cacheHit(lookup), runs[runID] != nil {
                    record(runID, runs[runID]!.handle(.cached(key: request.key, hit: hit), at: now(), random: configuration.random))
                } else {
                    deliver(admission.request(runID: runID, request))
                }
            case let .release(key):
                deliver(admission.release(runID: runID, key: key))
            case let .cacheStore(key, lookup, output):
                uncommittedCache[lookup.claim.name] = CacheHit(output: output, sourceRun: runID, sourceNode: key)
            default:
                break
            }
        }
    }

    /// Records the table's changes in the batch and tells each granted node's run.
    func deliver(_ changes: [AdmissionTable.Change]) {
        for change in changes {
            pending.hold(change)
            if case let .granted(entry) = change { grants.append(entry) }
        }
        guard !holdingGrants, !tellingGrants else { return }  // the loop below, further up the stack, tells them
        tellingGrants = true
        defer { tellingGrants = false }
        var next = 0
        while next < grants.count {
            let entry = grants[next]
            next += 1
            // Still granted? (A run failed as a whole, or an orphan dropped on connect, gave it back.)
            if let now = admission.entry(runID: entry.runID, key: entry.key), now.seq == entry.seq, now.granted { admit(entry) }
        }
        grants = []
    }

    /// A granted node takes a cached output if one has appeared meanwhile (findOrFetch), else is queued.
    private func admit(_ entry: AdmissionTable.Entry) {
        guard runs[entry.runID] != nil else {
            logger.warning("run \(entry.runID) node \(entry.key): granted, but the run is not loaded; released")
            deliver(admission.release(runID: entry.runID, key: entry.key))
            return
        }
        if let lookup = entry.cache, let hit = cacheHit(lookup) {
            record(entry.runID, runs[entry.runID]!.handle(.cached(key: entry.key, hit: hit), at: now(), random: configuration.random))
        } else {
            record(entry.runID, runs[entry.runID]!.handle(.admitted(key: entry.key), at: now(), random: configuration.random))
        }
    }

    /// The newest cached output for `lookup`, this batch's first. A store error counts as a miss (the node runs).
    private func cacheHit(_ lookup: CacheLookup) -> CacheHit? {
        if let hit = uncommittedCache[lookup.claim.name] { return hit }
        do { return try store?.cacheLookup(lookup, now: now()) } catch {
            logger.warning("cache lookup for \(lookup.procedure) failed (the node runs): \(error)")
            return nil
        }
    }
}
