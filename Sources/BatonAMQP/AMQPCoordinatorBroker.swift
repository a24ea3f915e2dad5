import Foundation

/// The coordinator's messaging over librabbitmq: one confirmed publishing connection, one consuming
/// connection with a channel each for results, heartbeats and dead letters (see `BatonTopology`).
/// Used by the coordinator's one thread at a time.
public final class AMQPCoordinatorBroker: CoordinatorBroker, @unchecked Sendable {
    // Safe: used by the coordinator's thread only (the protocol's contract).
    private let url: String
    private var publisher: AMQPConnection?
    private var consumer: AMQPConnection?
    private var declaredQueues: Set<String> = []
    private var lastSequence: UInt64 = 0
    private var generation = 0

    public init(url: String) { self.url = url }

    private enum Channel {
        static let results = BatonTopology.CoordinatorChannel.results
        static let heartbeats = BatonTopology.CoordinatorChannel.heartbeats
        static let deadLetters = BatonTopology.CoordinatorChannel.deadLetters
    }

    public func connect(prefetch: Int) throws {
        close()
        generation += 1
        let publisher = try AMQPConnection(url: url, connectionName: "baton-coordinator-publish")
        try publisher.enableConfirms()
        try BatonTopology.declareCommon(on: publisher)
        self.publisher = publisher
        declaredQueues = []
        lastSequence = 0
        let consumer = try AMQPConnection(url: url, connectionName: "baton-coordinator-consume")
        try consumer.setPrefetch(UInt16(clamping: prefetch), channel: Channel.results)
        try consumer.consume(queue: BatonTopology.resultsQueue, channel: Channel.results)
        try consumer.openChannel(Channel.heartbeats)
        try consumer.consume(queue: BatonTopology.heartbeatsQueue, noAck: true, channel: Channel.heartbeats)
        try consumer.openChannel(Channel.deadLetters)
        try consumer.setPrefetch(100, channel: Channel.deadLetters)
        try consumer.consume(queue: BatonTopology.deadLettersQueue, channel: Channel.deadLetters)
        self.consumer = consumer
    }

    public func close() {
        consumer?.close()
        consumer = nil
        publisher?.close()
        publisher = nil
    }

    private func requirePublisher() throws -> AMQPConnection {
        guard let publisher else { throw AMQPError(.connectionLost, "not connected", operation: "publish") }
        return publisher
    }

    private func requireConsumer() throws -> AMQPConnection {
        guard let consumer else { throw AMQPError(.connectionLost, "not connected", operation: "consume") }
        return consumer
    }

    public func publishTask(pool: String, procedure: String, body: [UInt8], priority: UInt8, queuedAt: Date?) throws -> UInt64 {
        let publisher = try requirePublisher()
        let routingKey = BatonTopology.routingKey(pool: pool, procedure: procedure)
        if !declaredQueues.contains(routingKey) {
            try BatonTopology.declareTaskQueue(pool: pool, procedure: procedure, on: publisher)
            declaredQueues.insert(routingKey)
        }
        var headers: [String: AMQPFieldValue] = [:]
        if let queuedAt { headers[BatonTopology.queuedAtHeader] = .int(Int64((queuedAt.timeIntervalSince1970 * 1000).rounded())) }
        lastSequence = try publisher.publish(
            exchange: BatonTopology.tasksExchange, routingKey: routingKey, body: body, persistent: true, priority: priority,
            headers: headers)
        return lastSequence
    }

    public func publishCancel(body: [UInt8]) throws -> UInt64 {
        lastSequence = try requirePublisher().publish(exchange: BatonTopology.controlExchange, routingKey: "", body: body, persistent: false)
        return lastSequence
    }

    public func confirmed() throws -> UInt64 { try requirePublisher().readConfirms(timeout: 0) }

    public func waitForConfirms() throws { try requirePublisher().waitForConfirms() }

    public func keepAlive() throws { try publisher?.processIncoming(timeout: 0) }

    public func receive(timeout: Double, confirmsDue: Bool) throws -> CoordinatorInbound? {
        let consumer = try requireConsumer()
        // While confirms are due, the wait also ends when they arrive on the publisher's socket
        // (over TLS, which cannot be polled that way, it is kept short instead).
        let watching = confirmsDue ? publisher?.socketDescriptor : nil
        let wait = confirmsDue && consumer.url.useTLS ? min(timeout, 0.002) : timeout
        guard let delivery = try consumer.nextDelivery(timeout: wait, watching: watching) else { return nil }
        let receipt = BrokerReceipt(generation: generation, tag: delivery.deliveryTag)
        switch delivery.channel {
        case Channel.heartbeats:
            return .heartbeat(body: delivery.body)
        case Channel.deadLetters:
            let deliveries = delivery.headers[BatonTopology.deliveriesHeader]?.intValue.map { Int($0) } ?? 1
            let queue = delivery.headers[BatonTopology.firstDeathQueueHeader]?.stringValue
            return .deadLetter(body: delivery.body, deliveries: deliveries, queue: queue, receipt: receipt)
        default:
            return .report(body: delivery.body, receipt: receipt)
        }
    }

    public func ackReports(through receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }
        try requireConsumer().ack(deliveryTag: receipt.tag, multiple: true, channel: Channel.results)
    }

    public func ackDeadLetters(through receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }
        try requireConsumer().ack(deliveryTag: receipt.tag, multiple: true, channel: Channel.deadLetters)
    }

    public func rejectReport(_ receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }
        try requireConsumer().reject(deliveryTag: receipt.tag, requeue: false, channel: Channel.results)
    }

    public func taskQueueDepth(pool: String, procedure: String) throws -> Int {
        Int(try BatonTopology.taskQueueDepth(pool: pool, procedure: procedure, on: try requirePublisher()))
    }
}
