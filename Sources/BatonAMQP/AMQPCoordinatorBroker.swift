import Foundation

/// The coordinator's messaging over librabbitmq: one confirmed publishing connection, one consuming
/// connection with a channel each for the partitions' results, heartbeats, dead letters and reports
/// without a partition (see `BatonTopology`). Consuming another set of partitions opens the
/// consuming connection again, which gives back every unacked delivery. Used by the coordinator's
/// one thread at a time.
public final class AMQPCoordinatorBroker: CoordinatorBroker, @unchecked Sendable {
    // Safe: used by the coordinator's thread only (the protocol's contract).
    private let url: String
    private var publisher: AMQPConnection?
    private var consumer: AMQPConnection?
    private var declaredQueues: Set<String> = []
    private var lastSequence: UInt64 = 0
    private var generation = 0
    private var prefetch = 1
    private var consumerHeartbeat = 30
    /// Seconds each connect, handshake and RPC may take (`timeoutSeconds`): half the partition lease, at
    /// most 10. A broker that does not answer (a network cut) fails the call in that time, where the 10 s
    /// default outlasted a lease: reopening the consuming connection at a hand-over, or reading queue
    /// depths, held the coordinator through a cut while its partitions' leases ran out (the chaos suite).
    private var callTimeout = 10.0
    private var queueType = QueueType.classic
    /// When the last flow-control probe went out (see `publishersBlocked()`).
    private var probedAt = ContinuousClock.now - .seconds(3600)
    /// Blocks counted on publishing connections closed since.
    private var earlierBlocks = 0
    /// Seconds between two probes.
    static let probeInterval = 2.0

    public init(url: String) { self.url = url }

    /// The bound of each connect, handshake and RPC for a partition lease of `silence` seconds.
    public static func callTimeout(silence: Double) -> Double { min(10, max(1, silence / 2)) }

    private enum Channel {
        static let results = BatonTopology.CoordinatorChannel.results
        static let heartbeats = BatonTopology.CoordinatorChannel.heartbeats
        static let deadLetters = BatonTopology.CoordinatorChannel.deadLetters
        static let unpartitioned = BatonTopology.CoordinatorChannel.unpartitioned
        static let registry = BatonTopology.CoordinatorChannel.registry
        /// The publisher's channel for flow-control probes, without confirms (so they take no sequence number).
        static let probe: UInt16 = 9
    }

    public func connect(prefetch: Int, partitions: Int, silence: Double, queueType: QueueType) throws {
        earlierBlocks += publisher?.blockCount ?? 0
        close()
        callTimeout = Self.callTimeout(silence: silence)
        let publisher = try AMQPConnection(url: url, connectionName: "baton-coordinator-publish", timeoutSeconds: callTimeout)
        do {
            try BatonTopology.declareAll(partitions: partitions, queueType: queueType, on: publisher)
        } catch let error as AMQPError where error.code == .accessRefused {
            // A user restricted to `BrokerRole.coordinator`: `baton migrate` declared the topology.
            try publisher.openChannel(1)
            try BatonTopology.requireAll(partitions: partitions, queueType: queueType, on: publisher)
        }
        try publisher.enableConfirms()
        try publisher.openChannel(Channel.probe)
        self.queueType = queueType
        self.publisher = publisher
        self.prefetch = prefetch
        // RabbitMQ drops a connection that sent nothing for about its heartbeat timeout; the loop
        // services the consuming connection every turn.
        consumerHeartbeat = max(1, Int(silence.rounded()))
        declaredQueues = []
        lastSequence = 0
        try consume(partitions: [])
    }

    public func consume(partitions: Set<Int>) throws {
        consumer?.close()
        consumer = nil
        generation += 1
        let consumer = try AMQPConnection(
            url: url, heartbeatSeconds: consumerHeartbeat, connectionName: "baton-coordinator-consume", timeoutSeconds: callTimeout)
        try consumer.setPrefetch(UInt16(clamping: prefetch), channel: Channel.results)
        for partition in partitions.sorted() {
            try consumer.consume(queue: BatonTopology.resultsQueue(partition: partition), channel: Channel.results)
        }
        try consumer.openChannel(Channel.heartbeats)
        let heartbeats = try BatonTopology.declareHeartbeatQueue(on: consumer, channel: Channel.heartbeats)
        try consumer.consume(queue: heartbeats, noAck: true, channel: Channel.heartbeats)
        try consumer.openChannel(Channel.deadLetters)
        try consumer.setPrefetch(100, channel: Channel.deadLetters)
        try consumer.consume(queue: BatonTopology.deadLettersQueue, channel: Channel.deadLetters)
        try consumer.openChannel(Channel.unpartitioned)
        try consumer.setPrefetch(100, channel: Channel.unpartitioned)
        try consumer.consume(queue: BatonTopology.resultsQueue, channel: Channel.unpartitioned)
        try consumer.openChannel(Channel.registry)
        try consumer.setPrefetch(100, channel: Channel.registry)
        try consumer.consume(queue: BatonTopology.heartbeatsQueue, channel: Channel.registry)
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

    public func publishTask(
        pool: String, procedure: String, body: [UInt8], priority: UInt8, queuedAt: Date?, traceparent: String?
    ) throws -> UInt64 {
        let publisher = try requirePublisher()
        let routingKey = BatonTopology.routingKey(pool: pool, procedure: procedure, priority: Int(priority), queueType: queueType)
        if !declaredQueues.contains(routingKey) {
            try BatonTopology.declareTaskQueues(pool: pool, procedure: procedure, on: publisher, queueType: queueType)
            for band in queueType.bands { declaredQueues.insert(band.routingKey(pool: pool, procedure: procedure)) }
        }
        var headers: [String: AMQPFieldValue] = [:]
        if let queuedAt { headers[BatonTopology.queuedAtHeader] = .int(Int64((queuedAt.timeIntervalSince1970 * 1000).rounded())) }
        if let traceparent { headers[BatonTopology.traceparentHeader] = .string(traceparent) }
        lastSequence = try publisher.publish(
            exchange: BatonTopology.tasksExchange, routingKey: routingKey, body: body, persistent: true, priority: priority,
            headers: headers, mandatory: true)
        return lastSequence
    }

    public func publishCancel(body: [UInt8]) throws -> UInt64 {
        lastSequence = try requirePublisher().publish(exchange: BatonTopology.controlExchange, routingKey: "", body: body, persistent: false)
        return lastSequence
    }

    public func forward(_ body: [UInt8], toPartition partition: Int, deadLetter: DeadLetterOrigin?) throws -> UInt64 {
        var headers: [String: AMQPFieldValue] = [:]
        if let deadLetter {
            headers[BatonTopology.deadLetterHeader] = .int(Int64(deadLetter.deliveries))
            if let queue = deadLetter.queue { headers[BatonTopology.deadQueueHeader] = .string(queue) }
        }
        lastSequence = try requirePublisher().publish(
            exchange: BatonTopology.reportsExchange, routingKey: BatonTopology.reportKey(partition: partition), body: body,
            persistent: true, headers: headers)
        return lastSequence
    }

    public func confirmed() throws -> UInt64 { try requirePublisher().readConfirms(timeout: 0) }

    public func waitForConfirms(timeout: Double) throws { try requirePublisher().waitForConfirms(timeout: timeout) }

    public func keepAlive() throws { try publisher?.processIncoming(timeout: 0) }

    public func flow() throws -> BrokerFlow {
        guard let publisher else { return BrokerFlow(blocked: nil, blocks: earlierBlocks) }
        if publisher.blockedReason == nil, ContinuousClock.now - probedAt >= .seconds(Self.probeInterval) {
            probedAt = .now
            // Routed nowhere (no queue is bound with this key), so dropped; but the broker, under an
            // alarm, answers a publishing connection with connection.blocked.
            try publisher.publish(
                exchange: BatonTopology.tasksExchange, routingKey: "baton.flow-probe", body: [], persistent: false, channel: Channel.probe)
        }
        try publisher.processIncoming(timeout: 0)
        return BrokerFlow(blocked: publisher.blockedReason, blocks: earlierBlocks + publisher.blockCount)
    }

    public func receive(timeout: Double, confirmsDue: Bool) throws -> CoordinatorInbound? {
        let consumer = try requireConsumer()
        // While confirms are due, the wait also ends when they arrive on the publisher's socket
        // (over TLS, which cannot be polled that way, it is kept short instead).
        let watching = confirmsDue ? publisher?.socketDescriptor : nil
        let wait = confirmsDue && consumer.url.useTLS ? min(timeout, 0.002) : timeout
        guard let delivery = try consumer.nextDelivery(timeout: wait, watching: watching) else { return nil }
        let receipt = BrokerReceipt(generation: generation, tag: delivery.deliveryTag, channel: delivery.channel)
        switch delivery.channel {
        case Channel.heartbeats:
            return .heartbeat(body: delivery.body, shared: nil)
        case Channel.registry:
            return .heartbeat(body: delivery.body, shared: receipt)
        case Channel.deadLetters:
            // A quorum queue counts returns itself (and dead-letters past its limit): deliveries are one more.
            let counted = delivery.headers[BatonTopology.deliveryCountHeader]?.intValue.map { Int($0) + 1 }
            let deliveries = delivery.headers[BatonTopology.deliveriesHeader]?.intValue.map { Int($0) } ?? counted ?? 1
            let queue = delivery.headers[BatonTopology.firstDeathQueueHeader]?.stringValue
            return .unrouted(body: delivery.body, deadLetter: DeadLetterOrigin(deliveries: deliveries, queue: queue), receipt: receipt)
        case Channel.unpartitioned:
            return .unrouted(body: delivery.body, deadLetter: nil, receipt: receipt)
        default:
            if let deliveries = delivery.headers[BatonTopology.deadLetterHeader]?.intValue {
                let queue = delivery.headers[BatonTopology.deadQueueHeader]?.stringValue
                return .deadLetter(body: delivery.body, deliveries: Int(deliveries), queue: queue, receipt: receipt)
            }
            return .report(body: delivery.body, receipt: receipt)
        }
    }

    public func ack(through receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }
        try requireConsumer().ack(deliveryTag: receipt.tag, multiple: true, channel: receipt.channel)
    }

    public func ack(_ receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }
        try requireConsumer().ack(deliveryTag: receipt.tag, channel: receipt.channel)
    }

    public func reject(_ receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }
        try requireConsumer().reject(deliveryTag: receipt.tag, requeue: false, channel: receipt.channel)
    }

    public func takeReturned() -> [[UInt8]] {
        guard let publisher else { return [] }
        let returned = publisher.takeReturned().filter { $0.exchange == BatonTopology.tasksExchange }
        // No queue was bound: the next publish to it declares it again.
        for message in returned { declaredQueues.remove(message.routingKey) }
        return returned.map(\.body)
    }

    public func taskQueueDepth(pool: String, procedure: String) throws -> Int {
        Int(try BatonTopology.taskQueueDepth(pool: pool, procedure: procedure, on: try requirePublisher(), queueType: queueType))
    }
}
