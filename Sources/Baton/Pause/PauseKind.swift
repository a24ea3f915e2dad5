/// What `baton pause` stops dispatching for: every task of a procedure, of a pool, or of one run.
/// (A schedule's pause is the schedule's own `paused`, not one of these.)
public enum PauseKind: String, Sendable, Hashable, CaseIterable {
    case procedure, pool, run
}
