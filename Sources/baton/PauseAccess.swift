import Baton
import BatonSeams

/// What `baton pause` and `baton resume` ask, the same through either way in: the database
/// (`DirectRuns`) or `baton server`'s API (`RemoteRuns`).
protocol PauseAccess {
    /// Pauses `target`; the target as stored (a run's whole id) and whether it was not paused before.
    func pause(_ target: PauseTarget) async throws -> (target: PauseTarget, changed: Bool)
    /// Ends `target`'s pause; the target as stored and whether it was paused.
    func resume(_ target: PauseTarget) async throws -> (target: PauseTarget, changed: Bool)
    /// Every pause, by kind then name.
    func pauses() async throws -> [PauseRow]
    func close()
}
