import ArgumentParser
import Baton
import BatonDemo
import BatonWorker
import Foundation
import Logging
import ServiceLifecycle

/// `BatonTestWorker`: a worker for Baton's own tests and chaos suite. It serves the
/// built-in and demo procedures, `test.crash-worker`, which kills its own process, and
/// `test.stubborn-sleep`, which ignores cancellation: never run it beside real work.
@main
struct TestWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "BatonTestWorker",
        abstract: "A worker for Baton's tests only: it also serves test.crash-worker, which kills the worker.")
    @Option(help: "AMQP URI (default: $BATON_AMQP_URL).") var amqpURL: String?
    @Option(help: "Procedures run at once.") var concurrency = 1
    @Option(help: "Tasks taken from the broker at once (default: 4 × concurrency).") var prefetch: Int?
    @Option(help: "Deliveries of a task without a result before it is dead-lettered.") var deliveryLimit = 5
    @Option(help: "Seconds between heartbeats.") var heartbeat: Double = 5

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "baton.test-worker")
        var registry = ProcedureRegistry.demo
        registry.register(CrashWorkerProcedure())
        registry.register(StubbornSleepProcedure())
        let url = amqpURL ?? ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
        let worker = Worker(
            configuration: WorkerConfiguration(
                amqpURL: url, concurrency: concurrency, prefetch: prefetch, registry: registry, heartbeatInterval: heartbeat,
                deliveryLimit: deliveryLimit, logger: logger))
        let group = ServiceGroup(
            configuration: .init(
                services: [worker], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
