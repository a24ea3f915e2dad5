import Baton
import BatonStore
import Foundation

/// Admission (mutexes, concurrency limits, rate limits, caches) as the loop carries it out, across coordinators:
/// a node's request and its release go into the batch as hold changes; after a commit that changed
/// holds, the coordinator grants what can go among every run's waiting holds (`Store.grantWaiting`,
/// under one lock all coordinators take), tells its own runs' granted nodes at once, and every other
/// coordinator tells its own when it hears of the grants (`takeGrants`). A node told is recorded
/// (`told`) in the same commit as what the grant led to. When nodes wait for rate tokens, the grant
/// says when the next is due, and the loop grants again then (`rateTimer`); every coordinator's poll
/// grants too, so a timer lost with its coordinator is made up for.
extension CoordinatorLoop {
    /// Adds a run's commands to the batch, with the hold changes of its admission commands.
    func record(_ runID: String, _ commands: [SchedulerCommand]) {
        pending.record(runID, commands)
        configuration.decided?(runID, commands)
        runTimers.set(runID, at: runs[runID]?.nextWakeUp)  // every event may arm or disarm a timer, even one with no commands
        for command in commands {
            switch command {
            case let .acquire(request):
                if let lookup = request.cache, let hit = cacheHit(lookup), runs[runID] != nil {
                    record(
                        runID,
                        runs[runID]!.handle(
                            .cached(key: request.key, hit: hit), at: now(), random: configuration.random, tokens: configuration.attemptTokens))
                } else {
                    pending.hold(.insert(runID: runID, request: request))
                    holdsChanged = true
                }
            case let .release(key):
                pending.hold(.release(runID: runID, key: key))
                holdsChanged = true
            case let .cacheStore(key, lookup, output):
                uncommittedCache[lookup.claim.name] = CacheHit(output: output, sourceRun: runID, sourceNode: key)
            default:
                break
            }
        }
    }

    /// After a commit that changed holds (or failed a run, releasing its holds): grants what can go
    /// now, and tells this coordinator's runs of their grants.
    func grantWaiting() throws {
        guard let store, holdsChanged else { return }
        holdsChanged = false
        let grants = try retryingPassingErrors("granting holds") { try store.grantWaiting(now: now()) }
        runTimers.set(Self.rateTimer, at: grants.nextTokenAt)  // grant again when the next rate token is due
        for entry in grants.granted where NotificationIntake.holds(entry.runID, fence: store.fence) { try tell(entry) }
    }

    /// The id under which `runTimers` keeps the time the next rate token is due (no run has it).
    static let rateTimer = ""

    /// Tells the nodes of this coordinator's runs granted holds they were not told of yet (another
    /// coordinator granted them, or this one stopped before telling).
    func takeGrants() throws {
        guard let store else { return }
        for entry in try store.untoldGrants() { try tell(entry) }
    }

    /// Carries out `GrantDecision` for a grant: a run that ended gives it back; one granted past its
    /// rate tokens' slack is revoked; else the node takes a cached output if one has appeared meanwhile
    /// (findOrFetch), or is queued, and the hold is marked told with what that decides.
    private func tell(_ entry: AdmissionTable.Entry) throws {
        let loaded = try startRun(entry.runID)
        let requested = loaded && runs[entry.runID]?.nodes[entry.key]?.admission == .requested
        let releasing = pending.releases(runID: entry.runID, key: entry.key)
        switch GrantDecision.of(entry, runLoaded: loaded, requested: requested, releasing: releasing, now: now()) {
        case .giveBack:
            pending.hold(.release(runID: entry.runID, key: entry.key))
            holdsChanged = true
            return
        case let .revoke(cutoff):
            guard let store else { return }
            if try retryingPassingErrors("revoking a grant", { try store.revokeGrant(entry, grantedBefore: cutoff) }) { holdsChanged = true }
            return
        case .stale:
            return
        case .tell:
            break
        }
        pending.hold(.told(runID: entry.runID, seq: entry.seq))
        if let lookup = entry.cache, let hit = cacheHit(lookup) {
            record(
                entry.runID,
                runs[entry.runID]!.handle(
                    .cached(key: entry.key, hit: hit), at: now(), random: configuration.random, tokens: configuration.attemptTokens))
        } else {
            record(
                entry.runID,
                runs[entry.runID]!.handle(.admitted(key: entry.key), at: now(), random: configuration.random, tokens: configuration.attemptTokens))
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
