import Baton
import BatonCommandLine
import BatonSeams
import BatonStore

/// `baton pause` and `baton resume` on the database itself.
extension DirectRuns: PauseAccess {
    func pause(_ target: PauseTarget) async throws -> (target: PauseTarget, changed: Bool) {
        do { return try store.pause(target) } catch let error as PauseRefusal { throw CLIFailure("\(error)", exitCode: 2) }
    }

    func resume(_ target: PauseTarget) async throws -> (target: PauseTarget, changed: Bool) {
        do { return try store.resume(target) } catch let error as PauseRefusal { throw CLIFailure("\(error)", exitCode: 2) }
    }

    func pauses() async throws -> [PauseRow] { try store.pauseRows() }
}
