import BatonAMQP
import BatonCommandLine
import Logging
import Tracing

/// `baton submit`'s span (`--otlp-endpoint`, service `baton-cli`): the root of the run's trace,
/// from the command's start until the run is stored. Its `traceparent` is stored with the run, and
/// the coordinator's span of the run (submission to end) is its child.
final class SubmitTracing {
    private let span: any Span
    private let flush: TracingFlush
    private var ended = false

    /// Nil when tracing is off; a bad endpoint is a usage error (exit 2), before anything is read or stored.
    init?(_ options: TracingOptions) throws {
        guard let endpoint = try options.endpoint() else { return nil }
        try CLILogging.bootstrap()  // swift-otel's own warnings go to stderr: stdout is the run id's
        let logger = Logger(label: "baton.submit")
        flush = TracingFlush(try TracingEndpoint(endpoint: endpoint, serviceName: "baton-cli", logger: logger), logger: logger)
        span = Self.start(InstrumentationSystem.tracer)
    }

    private static func start<T: Tracer>(_ tracer: T) -> any Span {
        tracer.startSpan("baton submit", context: .topLevel, ofKind: .client)
    }

    /// The W3C trace context to store with the run.
    var traceparent: String? {
        var headers: [String: String] = [:]
        InstrumentationSystem.tracer.inject(span.context, into: &headers, using: TraceHeaders())
        return headers[BatonTopology.traceparentHeader]
    }

    /// The run is stored: the span ends.
    func stored(runID: String, nodes: Int, existing: Bool) {
        span.attributes["baton.run_id"] = runID
        span.attributes["baton.nodes"] = nodes
        if existing { span.attributes["baton.existing"] = true }
        end()
    }

    /// Ends the span (with `error`, if the command failed) and sends it before the command exits.
    func finish(error: (any Error)?) {
        if let error { span.recordError(error) }
        end()
        flush.finish()
    }

    private func end() {
        guard !ended else { return }
        ended = true
        span.end()
    }
}
