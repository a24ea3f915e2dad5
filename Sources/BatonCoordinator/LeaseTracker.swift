import Foundation

/// Which workers hold a lease: each heartbeat renews its worker's, a stopping worker gives
/// it up, and a worker silent for longer than `lease` seconds loses what it runs. A value:
/// the coordinator feeds it what it hears and carries out what it returns.
struct LeaseTracker: Sendable {
    let lease: Double
    private var seen: [String: Date] = [:]
    /// When the coordinator last took in what the broker had for it (nil: not yet).
    private var listened: Date?
    /// Between two receives, a gap longer than a third of the lease is a deaf spell (the process
    /// paused or stalled, or the clock stepped): the workers' heartbeats went unheard, not unsent.
    var deafAfter: Double { lease / 3 }

    init(lease: Double) { self.lease = lease }

    /// A heartbeat from `worker` at `now`.
    mutating func heard(_ worker: String, at now: Date) { seen[worker] = now }

    /// `worker` stopped cleanly: it handed back what it ran, so it is not lost.
    mutating func stopped(_ worker: String) { seen[worker] = nil }

    /// A worker named by a running node: unless heard from already, it gets a full lease from
    /// `now` to show it is alive (a coordinator that restarts must not forget workers that died).
    mutating func expect(_ worker: String, at now: Date) {
        if seen[worker] == nil { seen[worker] = now }
    }

    /// The coordinator took in its heartbeats at `now`. A deaf spell before it does not count against
    /// the workers: every lease moves on by its length.
    mutating func listened(at now: Date) {
        if let gap = listened.map({ now.timeIntervalSince($0) }), gap > deafAfter {
            seen = seen.mapValues { $0.addingTimeInterval(gap) }
        }
        listened = now
    }

    /// Workers whose lease ran out by `now`; they are forgotten (a heartbeat brings one back). None
    /// while the coordinator has been deaf since its last receive: it must listen first.
    mutating func expired(at now: Date) -> [String] {
        if let last = listened, now.timeIntervalSince(last) > deafAfter { return [] }
        let cutoff = now.addingTimeInterval(-lease)
        let lost = seen.filter { $0.value < cutoff }.map(\.key).sorted()
        for worker in lost { seen[worker] = nil }
        return lost
    }

    /// How often to look for expired leases.
    var checkInterval: Double { min(1, lease / 4) }
}
