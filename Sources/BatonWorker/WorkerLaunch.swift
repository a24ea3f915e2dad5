import Baton
import BatonAMQP
import BatonCommandLine
import Foundation
import Logging
import ServiceLifecycle
import Tracing

/// What `baton worker` and every `WorkerMain` binary do with their flags: serve `registry` in this
/// process, or supervise `--processes` copies of this executable, until SIGTERM or SIGINT drains them.
public enum WorkerLaunch {
    /// `command` is what comes before the flags when this executable starts a supervised copy
    /// (`["worker"]` for `baton worker`); `label` names the logger.
    public static func run(_ options: WorkerOptions, registry: ProcedureRegistry, command: [String], label: String) async throws {
        try options.check()
        try CLILogging.bootstrap()
        let logger = Logger(label: label)
        let limits = try Limits.fromEnvironment()
        var services: [any Service] = []
        if options.processes == 1 {
            var configuration = WorkerConfiguration(
                amqpURL: options.connection.amqpURL, pools: options.poolList, concurrency: options.concurrency, prefetch: options.prefetch,
                registry: registry, heartbeatInterval: options.heartbeat, shutdownGrace: options.shutdownGrace,
                deliveryLimit: options.deliveryLimit, logger: logger)
            configuration.maxOutputBytes = limits.maxOutputBytes
            if let endpoint = try options.tracingOptions.endpoint() {
                let tracing = try TracingEndpoint(endpoint: endpoint, serviceName: "baton-worker", logger: logger)
                configuration.tracer = InstrumentationSystem.tracer
                services.append(tracing.service)  // before the worker: stopped after it, so its last spans go out
            }
            if var address = try options.metricsOptions.address() {
                // A process of `--processes P` (the supervisor sets its slot) serves on PORT+slot.
                if let slot = ProcessInfo.processInfo.environment["BATON_WORKER_SLOT"].flatMap(Int.init) { address = address.shifted(by: slot) }
                let endpoint = MetricsEndpoint(address: address, health: configuration.health, logger: logger)
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
            let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch  where BrokerFailure(error) == .configuration {
            throw CLIFailure("worker: \(error)")
        }
    }
}
