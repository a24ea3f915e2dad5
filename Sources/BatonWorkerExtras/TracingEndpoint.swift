import BatonCommandLineCore
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// One process's trace exporter: swift-otel's OTLP/HTTP (protobuf) exporter, bootstrapped as the
/// process's `InstrumentationSystem` tracer. `service` batches and sends the spans; run it in the
/// process's `ServiceGroup`: its graceful shutdown sends what is left.
public struct TracingEndpoint {
    public let service: any Service

    /// `serviceName` is the `service.name` resource attribute (`baton-cli`, `baton-coordinator`, `baton-worker`).
    public init(endpoint: String, serviceName: String, logger: Logger) throws {
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        // swift-otel reads the endpoint from the environment and adds `/v1/traces` as the OTLP spec says;
        // the flag goes there too (supervised worker processes inherit it).
        setenv(TracingOptions.environmentVariable, endpoint, 1)
        do {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            service = backend.service
            Self.bootstrapOnce(backend.factory)
        } catch {
            throw CLIFailure("--otlp-endpoint \(endpoint): cannot export traces: \(error)", exitCode: 2)
        }
    }

    nonisolated(unsafe) private static var bootstrapped = false
    /// swift-distributed-tracing allows one bootstrap per process: the first endpoint's tracer wins.
    private static func bootstrapOnce(_ tracer: some Tracer) {
        guard !bootstrapped else { return }
        bootstrapped = true
        InstrumentationSystem.bootstrap(tracer)
    }
}
