import Baton
import BatonAMQP
import Foundation
import Tracing

/// The worker's span of one attempt (`--otlp-endpoint`): `execute PROCEDURE`, a child of the
/// coordinator's span of the attempt when the task carries its `traceparent`. The procedure runs
/// inside it (`ServiceContext.current`), so spans it opens with `withSpan` nest under it.
enum AttemptSpan {
    static func run<T: Tracer>(
        _ task: TaskDispatch, worker: String, tracer: T,
        _ body: @escaping (_ record: @escaping @Sendable (AttemptResult<EncodedJSON>) -> Void) async -> Void
    ) async {
        var parent = ServiceContext.topLevel
        if let traceparent = task.traceparent {
            tracer.extract([BatonTopology.traceparentHeader: traceparent], into: &parent, using: TraceHeaders())
        }
        await tracer.withSpan("execute \(task.procedure)", context: parent, ofKind: .consumer) { span in
            span.attributes["baton.run_id"] = task.runID
            span.attributes["baton.node"] = task.key
            span.attributes["baton.procedure"] = task.procedure
            span.attributes["baton.attempt"] = task.attempt
            span.attributes["baton.worker"] = worker
            await body { result in record(result, on: span) }
        }
    }

    /// The attempt's outcome on its span; a failure is recorded as its error.
    static func record(_ result: AttemptResult<EncodedJSON>, on span: some Span) {
        switch result.outcome {
        case .succeeded: span.attributes["baton.outcome"] = "succeeded"
        case .spawned: span.attributes["baton.outcome"] = "spawned"
        case let .failed(message, permanent):
            span.attributes["baton.outcome"] = "failed"
            if permanent { span.attributes["baton.permanent"] = true }
            if let type = result.errorType { span.attributes["baton.error_type"] = type }
            span.recordError(AttemptFailure(message: message))
            span.setStatus(SpanStatus(code: .error, message: message))
        }
    }
}
