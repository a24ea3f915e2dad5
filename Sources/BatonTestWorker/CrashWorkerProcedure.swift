import Baton
import Foundation

/// `test.crash-worker`: kills the worker process running it (SIGKILL), every time.
/// It exists only in this test executable, to show how Baton stops a task that keeps
/// killing its workers; no worker that Baton ships serves it.
struct CrashWorkerProcedure: Procedure {
    static let name = "test.crash-worker"
    struct Input: Codable, Sendable {}
    func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        context.logger.warning("test.crash-worker: killing this worker process on purpose")
        kill(getpid(), SIGKILL)
        return .null
    }
}
