/// How an attempt, or a node, ended on the timeline.
public enum TimelineOutcome: String, Sendable, Equatable, CaseIterable {
    case succeeded
    case failed
    /// Past its deadline: the coordinator's `timed_out`, or a `failed` whose error says it timed out.
    case timedOut = "timed_out"
    case cancelled
    case skipped
    /// Its task was dead-lettered (`dead_lettered`, `dead_lettered_unstarted`).
    case deadLettered = "dead_lettered"
    /// Its worker stopped heartbeating (`lease_expired`); a new attempt follows.
    case lost
}
