import ArgumentParser
import Baton
import BatonAMQP
import BatonCommandLine
import BatonCoordinator
import BatonHTTP
import BatonWebhooks
import Foundation
import Logging
import ServiceLifecycle
import Tracing

struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Run a coordinator until SIGTERM or SIGINT, then finish the batch in flight and exit.")
    @OptionGroup var connection: ConnectionOptions
    @Option(parsing: .unconditional, help: "Most worker reports applied in one transaction.") var batchSize = 1_000
    @Option(parsing: .unconditional, help: "Seconds without a heartbeat after which a worker's running attempts go to another worker.") var lease:
        Double = 30
    @Option(
        parsing: .unconditional,
        help: "Most nodes of one run with a task out (queued or running) at once; more wait, ready, until others end.")
    var dispatchWindow = RunState.defaultDispatchWindow
    @Option(
        parsing: .unconditional,
        help: "The partition count the schema must have (set by `baton migrate --partitions`); a mismatch stops at start-up.")
    var partitions: Int?
    @Option(
        parsing: .unconditional,
        help: "Seconds a partition stays this coordinator's without a renewal (on the database's clock): how long a stalled one keeps others out.")
    var partitionLease: Double = 10
    @Option(
        help: ArgumentHelp(
            "Remove finished runs older than this (30d, 12h), with their nodes and events, every tenth of it (10 s to 10 min).",
            valueName: "DURATION"))
    var retention: String?
    @Option(help: ArgumentHelp("With --retention: also remove output-cache rows older than this.", valueName: "DURATION"))
    var cacheRetention: String?
    @Flag(
        help:
            "Accept workers' reports that carry no attempt token, as workers from before tokens send: only for the window of a rolling upgrade (docs/operations.md)."
    )
    var acceptUntokenedReports = false
    @Option(
        help: ArgumentHelp(
            "Memory this coordinator's batches may hold (512MiB, 1GiB): reports taken in one batch are bounded to an eighth of it in bytes.",
            valueName: "SIZE"))
    var memoryBudget = "512MiB"
    @Option(
        help: ArgumentHelp(
            "About the most bytes of values one commit statement carries (64MiB); a larger batch is committed in pieces.",
            valueName: "SIZE"))
    var commitBytes = "64MiB"
    @Option(
        help: ArgumentHelp(
            "Seconds before a failed webhook delivery is tried again the first time; later waits are 3, 6, 12, 30, 90, 180 and 360 times it (given up 24 h after the event).",
            valueName: "SECONDS"))
    var webhookRetryBase: Double = 10
    @OptionGroup var metricsOptions: MetricsOptions
    @OptionGroup(title: "Traces (service name baton-coordinator)") var tracingOptions: TracingOptions

    func run() async throws {
        try CLILogging.bootstrap()
        guard batchSize >= 1 else { throw CLIFailure("--batch-size must be at least 1", exitCode: 2) }
        guard lease >= 1, lease <= 3600 else { throw CLIFailure("--lease must be from 1 to 3600 seconds", exitCode: 2) }
        guard dispatchWindow >= 1, dispatchWindow <= 10_000_000 else {
            throw CLIFailure("--dispatch-window must be from 1 to 10000000 nodes", exitCode: 2)
        }
        if let partitions, let problem = RunPartition.countProblem(partitions) {
            throw CLIFailure(problem, exitCode: 2)
        }
        guard partitionLease >= 2, partitionLease <= 600 else {
            throw CLIFailure("--partition-lease must be from 2 to 600 seconds", exitCode: 2)
        }
        guard webhookRetryBase >= 0.05, webhookRetryBase <= 3600 else {
            throw CLIFailure("--webhook-retry-base must be from 0.05 to 3600 seconds", exitCode: 2)
        }
        let budget = try ByteSize.parse(memoryBudget, flag: "--memory-budget", range: (16 << 20)...(1 << 40))
        let statementBytes = try ByteSize.parse(commitBytes, flag: "--commit-bytes", range: (64 << 10)...(512 << 20))
        let retentionAge = try retention.map { try RetentionText.parse($0, flag: "--retention").get() }
        let cacheAge = try cacheRetention.map { try RetentionText.parse($0, flag: "--cache-retention").get() }
        if cacheAge != nil && retentionAge == nil { throw CLIFailure("--cache-retention needs --retention", exitCode: 2) }
        let metricsAddress = try metricsOptions.address()
        let otlpEndpoint = try tracingOptions.endpoint()
        let store = try connection.openStore()  // fail fast, with a clear message, if the database is unusable
        let queueType = try? store.queueType()
        store.close()
        do {
            try BrokerCheck.verify(
                url: connection.amqpURL, connectionName: "baton-coordinator-check", queueType: queueType.flatMap(QueueType.init(rawValue:)))
        } catch {
            throw CLIFailure("coordinator: \(error)")
        }
        let logger = Logger(label: "baton.coordinator")
        var configuration = CoordinatorConfiguration(
            databaseURL: connection.databaseURL, amqpURL: connection.amqpURL, batchSize: batchSize, lease: lease, logger: logger)
        let limits = try Limits.fromEnvironment()
        configuration.maxInputBytes = limits.maxInputBytes
        configuration.maxOutputBytes = limits.maxOutputBytes
        configuration.memoryBudget = budget
        configuration.commitBytes = statementBytes
        configuration.dispatchWindow = dispatchWindow
        configuration.reportCheck = ReportCheck(acceptUntokened: acceptUntokenedReports)
        configuration.expectedPartitions = partitions
        configuration.partitionLease = partitionLease
        var services: [any Service] = []
        if let otlpEndpoint {
            let tracing = try TracingEndpoint(endpoint: otlpEndpoint, serviceName: "baton-coordinator", logger: logger)
            configuration.tracer = InstrumentationSystem.tracer
            services.append(tracing.service)  // first: stopped last, after the coordinator's last spans
        }
        if let metricsAddress {
            let endpoint = MetricsEndpoint(address: metricsAddress, health: configuration.health, logger: logger)
            configuration.metrics = CoordinatorMetrics(factory: endpoint.factory)
            services.append(endpoint.server)
        }
        // Always: it creates the history's time partitions ahead; with --retention it prunes too.
        services.append(Retention(databaseURL: connection.databaseURL, olderThan: retentionAge, cacheOlderThan: cacheAge, logger: logger))
        // Fires the schedules of the partitions this coordinator holds.
        services.append(ScheduleFiring(databaseURL: connection.databaseURL, coordinator: configuration.id, limits: limits, logger: logger))
        // Posts the webhook deliveries of the partitions this coordinator holds (docs/api.md, "Webhooks").
        services.append(
            WebhookDelivery(
                databaseURL: connection.databaseURL, coordinator: configuration.id, policy: DeliveryPolicy(base: webhookRetryBase),
                hosts: WebhookHosts(environment: ProcessInfo.processInfo.environment["BATON_WEBHOOK_HOSTS"]), logger: logger))
        // Last, so it is stopped first: the group stops services in reverse order, and the endpoints
        // keep answering (readiness, metrics) until the coordinator has finished its batch.
        services.append(Coordinator(configuration: configuration))
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do { try await group.run() } catch let stopped as CoordinatorStop {
            throw CLIFailure("coordinator stopped: \(stopped.message)")
        }
    }
}
