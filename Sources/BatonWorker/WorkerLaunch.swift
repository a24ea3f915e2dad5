import Baton
import BatonAMQP
import BatonCommandLineCore
import Foundation
import Logging
import Tracing

/// What `baton worker` and every `WorkerMain` binary do with their flags: serve `registry` in this
/// process, or supervise `--processes` copies of this executable, until SIGTERM or SIGINT drains them.
public enum WorkerLaunch {
    /// `command` is what comes before the flags when this executable starts a supervised copy
    /// (`["worker"]` for `baton worker`); `label` names the logger. `extras` serve `--metrics` and
    /// `--otlp-endpoint`; either flag given without its extra is a usage error naming the opt-in.
    public static func run(
        _ options: WorkerOptions, registry: ProcedureRegistry, command: [String], label: String, extras: WorkerExtras = WorkerExtras()
    ) async throws {
        try options.check()
        var tracingEndpoint = try options.tracingOptions.endpoint()
        if options.tracingOptions.otlpEndpoint != nil, extras.tracing == nil {
            throw WorkerExtras.missing("--otlp-endpoint", for: "the OTLP exporter (swift-otel)")
        }
        if options.metricsOptions.metrics != nil, extras.metrics == nil {
            throw WorkerExtras.missing("--metrics", for: "the HTTP metrics endpoint (Hummingbird, Prometheus)")
        }
        try CLILogging.bootstrap(metadataProvider: extras.loggingMetadata)
        let logger = Logger(label: label)
        if tracingEndpoint != nil, extras.tracing == nil {
            // Set for every process of a deployment, not asked of this one: a warning, not a refusal.
            logger.warning(
                "$\(TracingOptions.environmentVariable) is set, but this worker was built without the OTLP exporter (BatonWorkerExtras): no traces")
            tracingEndpoint = nil
        }
        let limits = try Limits.fromEnvironment()
        var services: [any GracefulService] = []
        if options.processes == 1 {
            var configuration = WorkerConfiguration(
                amqpURL: options.connection.amqpURL, pools: options.poolList, concurrency: options.concurrency, prefetch: options.prefetch,
                registry: registry, heartbeatInterval: options.heartbeat, shutdownGrace: options.shutdownGrace,
                deliveryLimit: options.deliveryLimit, logger: logger)
            configuration.maxOutputBytes = limits.maxOutputBytes
            if let endpoint = tracingEndpoint, let tracing = extras.tracing {
                let exporter = try tracing(endpoint, "baton-worker", logger)
                configuration.tracer = InstrumentationSystem.tracer
                services.append(exporter)  // before the worker: stopped after it, so its last spans go out
            }
            if var address = try options.metricsOptions.address(), let metrics = extras.metrics {
                // A process of `--processes P` (the supervisor sets its slot) serves on PORT+slot.
                if let slot = ProcessInfo.processInfo.environment["BATON_WORKER_SLOT"].flatMap(Int.init) { address = address.shifted(by: slot) }
                let endpoint = metrics(address, configuration.health, logger)
                configuration.metrics = WorkerMetrics(
                    factory: endpoint.factory, procedures: configuration.registry.names, pools: configuration.pools,
                    slots: configuration.concurrency)
                services.append(endpoint.server)
            }
            // Last, so it is stopped first: the endpoints answer (`/readyz` says draining) until it has drained.
            services.append(Worker(configuration: configuration))
        } else {
            services.append(WorkerSupervisor(processes: options.processes, arguments: command + options.childArguments, logger: logger))
        }
        if options.processes == 1, ProcessInfo.processInfo.environment["BATON_WORKER_SLOT"] != nil { ParentWatch.start() }
        // A configuration error (bad URL, wrong password, missing vhost, 406 on declare) ends the command with
        // one line, before any process starts: the supervisor would otherwise restart its children for ever.
        do {
            if options.processes > 1 { try BrokerCheck.verify(url: options.connection.amqpURL, connectionName: "baton-worker-check") }
            try await GracefulServices.run(services, logger: logger)
        } catch  where BrokerFailure(error) == .configuration {
            throw CLIFailure("worker: \(error)")
        }
    }
}
