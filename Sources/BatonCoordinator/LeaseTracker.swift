import Baton
import BatonAMQP
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
    /// Since when the broker blocks publishers (a memory or disk alarm; nil: it does not). No worker can
    /// publish a heartbeat then: silence that nobody could break is not death.
    private(set) var blockedSince: Date?
    /// No lease runs out before this: the grace after the broker unblocked publishers, for the
    /// heartbeats held back to arrive.
    private var holdUntil: Date?
    /// The broker's count of blocks when last looked, and when that was.
    private var blocksSeen: (count: Int, at: Date)?
    /// Seconds of grace after a block.
    var graceAfterBlock: Double { lease / 2 }

    init(lease: Double) { self.lease = lease }

    /// Whether no lease runs out before the first receive, and for `graceAfterBlock` after it.
    private var holdsUntilHeard = false

    /// A coordinator that just (re)connected, with the workers' last heartbeats the database saw: it
    /// has not listened yet, and may have missed a block of publishers that held their heartbeats back
    /// (its broker connection is new, and knows nothing of earlier blocks). No lease runs out until
    /// its first receive, nor for `graceAfterBlock` after it, as after a block: taking its partitions
    /// back can take long (a commit retried), and the heartbeats wait in its queue meanwhile.
    init(lease: Double, lastSeen: [String: Date]) {
        self.lease = lease
        seen = lastSeen
        holdsUntilHeard = true
    }

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
        if holdsUntilHeard {
            holdsUntilHeard = false
            holdUntil = max(holdUntil ?? now, now.addingTimeInterval(graceAfterBlock))
        }
        if let gap = listened.map({ now.timeIntervalSince($0) }), gap > deafAfter {
            seen = seen.mapValues { $0.addingTimeInterval(gap) }
        }
        listened = now
    }

    /// What the broker said of flow control at `now`: a block that began since the last look counts from
    /// that look (the silence since may be the block's), even if it ended already.
    mutating func brokerFlow(_ flow: BrokerFlow, at now: Date) {
        if let seen = blocksSeen, flow.blocks > seen.count, blockedSince == nil {
            brokerBlocked(true, at: seen.at)
        }
        // Blocked at the first look: the block may have begun before this coordinator connected, and
        // all the silence it knows of may be the block's.
        if blocksSeen == nil, flow.blocked != nil, blockedSince == nil {
            brokerBlocked(true, at: min(now, seen.values.min() ?? now))
        }
        blocksSeen = (flow.blocks, now)
        brokerBlocked(flow.blocked != nil, at: now)
    }

    /// Whether the broker blocks publishers at `now`. While it does, no lease runs out; when it stops,
    /// every lease moves on by the length of the block, and none runs out for `graceAfterBlock` more.
    mutating func brokerBlocked(_ blocked: Bool, at now: Date) {
        if blocked {
            if blockedSince == nil { blockedSince = now }
            return
        }
        guard let since = blockedSince else { return }
        let gap = max(0, now.timeIntervalSince(since))
        seen = seen.mapValues { $0.addingTimeInterval(gap) }
        blockedSince = nil
        holdUntil = now.addingTimeInterval(graceAfterBlock)
    }

    /// Workers whose lease ran out by `now`; they are forgotten (a heartbeat brings one back). None
    /// while the coordinator has been deaf since its last receive, or has not received since it
    /// connected: it must listen first. None while the
    /// broker blocks publishers, nor in the grace after.
    mutating func expired(at now: Date) -> [String] {
        if holdsUntilHeard { return [] }
        if let last = listened, now.timeIntervalSince(last) > deafAfter { return [] }
        if blockedSince != nil { return [] }
        if let hold = holdUntil {
            if now < hold { return [] }
            holdUntil = nil
        }
        let cutoff = now.addingTimeInterval(-lease)
        let lost = seen.filter { $0.value < cutoff }.map(\.key).sorted()
        for worker in lost { seen[worker] = nil }
        return lost
    }

    /// How often to look for expired leases.
    var checkInterval: Double { min(1, lease / 4) }

    /// How many attempts `commands` took back from a lost worker (their `lease_expired` events).
    static func reclaimed(_ commands: [SchedulerCommand]) -> Int {
        commands.count { if case .event(_, .leaseExpired, _) = $0 { true } else { false } }
    }
}
