import ArgumentParser
import Baton
import BatonAMQP
import BatonDemo
import BatonHTTP
import BatonWorker
import Foundation
import Logging
import ServiceLifecycle

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run worker processes serving the built-in procedures (baton.*), and with --demo the demo ones (demo.*).")
    @OptionGroup var connection: AMQPOptions
    @Option(parsing: .unconditional, help: "Procedures each process runs at once.") var concurrency = 4
    @Option(
        parsing: .unconditional,
        help: "Tasks each process takes from the broker at once: those running plus those waiting for a slot (default: four times --concurrency).")
    var prefetch: Int?
    @Option(parsing: .unconditional, help: "Worker processes to start and supervise (a crashed one is restarted).") var processes = 1
    @Option(help: "Comma-separated pools to take work from.") var pools = "default"
    @Option(parsing: .unconditional, help: "Seconds running procedures get to finish on shutdown before they are handed back.") var shutdownGrace:
        Double = 30
    @Option(parsing: .unconditional, help: "Seconds between heartbeats (keep it well under the coordinator's --lease).") var heartbeat: Double = 5
    @Option(parsing: .unconditional, help: "Deliveries of a task without a result before it is dead-lettered and its node fails.") var deliveryLimit =
        5
    @Flag(help: "Also serve the demo procedures (demo.*), as deploy/local/demo.sh does.") var demo = false
    @OptionGroup(title: "Metrics (with --processes P, process N serves on PORT+N: PORT, PORT+1, ...)") var metricsOptions: MetricsOptions

    func check() throws {
        guard concurrency >= 1, concurrency <= 10_000 else {
            throw CLIFailure("--concurrency must be from 1 to 10000, got \(concurrency)", exitCode: 2)
        }
        if let prefetch, prefetch < concurrency || prefetch > 65_535 {
            throw CLIFailure("--prefetch must be from --concurrency (\(concurrency)) to 65535, got \(prefetch)", exitCode: 2)
        }
        guard processes >= 1, processes <= 256 else { throw CLIFailure("--processes must be from 1 to 256, got \(processes)", exitCode: 2) }
        for pool in poolList {
            if let why = NodeKey.problem(with: pool) { throw CLIFailure("--pools: invalid pool name '\(pool)': \(why)", exitCode: 2) }
        }
        guard shutdownGrace >= 0 else { throw CLIFailure("--shutdown-grace must not be negative", exitCode: 2) }
        guard deliveryLimit >= 1, deliveryLimit <= 1000 else { throw CLIFailure("--delivery-limit must be from 1 to 1000", exitCode: 2) }
        guard heartbeat >= 0.1, heartbeat <= 600 else { throw CLIFailure("--heartbeat must be from 0.1 to 600 seconds", exitCode: 2) }
        if let address = try metricsOptions.address(), address.port + processes - 1 > 65_535 {
            throw CLIFailure(
                "--metrics: port \(address.port) + \(processes - 1) for --processes \(processes) is past 65535 (process N serves on PORT+N)",
                exitCode: 2)
        }
    }

    var poolList: [String] { pools.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

    func run() async throws {
        try check()
        try CLILogging.bootstrap()
        let logger = Logger(label: "baton.worker")
        let limits = try Limits.fromEnvironment()
        var services: [any Service] = []
        if processes == 1 {
            var configuration = WorkerConfiguration(
                amqpURL: connection.amqpURL, pools: poolList, concurrency: concurrency, prefetch: prefetch,
                registry: demo ? .demo : .builtIn,
                heartbeatInterval: heartbeat, shutdownGrace: shutdownGrace,
                deliveryLimit: deliveryLimit, logger: logger)
            configuration.maxOutputBytes = limits.maxOutputBytes
            if var address = try metricsOptions.address() {
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
            var childArguments = [
                "worker", "--concurrency", String(concurrency), "--processes", "1", "--pools", pools,
                "--shutdown-grace", String(shutdownGrace), "--heartbeat", String(heartbeat),
                "--delivery-limit", String(deliveryLimit),
            ]
            if let prefetch { childArguments += ["--prefetch", String(prefetch)] }
            if demo { childArguments.append("--demo") }
            if let url = connection.amqpURLFlag { childArguments += ["--amqp-url", url] }
            if let metrics = metricsOptions.metrics { childArguments += ["--metrics", metrics] }
            services.append(WorkerSupervisor(processes: processes, arguments: childArguments, logger: logger))
        }
        if processes == 1, ProcessInfo.processInfo.environment["BATON_WORKER_SLOT"] != nil { ParentWatch.start() }
        // A configuration error (bad URL, wrong password, missing vhost, 406 on declare) ends the command with
        // one line, before any process starts: the supervisor would otherwise restart its children for ever.
        do {
            if processes > 1 { try BrokerCheck.verify(url: connection.amqpURL, connectionName: "baton-worker-check") }
            let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch let error as AMQPError where error.disposition == .configuration {
            throw CLIFailure("worker: \(error)")
        }
    }
}
