import Baton
import BatonAMQP
import BatonCommandLineCore
import Foundation
import Logging

/// One worker process as a service: runs procedures from its pools' queues. On
/// graceful shutdown it stops taking work, lets running procedures finish within
/// the grace period, reports them, and hands back anything left.
public struct Worker: GracefulService {
    public let configuration: WorkerConfiguration
    private let draining = StopSignal()

    public init(configuration: WorkerConfiguration) { self.configuration = configuration }

    /// Throws an `AMQPError` at once when the broker refuses the configuration (see `BrokerCheck`).
    public func run() async throws {
        try await DedicatedThread.run(name: "baton-worker-check") { [configuration] in
            if let passing = try BrokerCheck.verify(url: configuration.amqpURL, connectionName: "baton-worker-check \(configuration.id)") {
                configuration.logger.warning("RabbitMQ is not reachable yet (\(passing)); the worker keeps trying")
            }
        }
        let mailbox = WorkerMailbox(budget: configuration.outboxBytes)
        let consumerDone = StopSignal()
        let consumer = TaskConsumer(configuration: configuration, mailbox: mailbox)
        let publisher = ReportPublisher(
            configuration: configuration, mailbox: mailbox, startedAt: Date(), holding: { [consumer] in consumer.holding() })
        try await withTaskCancellationHandler {
            async let consuming: Void = DedicatedThread.run(name: "baton-worker-consume") {
                consumer.run(draining: draining)
                consumerDone.set()
            }
            async let publishing: Void = DedicatedThread.run(name: "baton-worker-publish") {
                publisher.run(until: { consumerDone.isSet })
            }
            _ = try await (consuming, publishing)
        } onCancel: {
            draining.set()
        }
    }

    /// Stops taking work; `run()` returns once the running procedures have finished (or the grace period ended).
    public func shutDown() async { draining.set() }
}
