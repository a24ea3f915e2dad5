import Baton
import BatonCommandLineCore
import CoreMetrics
import Logging

/// What a worker binary adds to the lean worker, each an opt-in: `--metrics` (an HTTP endpoint),
/// `--otlp-endpoint` (an OTLP exporter), trace ids in log lines, and YAML graph files. A worker
/// without them builds none of Hummingbird, NIO, swift-otel or Yams, and stops with one line naming
/// the opt-in when given `--metrics` or `--otlp-endpoint`. The `BatonWorkerExtras` product gives
/// `.all`, as `baton worker` has: `WorkerMain.main(registry: registry, extras: .all)`.
public struct WorkerExtras: Sendable {
    /// Serves `/metrics`, `/healthz` and `/readyz` on an address: the factory to record through, and the server.
    public typealias Metrics =
        @Sendable (_ address: ListenAddress, _ health: ServiceHealth, _ logger: Logger) -> (
            factory: any MetricsFactory, server: any GracefulService
        )
    /// Bootstraps the process's tracer to export to `endpoint` as `serviceName`; returns the exporter's service.
    public typealias Tracing = @Sendable (_ endpoint: String, _ serviceName: String, _ logger: Logger) throws -> any GracefulService

    public var metrics: Metrics?
    public var tracing: Tracing?
    /// Adds the current span's ids to every log line.
    public var loggingMetadata: Logger.MetadataProvider?
    /// Reads YAML graph files for `validate`, `run --local` and `--input @FILE.yaml`.
    public var yaml: GraphFileYAML?

    /// The lean worker: none of them.
    public init(metrics: Metrics? = nil, tracing: Tracing? = nil, loggingMetadata: Logger.MetadataProvider? = nil, yaml: GraphFileYAML? = nil) {
        self.metrics = metrics
        self.tracing = tracing
        self.loggingMetadata = loggingMetadata
        self.yaml = yaml
    }

    /// What a flag the worker was built without says: exit 2, naming the product to add.
    static func missing(_ flag: String, for what: String) -> CLIFailure {
        CLIFailure(
            "\(flag) needs \(what), which this worker was built without: add the BatonWorkerExtras product to its package "
                + "and call `WorkerMain.main(registry:extras: .all)` (see docs/procedures.md)",
            exitCode: 2)
    }
}
