import Baton

/// What the simulator's pause invariant needs during a coordinator's turn (`PauseSimulation`): what
/// was paused when it began, and the violations its decisions made, read after the turn.
final class PauseWatch: @unchecked Sendable {
    // Safe: the simulator is single-threaded; the coordinator's turn runs on the caller's thread.
    var paused: Set<PauseTarget> = []
    var violations: [String] = []
}
