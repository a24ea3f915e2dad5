import BatonCommandLineCore
import BatonWorker
import OTel

extension WorkerExtras {
    /// Everything `baton worker` has: `--metrics` (Prometheus over Hummingbird), `--otlp-endpoint`
    /// (swift-otel's OTLP/HTTP exporter), trace ids in log lines, and YAML graph files (Yams).
    public static let all = WorkerExtras(
        metrics: { address, health, logger in
            let endpoint = MetricsEndpoint(address: address, health: health, logger: logger)
            return (endpoint.factory, LifecycleService(endpoint.server, logger: logger))
        },
        tracing: { endpoint, serviceName, logger in
            LifecycleService(try TracingEndpoint(endpoint: endpoint, serviceName: serviceName, logger: logger).service, logger: logger)
        },
        loggingMetadata: OTel.makeLoggingMetadataProvider(),
        yaml: .yams)
}
