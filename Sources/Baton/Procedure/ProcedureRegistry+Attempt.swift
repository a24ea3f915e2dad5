import Foundation
import Logging

extension ProcedureRegistry {
    /// Runs one attempt of a task and reports how it ended; a thrown error
    /// becomes a failed outcome whose message says what went wrong. With a
    /// timeout, the attempt is cancelled and reported as timed out when the
    /// time is up, even if the procedure ignores cancellation.
    public func attempt(_ task: TaskDispatch, worker: String, logger: Logger, maxOutputBytes: Int = GraphLimits().maxOutputBytes,
                        progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in },
                        log: @escaping @Sendable (String) -> Void = { _ in }) async -> NodeResult {
        let started = Date()
        var logger = logger
        logger[metadataKey: "run"] = "\(task.runID)"
        logger[metadataKey: "node"] = "\(task.key)"
        let context = ProcedureContext(runID: task.runID, nodeKey: task.key, attempt: task.attempt, logger: logger,
                                       previousOutput: task.previousOutput, progress: progress, log: log)
        let run: @Sendable () async -> NodeResult.Outcome = { [self] in
            do {
                return .succeeded(try await self.run(task.procedure, input: task.input, context: context))
            } catch let failure as ProcedureFailure {
                return .failed(message: failure.message, permanent: failure.permanent)
            } catch is CancellationError {
                return .failed(message: "cancelled while running", permanent: false)
            } catch {
                return .failed(message: "\(task.procedure) threw \(String(reflecting: error))", permanent: false)
            }
        }
        var outcome: NodeResult.Outcome
        if let timeout = task.timeout {
            outcome = await Self.race(run, timeout: timeout)
        } else {
            outcome = await run()
        }
        if case let .succeeded(output) = outcome {
            let size = output.serializedBytes().count
            if size > maxOutputBytes {
                outcome = .failed(message: "output is \(size) bytes, more than the limit of \(maxOutputBytes) (BATON_MAX_OUTPUT_BYTES)", permanent: true)
            }
        }
        return NodeResult(key: task.key, attempt: task.attempt, phase: task.phase, outcome: outcome, worker: worker,
                          startedAt: started, finishedAt: Date())
    }

    /// The procedure's outcome, or a timeout failure once `timeout` seconds pass (the procedure is then cancelled).
    static func race(_ run: @escaping @Sendable () async -> NodeResult.Outcome, timeout: Double) async -> NodeResult.Outcome {
        let once = OnceFlag()
        let work = Task { await run() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<NodeResult.Outcome, Never>) in
                Task {
                    let outcome = await work.value
                    if once.claim() { continuation.resume(returning: outcome) }
                }
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(min(timeout, 366 * 24 * 3600) * 1_000_000_000))
                    if once.claim() {
                        work.cancel()
                        continuation.resume(returning: .failed(message: "timed out after \(DurationText.format(timeout))", permanent: false))
                    }
                }
            }
        } onCancel: {
            work.cancel()
        }
    }
}

/// True for the first caller of `claim()` only.
final class OnceFlag: @unchecked Sendable {
    // Safe: `claimed` is only touched under `lock`.
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool {
        lock.withLock {
            if claimed { return false }
            claimed = true
            return true
        }
    }
}
