import Foundation
import Logging

extension ProcedureRegistry {
    /// Runs one attempt of a task and reports how it ended, with the output as the procedure
    /// encoded it; a thrown error becomes a failed outcome whose message says what went wrong.
    /// With a timeout, the attempt is cancelled and reported as timed out when the time is up,
    /// even if the procedure ignores cancellation (it may then still be running on return;
    /// `runAttempt` waits for it).
    public func encodedAttempt(
        _ task: TaskDispatch, worker: String, logger: Logger, maxOutputBytes: Int = GraphLimits().maxOutputBytes,
        progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> AttemptResult<EncodedJSON> {
        await startAttempt(task, worker: worker, logger: logger, maxOutputBytes: maxOutputBytes, progress: progress, log: log).result
    }

    /// Runs one attempt of a task as `encodedAttempt` does and passes its result to `report` as
    /// soon as it is known (when the timeout fires, at the latest), but returns only once the
    /// procedure's body has returned. A procedure that ignores cancellation can run long after
    /// its timeout was reported: a worker counts its slot busy until this returns.
    public func runAttempt(
        _ task: TaskDispatch, worker: String, logger: Logger, maxOutputBytes: Int = GraphLimits().maxOutputBytes,
        progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in },
        log: @escaping @Sendable (String) -> Void = { _ in },
        report: (AttemptResult<EncodedJSON>) -> Void
    ) async {
        let (result, body) = await startAttempt(
            task, worker: worker, logger: logger, maxOutputBytes: maxOutputBytes, progress: progress, log: log)
        report(result)
        _ = await body?.value
    }

    /// The attempt's result, and the procedure's own task if it may still be running (it timed out).
    private func startAttempt(
        _ task: TaskDispatch, worker: String, logger: Logger, maxOutputBytes: Int,
        progress: @escaping @Sendable (Double, String?) -> Void, log: @escaping @Sendable (String) -> Void
    ) async -> (result: AttemptResult<EncodedJSON>, body: Task<ProcedureEnd, Never>?) {
        let started = Date()
        var logger = logger
        logger[metadataKey: "run"] = "\(task.runID)"
        logger[metadataKey: "node"] = "\(task.key)"
        let context = ProcedureContext(
            runID: task.runID, nodeKey: task.key, attempt: task.attempt, logger: logger,
            previousOutput: task.previousOutput, progress: progress, log: log)
        let run: @Sendable () async -> ProcedureEnd = { [self] in
            do {
                switch try await self.run(task.procedure, input: task.input, context: context) {
                case let .output(output): return ProcedureEnd(.succeeded(output))
                case let .spawn(graph): return ProcedureEnd(.spawned(graph))
                }
            } catch let failure as ProcedureFailure {
                return ProcedureEnd(.failed(message: failure.message, permanent: failure.permanent))
            } catch is CancellationError {
                return ProcedureEnd(.failed(message: "cancelled while running", permanent: false))
            } catch {
                let type = ErrorText.typeName(error)
                return ProcedureEnd(
                    .failed(message: "\(task.procedure) threw \(type): \(ErrorText.describe(error))", permanent: false), errorType: type)
            }
        }
        var ran: ProcedureEnd
        var body: Task<ProcedureEnd, Never>?
        if let timeout = task.timeout {
            (ran, body) = await Self.race(run, timeout: timeout, timedOut: { ProcedureEnd(Self.timedOut(after: timeout)) })
        } else {
            ran = await run()
        }
        var outcome = ran.outcome
        switch outcome {
        case let .succeeded(output) where output.bytes.count > maxOutputBytes:
            outcome = .failed(
                message: "output is \(output.bytes.count) bytes, more than the limit of \(maxOutputBytes) (BATON_MAX_OUTPUT_BYTES)",
                permanent: true)
        case let .spawned(graph) where graph.bytes.count > maxOutputBytes:
            outcome = .failed(
                message: "the spawned graph is \(graph.bytes.count) bytes, more than the limit of \(maxOutputBytes) (BATON_MAX_OUTPUT_BYTES)",
                permanent: true)
        case let .spawned(graph):
            if let failure = spawnedTypeFailure(graph) { outcome = failure }
        default: break
        }
        var result = AttemptResult(
            key: task.key, attempt: task.attempt, phase: task.phase, outcome: outcome, worker: worker,
            startedAt: started, finishedAt: Date())
        result.errorType = ran.errorType
        return (result, body)
    }

    /// `encodedAttempt` with the output parsed, for running in process.
    public func attempt(
        _ task: TaskDispatch, worker: String, logger: Logger, maxOutputBytes: Int = GraphLimits().maxOutputBytes,
        progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> NodeResult {
        let result = await encodedAttempt(
            task, worker: worker, logger: logger, maxOutputBytes: maxOutputBytes,
            progress: progress, log: log)
        do {
            return try result.mapOutput { try $0.decoded() }
        } catch {
            return NodeResult(
                key: task.key, attempt: task.attempt, phase: task.phase,
                outcome: .failed(message: "\(task.procedure) returned output that is not JSON: \(error)", permanent: true),
                worker: worker, startedAt: result.startedAt, finishedAt: result.finishedAt)
        }
    }

    /// The procedure's outcome, or a timeout failure once `timeout` seconds pass, whichever comes
    /// first, and the procedure's task (`body`). A procedure that ends first cancels the sleeper;
    /// a timeout cancels the procedure, but one that ignores cancellation goes on running: `body`
    /// ends only when it really returns. `sleep` waits out the timeout (replaceable so a test can
    /// see it cancelled).
    static func race<Output: Sendable>(
        _ run: @escaping @Sendable () async -> AttemptOutcome<Output>,
        timeout: Double,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1_000_000_000)) }
    ) async -> (outcome: AttemptOutcome<Output>, body: Task<AttemptOutcome<Output>, Never>) {
        await race(run, timeout: timeout, timedOut: { timedOut(after: timeout) }, sleep: sleep)
    }

    /// The failure of an attempt that ran out of time.
    static func timedOut<Output>(after timeout: Double) -> AttemptOutcome<Output> {
        .failed(message: "timed out after \(DurationText.format(timeout))", permanent: false)
    }

    /// `race` for any value the procedure's task ends with: `timedOut()` is the value when time is up.
    static func race<Value: Sendable>(
        _ run: @escaping @Sendable () async -> Value,
        timeout: Double,
        timedOut: @escaping @Sendable () -> Value,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1_000_000_000)) }
    ) async -> (outcome: Value, body: Task<Value, Never>) {
        let once = OnceFlag()
        let work = Task { await run() }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let sleeper = Task {
                    try? await sleep(min(timeout, 366 * 24 * 3600))
                    if !Task.isCancelled, once.claim() {
                        work.cancel()
                        continuation.resume(returning: timedOut())
                    }
                }
                Task {
                    let outcome = await work.value
                    sleeper.cancel()
                    if once.claim() { continuation.resume(returning: outcome) }
                }
            }
        } onCancel: {
            work.cancel()
        }
        return (outcome, work)
    }
}
