/// Decides what a schedule fires, given its state, the time (the database's), and whether its
/// previous run is still going; no clock reads, no I/O.
///
/// Due times up to `now` are gathered (at most `catchUpBound`; older ones are passed over). Catch-up
/// picks among them: `all` keeps every one, `last` the newest, `none` the newest only if it is at
/// most `lateness` seconds old. Overlap then limits them: `allow` fires all; `skip` fires the first
/// only when no previous run is going (the rest would overlap it); `queue` fires the first when no
/// run is going, or else keeps the newest waiting until the run ends.
public struct ScheduleDecision: Sendable {
    /// Seconds after its due time that a firing still counts as on time (for `--catch-up none`).
    public static let lateness = 60.0
    /// The most due times gathered in one step: after a long downtime `--catch-up all` fires at most
    /// this many, the newest; older ones are passed over.
    public static let catchUpBound = 100

    public let timing: ScheduleTiming
    public let catchUp: CatchUpRule
    public let overlap: OverlapRule

    public init(timing: ScheduleTiming, catchUp: CatchUpRule, overlap: OverlapRule) {
        self.timing = timing
        self.catchUp = catchUp
        self.overlap = overlap
    }

    /// The step at `now`. A state without a next due time (new, or just resumed) starts from `now`:
    /// times before it are not missed, they were never wanted.
    public func step(_ state: ScheduleState, now: Double, previousRunning: Bool) -> ScheduleStep {
        var result = ScheduleStep(state: state)
        guard let first = state.nextDue else {
            result.state.nextDue = timing.next(after: now)
            return result
        }
        var due: [Double] = []
        var passed = 0
        var cursor: Double? = first
        // A period far behind jumps to the bound's worth of times before now instead of walking them all.
        if case let .every(seconds, anchor) = timing, now - first > seconds * Double(2 * Self.catchUpBound) {
            let k = ((now - anchor) / seconds).rounded(.down) - Double(Self.catchUpBound)
            let jump = anchor + k * seconds
            passed = Int(((jump - first) / seconds).rounded(.down))
            cursor = timing.next(after: jump - seconds / 2)
        }
        while let t = cursor, t <= now {
            due.append(t)
            if due.count > Self.catchUpBound {
                due.removeFirst()
                passed += 1
            }
            cursor = timing.next(after: t)
        }
        result.uncounted = passed
        result.state.nextDue = timing.next(after: max(now, due.last ?? now))

        var chosen: [Double]
        switch catchUp {
        case .all:
            chosen = due
        case .last:
            chosen = due.last.map { [$0] } ?? []
        case .none:
            chosen = due.last.map { now - $0 <= Self.lateness ? [$0] : [] } ?? []
        }
        for t in due where !chosen.contains(t) {
            result.skipped.append(ScheduleSkip(due: t, reason: "missed (catch-up \(catchUp.rawValue))"))
        }

        var running = previousRunning
        if let queued = state.queued, overlap == .queue {
            if running {
                // Still waiting; a newer due time replaces it below.
                if let newest = chosen.last {
                    result.skipped.append(ScheduleSkip(due: queued, reason: "replaced in the queue by a newer due time"))
                    result.state.queued = newest
                    for t in chosen.dropLast() {
                        result.skipped.append(ScheduleSkip(due: t, reason: "previous run still going (overlap queue)"))
                    }
                }
                return result
            }
            result.fire.append(queued)
            result.state.queued = nil
            running = true
        }
        switch overlap {
        case .allow:
            result.fire += chosen
        case .skip:
            for t in chosen {
                if running {
                    result.skipped.append(ScheduleSkip(due: t, reason: "previous run still going (overlap skip)"))
                } else {
                    result.fire.append(t)
                    running = true
                }
            }
        case .queue:
            var rest = chosen[...]
            if !running, let t = rest.popFirst() {
                result.fire.append(t)
                running = true
            }
            if let newest = rest.popLast() {
                result.state.queued = newest
                for t in rest { result.skipped.append(ScheduleSkip(due: t, reason: "previous run still going (overlap queue)")) }
            }
        }
        result.skipped.sort { $0.due < $1.due }
        return result
    }
}
