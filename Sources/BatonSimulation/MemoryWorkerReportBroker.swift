import Baton
import BatonAMQP

/// A worker's publishing side of the `MemoryBroker`, as `AMQPWorkerReportBroker` is over RabbitMQ:
/// one connection named `name`, reports (persistent) to their partition's result queue and
/// heartbeats (transient) to every coordinator, confirmed. A `legacy` one publishes as a worker from
/// before partitions did: every report to `baton.results`, heartbeats to the shared queue only.
public final class MemoryWorkerReportBroker: WorkerReportBroker, @unchecked Sendable {
    // Safe: used from the simulator's one thread (see MemoryBroker).
    public let broker: MemoryBroker
    public let name: String
    let legacy: Bool
    private var connection: MemoryConnection?

    private static let channel: UInt16 = 1

    init(broker: MemoryBroker, name: String, legacy: Bool = false) {
        self.broker = broker
        self.name = name
        self.legacy = legacy
    }

    public func connect() throws {
        close()
        connection = try broker.open(name: name, owner: name)
    }

    public func close() {
        broker.close(connection)
        connection = nil
    }

    public func publishReport(_ body: [UInt8], partition: Int?) throws -> UInt64 {
        let connection = try broker.require(connection, "publish")
        guard let partition, !legacy else {
            // A worker from before partitions is from before attempt tokens too: it echoes none.
            var body = body
            if legacy, var report = try? ReportMessage(decoding: body), report.attemptToken != nil {
                report.attemptToken = nil
                body = report.encoded()
            }
            return try broker.publish(
                connection, channel: Self.channel, exchange: "", routingKey: BatonTopology.resultsQueue, body: body, persistent: true)
        }
        return try broker.publish(
            connection, channel: Self.channel, exchange: BatonTopology.reportsExchange,
            routingKey: BatonTopology.reportKey(partition: partition), body: body, persistent: true)
    }

    public func publishHeartbeat(_ body: [UInt8]) throws -> UInt64 {
        let (exchange, routingKey) = legacy ? ("", BatonTopology.heartbeatsQueue) : (BatonTopology.heartbeatsExchange, "")
        return try broker.publish(
            try broker.require(connection, "publish"), channel: Self.channel, exchange: exchange, routingKey: routingKey, body: body,
            persistent: false)
    }

    /// The confirmed sequence number now (`timeout` and `wakeup` are ignored: the simulator owns time).
    public func confirmed(timeout: Double, wakeup: (any BrokerWakeup)?) throws -> UInt64 {
        try broker.confirmed(connection, channel: Self.channel)
    }

    public func waitForConfirms() throws { try broker.waitForConfirms(connection, channel: Self.channel) }
}
