import Foundation
import Logging

extension ProcedureRegistry {
    /// Runs one attempt of a task and reports how it ended; a thrown error
    /// becomes a failed outcome whose message says what went wrong.
    public func attempt(_ task: TaskDispatch, worker: String, logger: Logger,
                        progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in }) async -> NodeResult {
        let started = Date()
        var logger = logger
        logger[metadataKey: "run"] = "\(task.runID)"
        logger[metadataKey: "node"] = "\(task.key)"
        let context = ProcedureContext(runID: task.runID, nodeKey: task.key, attempt: task.attempt, logger: logger, progress: progress)
        let outcome: NodeResult.Outcome
        do {
            outcome = .succeeded(try await run(task.procedure, input: task.input, context: context))
        } catch let failure as ProcedureFailure {
            outcome = .failed(message: failure.message, permanent: failure.permanent)
        } catch is CancellationError {
            outcome = .failed(message: "cancelled while running", permanent: false)
        } catch {
            outcome = .failed(message: "\(task.procedure) threw \(String(reflecting: error))", permanent: false)
        }
        return NodeResult(key: task.key, attempt: task.attempt, outcome: outcome, worker: worker, startedAt: started, finishedAt: Date())
    }
}
