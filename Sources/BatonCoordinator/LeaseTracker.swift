import Foundation

/// Which workers hold a lease: each heartbeat renews its worker's, a stopping worker gives
/// it up, and a worker silent for longer than `lease` seconds loses what it runs. A value:
/// the coordinator feeds it what it hears and carries out what it returns.
struct LeaseTracker: Sendable {
    let lease: Double
    private var seen: [String: Date] = [:]

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

    /// Workers whose lease ran out by `now`; they are forgotten (a heartbeat brings one back).
    mutating func expired(at now: Date) -> [String] {
        let cutoff = now.addingTimeInterval(-lease)
        let lost = seen.filter { $0.value < cutoff }.map(\.key).sorted()
        for worker in lost { seen[worker] = nil }
        return lost
    }

    /// How often to look for expired leases.
    var checkInterval: Double { min(1, lease / 4) }
}
