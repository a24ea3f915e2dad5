import BatonSeams

/// A worker's publishing connection over librabbitmq: reports to the result queue of their run's
/// partition, heartbeats to every coordinator, confirmed.
public final class AMQPWorkerReportBroker: WorkerReportBroker, @unchecked Sendable {
    // Safe: used by the worker's publisher thread only (the protocol's contract).
    private let url: String
    private let connectionName: String
    private var connection: AMQPConnection?

    public init(url: String, connectionName: String) {
        self.url = url
        self.connectionName = connectionName
    }

    public func connect() throws {
        close()
        let c = try AMQPConnection(url: url, connectionName: connectionName)
        // Declares nothing (its user may not), only checks, before confirms (a missing exchange closes
        // the channel, which reopens without them): publishing to a missing exchange would close it.
        try BatonTopology.requireDeclared(exchanges: [BatonTopology.reportsExchange, BatonTopology.heartbeatsExchange], on: c)
        try c.enableConfirms()
        connection = c
    }

    public func close() {
        connection?.close()
        connection = nil
    }

    private func require() throws -> AMQPConnection {
        guard let connection else { throw AMQPError(.connectionLost, "not connected", operation: "publish") }
        return connection
    }

    public func publishReport(_ body: [UInt8], partition: Int?) throws -> UInt64 {
        guard let partition else {  // a task from a coordinator before partitions: any coordinator forwards it
            return try require().publish(
                exchange: BatonTopology.reportsExchange, routingKey: BatonTopology.unpartitionedKey, body: body, persistent: true)
        }
        return try require().publish(
            exchange: BatonTopology.reportsExchange, routingKey: BatonTopology.reportKey(partition: partition), body: body,
            persistent: true)
    }

    public func publishHeartbeat(_ body: [UInt8]) throws -> UInt64 {
        try require().publish(exchange: BatonTopology.heartbeatsExchange, routingKey: "", body: body, persistent: false)
    }

    public func confirmed(timeout: Double, wakeup: (any BrokerWakeup)?) throws -> UInt64 {
        try require().readConfirms(timeout: timeout, wakeup: wakeup as? AMQPWakeup)
    }

    public func waitForConfirms() throws { try require().waitForConfirms() }

    public var blockedReason: String? { connection?.blockedReason }
}
