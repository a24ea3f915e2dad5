import Baton
import BatonAMQP
import BatonStore
import Foundation
import Logging
import Tracing

/// The coordinator's spans (`--otlp-endpoint`), carried out from `TraceEvent`s on the loop's thread:
/// one per run, from its submission to its end, a child of the submitter's span when the run
/// carries a `traceparent`; one per node attempt, from the publication of its task to its end, a
/// child of the run's, whose trace context the task carries to the worker. Open spans live in
/// memory only: a coordinator that stops or loses a partition drops those of its runs unexported.
final class RunTracing {
    private let tracer: any Tracer
    private let logger: Logger
    private var runSpans: [String: any Span] = [:]
    /// The attempt in flight of each node, by run.
    private var attemptSpans: [String: [String: any Span]] = [:]
    /// The `trace_id` and `span_id` of runs whose span ended, for the line that logs their end (`takeLogMetadata`).
    private var endedRuns: [String: Logger.Metadata] = [:]

    init(tracer: any Tracer, logger: Logger) {
        self.tracer = tracer
        self.logger = logger
    }

    /// Starts the span of `task`'s attempt at `now` and returns its `traceparent` for the task's header.
    func published(_ task: TaskDispatch, at now: Date, store: any CoordinatorStore) -> String? {
        let run = runSpan(task.runID, at: now, store: store)
        if let earlier = attemptSpans[task.runID]?[task.key] {  // sent again (a lost worker's): that one ended here
            earlier.attributes["baton.outcome"] = "redispatched"
            earlier.end(at: Self.instant(now))
        }
        let span = Self.start(tracer, "node \(task.key)", parent: run.context, kind: .producer, at: now)
        span.attributes["baton.run_id"] = task.runID
        span.attributes["baton.node"] = task.key
        span.attributes["baton.procedure"] = task.procedure
        span.attributes["baton.attempt"] = task.attempt
        span.attributes["baton.pool"] = task.pool
        if task.phase != .run { span.attributes["baton.phase"] = task.phase.rawValue }
        attemptSpans[task.runID, default: [:]][task.key] = span
        var headers: [String: String] = [:]
        tracer.inject(span.context, into: &headers, using: TraceHeaders())
        return headers[BatonTopology.traceparentHeader]
    }

    /// Carries out what `runID`'s committed `commands` mean for its spans.
    func committed(_ runID: String, _ commands: [SchedulerCommand], at now: Date, store: any CoordinatorStore) {
        for event in TraceEvent.events(of: commands) {
            switch event {
            case let .attemptRunning(key, worker):
                if let worker, let span = attemptSpans[runID]?[key] { span.attributes["baton.worker"] = worker }
            case let .attemptEnded(key, outcome, error, worker):
                guard let span = attemptSpans[runID]?.removeValue(forKey: key) else { continue }
                if let worker { span.attributes["baton.worker"] = worker }
                span.attributes["baton.outcome"] = outcome.rawValue
                if outcome != .succeeded, let error { Self.fail(span, error) }
                span.end(at: Self.instant(now))
            case let .runEnded(status, error):
                endRun(runID, status: status.rawValue, error: error, at: now, store: store)
            }
        }
    }

    /// The run failed as a whole (its data could not be recorded).
    func runFailed(_ runID: String, error: String, at now: Date, store: any CoordinatorStore) {
        endRun(runID, status: RunStatus.failed.rawValue, error: error, at: now, store: store)
    }

    /// Drops `runID`'s open spans unexported (its partition went to another coordinator).
    func forget(_ runID: String) {
        runSpans[runID] = nil
        attemptSpans[runID] = nil
    }

    private func endRun(_ runID: String, status: String, error: String?, at now: Date, store: any CoordinatorStore) {
        let span = runSpan(runID, at: now, store: store)
        span.attributes["baton.outcome"] = status
        if let error { Self.fail(span, error) }
        for (_, attempt) in attemptSpans[runID] ?? [:] { attempt.end(at: Self.instant(now)) }
        span.end(at: Self.instant(now))
        forget(runID)
        var headers: [String: String] = [:]
        tracer.inject(span.context, into: &headers, using: TraceHeaders())
        // traceparent: 00-TRACEID-SPANID-FLAGS
        let parts = headers[BatonTopology.traceparentHeader]?.split(separator: "-") ?? []
        if endedRuns.count >= 10_000 { endedRuns = [:] }  // ends whose line was never logged
        if parts.count == 4 { endedRuns[runID] = ["trace_id": "\(parts[1])", "span_id": "\(parts[2])"] }
    }

    /// The trace and span ids of `runID`'s span if it just ended, once: the metadata of the line that logs its end.
    func takeLogMetadata(_ runID: String) -> Logger.Metadata? { endedRuns.removeValue(forKey: runID) }

    /// The run's span, started (at its submission) the first time it is needed.
    private func runSpan(_ runID: String, at now: Date, store: any CoordinatorStore) -> any Span {
        if let span = runSpans[runID] { return span }
        var stored: RunTraceContext?
        do { stored = try store.traceContext(of: runID) } catch {
            logger.warning("run \(runID): cannot read its trace context (\(error)); its span starts a trace of its own")
        }
        var context = ServiceContext.topLevel
        if let traceparent = stored?.traceparent {
            tracer.extract([BatonTopology.traceparentHeader: traceparent], into: &context, using: TraceHeaders())
        }
        let span = Self.start(tracer, "run", parent: context, kind: .internal, at: min(stored?.submittedAt ?? now, now))
        span.attributes["baton.run_id"] = runID
        runSpans[runID] = span
        return span
    }

    private static func start<T: Tracer>(_ tracer: T, _ name: String, parent: ServiceContext, kind: SpanKind, at date: Date) -> any Span {
        tracer.startSpan(name, context: parent, ofKind: kind, at: instant(date))
    }

    private static func fail(_ span: any Span, _ message: String) {
        span.recordError(TracedFailure(message: message))
        span.setStatus(SpanStatus(code: .error, message: message))
    }

    static func instant(_ date: Date) -> DefaultTracerClock.Instant {
        DefaultTracerClock.Instant(nanosecondsSinceEpoch: UInt64(max(0, date.timeIntervalSince1970 * 1e9)))
    }
}
