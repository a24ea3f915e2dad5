import Baton
import Foundation

/// Mutex, concurrency, rate and cache for `LocalEngine`: the same `AdmissionTable` the coordinator uses,
/// with the cache and rate tokens in memory (shared by the nodes of the run; nothing outlives the process).
/// A fair share's limit is that of one worker with the engine's `slots`.
struct LocalAdmission {
    private var table = AdmissionTable()
    private var cache: [String: (hit: CacheHit, at: Date)] = [:]
    /// The engine's slots (`LocalEngine.maxConcurrency`): what every share claim's limit is made from.
    var slots = 8

    /// Carries out the admission commands among `commands`; returns the events to feed back to the run.
    mutating func carryOut(_ runID: String, _ commands: [SchedulerCommand], now: Date) -> [SchedulerEvent] {
        table.now = now
        var events: [SchedulerEvent] = []
        for command in commands {
            switch command {
            case let .acquire(request):
                if let lookup = request.cache, let hit = hit(lookup, now: now) {
                    events.append(.cached(key: request.key, hit: hit))
                } else {
                    for claim in request.claims where claim.isShare { table.shareLimits[claim.name] = AdmissionTable.shareLimit(slots: slots) }
                    events += grants(table.request(runID: runID, request), now: now)
                }
            case let .release(key):
                events += grants(table.release(runID: runID, key: key), now: now)
            case let .cacheStore(key, lookup, output):
                cache[lookup.claim.name] = (CacheHit(output: output, sourceRun: runID, sourceNode: key), now)
            default:
                break
            }
        }
        return events
    }

    /// When the next rate token is due for a waiting node, if one waits for it.
    var nextToken: Date? { table.nextToken }

    /// Grants the waiters whose rate tokens have come by `now`.
    mutating func tick(now: Date) -> [SchedulerEvent] {
        table.now = now
        return grants(table.grantWaiting(), now: now)
    }

    private func grants(_ changes: [AdmissionTable.Change], now: Date) -> [SchedulerEvent] {
        changes.compactMap { change in
            guard case let .granted(entry) = change else { return nil }
            if let lookup = entry.cache, let hit = hit(lookup, now: now) { return .cached(key: entry.key, hit: hit) }
            return .admitted(key: entry.key)
        }
    }

    private func hit(_ lookup: CacheLookup, now: Date) -> CacheHit? {
        guard let entry = cache[lookup.claim.name], now.timeIntervalSince(entry.at) <= lookup.ttl else { return nil }
        return entry.hit
    }
}
