import Baton
import Foundation

/// The production executor: each attempt is a detached Swift task running the registered procedure.
struct TaskExecutor: AttemptExecutor {
    /// Only an attempt still running after this many nanoseconds is reported as started; for quick
    /// ones the result says when they started, which halves the messages and commits on the hot path.
    static let startedReportDelay: UInt64 = 10_000_000

    func start(
        _ task: TaskDispatch, configuration: WorkerConfiguration, report: @escaping @Sendable (ReportMessage) -> Bool,
        result: @escaping @Sendable (AttemptResult<EncodedJSON>) -> Void, finished: @escaping @Sendable () -> Void
    ) -> AttemptHandle {
        let startedAt = Date()
        let work = Task.detached {
            guard let tracer = configuration.tracer else {
                await Self.execute(task, configuration: configuration, startedAt: startedAt, report: report, result: result)
                finished()
                return
            }
            await AttemptSpan.run(task, worker: configuration.id, tracer: tracer) { record in
                await Self.execute(
                    task, configuration: configuration, startedAt: startedAt, report: report,
                    result: { outcome in
                        record(outcome)
                        result(outcome)
                    })
            }
            finished()
        }
        return AttemptHandle { work.cancel() }
    }

    /// Runs the attempt in this task: its result goes to `result` as soon as it is known.
    private static func execute(
        _ task: TaskDispatch, configuration: WorkerConfiguration, startedAt: Date, report: @escaping @Sendable (ReportMessage) -> Bool,
        result: @escaping @Sendable (AttemptResult<EncodedJSON>) -> Void
    ) async {
        let startedReport = Task {
            try await Task.sleep(nanoseconds: Self.startedReportDelay)
            _ = report(.started(runID: task.runID, key: task.key, attempt: task.attempt, worker: configuration.id, at: startedAt))
        }
        let throttle = ProgressThrottle()
        let logs = LogThrottle()
        // The count of dropped lines goes out with the next line let through (or the result); if the
        // outbox refuses it too, it is counted again.
        let dropped: @Sendable (Int) -> Void = { count in
            guard count > 0 else { return }
            if !report(.log(runID: task.runID, key: task.key, attempt: task.attempt, message: LogThrottle.droppedLine(count))) {
                logs.dropped(count)
            }
        }
        await configuration.registry.runAttempt(
            task, worker: configuration.id, logger: configuration.logger, maxOutputBytes: configuration.maxOutputBytes,
            progress: { fraction, message in
                if throttle.allow(final: fraction >= 1) {
                    _ = report(
                        .progress(
                            runID: task.runID, key: task.key, attempt: task.attempt, fraction: fraction,
                            message: message.map(LogThrottle.clipped)))
                }
            },
            log: { line in
                let (allowed, droppedBefore) = logs.allow(at: Date())
                guard allowed else { return }
                dropped(droppedBefore)
                if !report(.log(runID: task.runID, key: task.key, attempt: task.attempt, message: LogThrottle.clipped(line))) {
                    logs.dropped(1)
                }
            },
            report: { outcome in
                startedReport.cancel()
                dropped(logs.takeDropped())
                result(outcome)
            })
    }
}
