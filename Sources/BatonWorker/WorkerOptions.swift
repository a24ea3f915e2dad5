import ArgumentParser
import Baton
import BatonCommandLineCore

/// Every flag of `baton worker`, shared by every worker binary (`WorkerMain`): one definition,
/// so a worker of one's own has exactly the same interface.
public struct WorkerOptions: ParsableArguments {
    @OptionGroup public var connection: AMQPOptions
    @Option(parsing: .unconditional, help: "Procedures each process runs at once.") public var concurrency = 4
    @Option(
        parsing: .unconditional,
        help: "Tasks each process takes from the broker at once: those running plus those waiting for a slot (default: four times --concurrency).")
    public var prefetch: Int?
    @Option(parsing: .unconditional, help: "Worker processes to start and supervise (a crashed one is restarted, with a back-off).")
    public var processes = 1
    @Option(help: "Comma-separated pools to take work from.") public var pools = "default"
    @Option(parsing: .unconditional, help: "Seconds running procedures get to finish on shutdown before they are handed back.")
    public var shutdownGrace: Double = 30
    @Option(parsing: .unconditional, help: "Seconds between heartbeats (keep it well under the coordinator's --lease).")
    public var heartbeat: Double = 5
    @Option(parsing: .unconditional, help: "Deliveries of a task without a result before it is dead-lettered and its node fails.")
    public var deliveryLimit = 5
    @OptionGroup(title: "Metrics (with --processes P, process N serves on PORT+N: PORT, PORT+1, ...)") public var metricsOptions: MetricsOptions
    @OptionGroup(title: "Traces (service name baton-worker)") public var tracingOptions: TracingOptions

    public init() {}

    /// Every value in range; a usage error (exit 2) naming the flag otherwise.
    public func check() throws {
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
        _ = try tracingOptions.endpoint()
    }

    public var poolList: [String] { pools.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

    /// The flags a supervised process of `--processes P` gets: these, with one process.
    var childArguments: [String] {
        var arguments = [
            "--concurrency", String(concurrency), "--processes", "1", "--pools", pools,
            "--shutdown-grace", String(shutdownGrace), "--heartbeat", String(heartbeat),
            "--delivery-limit", String(deliveryLimit),
        ]
        if let prefetch { arguments += ["--prefetch", String(prefetch)] }
        if let url = connection.amqpURLFlag { arguments += ["--amqp-url", url] }
        if let metrics = metricsOptions.metrics { arguments += ["--metrics", metrics] }
        if let endpoint = tracingOptions.otlpEndpoint { arguments += ["--otlp-endpoint", endpoint] }
        return arguments
    }
}
