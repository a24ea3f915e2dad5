import BatonAMQP
import Foundation

/// The coordinator's side of the `MemoryBroker`, as `AMQPCoordinatorBroker` is over RabbitMQ: a
/// publishing connection `<name>-publish` (tasks, cancel signals, forwards; confirmed) and a consuming
/// one `<name>-consume` (the partitions' reports with the prefetch given to `connect`, heartbeats
/// without acks, dead letters and reports without a partition with a prefetch of 100), opened again
/// for each new set of partitions. Task queues are declared on the first publish to them after each
/// connect, of the queue type the store gave `connect` (which marks the broker with it): with quorum
/// queues, a task goes to its priority band's queue. Tasks are published `mandatory`: one no queue
/// is bound for comes back (`takeReturned`), and its queue is declared again on the next publish.
public final class MemoryCoordinatorBroker: CoordinatorBroker, @unchecked Sendable {
    // Safe: used from the simulator's one thread (see MemoryBroker).
    public let broker: MemoryBroker
    public let name: String
    private var publisher: MemoryConnection?
    private var consumer: MemoryConnection?
    private var declaredRoutes: Set<String> = []
    private var generation = 0
    private var prefetch = 1
    private var queueType = QueueType.classic

    private enum Channel {
        static let publish: UInt16 = 1
        static let results = BatonTopology.CoordinatorChannel.results
        static let heartbeats = BatonTopology.CoordinatorChannel.heartbeats
        static let registry = BatonTopology.CoordinatorChannel.registry
        static let deadLetters = BatonTopology.CoordinatorChannel.deadLetters
        static let unpartitioned = BatonTopology.CoordinatorChannel.unpartitioned
    }

    init(broker: MemoryBroker, name: String) {
        self.broker = broker
        self.name = name
    }

    /// The names of its two connections.
    public var publishConnectionName: String { "\(name)-publish" }
    public var consumeConnectionName: String { "\(name)-consume" }

    /// `silence` is not modelled: a paused process keeps its connections open (the harder case).
    public func connect(prefetch: Int, partitions: Int, silence: Double, queueType: QueueType) throws {
        close()
        publisher = try broker.open(name: publishConnectionName, owner: name)
        broker.declarePartitionQueues(partitions)
        broker.mark(queueType)
        self.queueType = queueType
        declaredRoutes = []
        self.prefetch = prefetch
        try consume(partitions: [])
    }

    public func consume(partitions: Set<Int>) throws {
        broker.close(consumer)
        consumer = nil
        generation += 1
        let consumer = try broker.open(name: consumeConnectionName, owner: name)
        consumer.channel(Channel.results).prefetch = Int(UInt16(clamping: prefetch))
        for partition in partitions.sorted() {
            broker.consume(consumer, channel: Channel.results, queue: BatonTopology.resultsQueue(partition: partition))
        }
        broker.declareHeartbeatQueue(consumer, channel: Channel.heartbeats)
        consumer.channel(Channel.deadLetters).prefetch = 100
        broker.consume(consumer, channel: Channel.deadLetters, queue: BatonTopology.deadLettersQueue)
        consumer.channel(Channel.unpartitioned).prefetch = 100
        broker.consume(consumer, channel: Channel.unpartitioned, queue: BatonTopology.resultsQueue)
        consumer.channel(Channel.registry).prefetch = 100
        broker.consume(consumer, channel: Channel.registry, queue: BatonTopology.heartbeatsQueue)
        self.consumer = consumer
    }

    public func close() {
        broker.close(consumer)
        consumer = nil
        broker.close(publisher)
        publisher = nil
    }

    public func publishTask(
        pool: String, procedure: String, body: [UInt8], priority: UInt8, queuedAt: Date?, traceparent: String?
    ) throws -> UInt64 {
        let publisher = try broker.require(publisher, "publish")
        let routingKey = BatonTopology.routingKey(pool: pool, procedure: procedure, priority: Int(priority), queueType: queueType)
        if !declaredRoutes.contains(routingKey) {
            broker.declareTaskQueues(pool: pool, procedure: procedure, queueType: queueType)
            for band in queueType.bands {
                declaredRoutes.insert(BatonTopology.routingKey(pool: pool, procedure: procedure, priority: band.lowest, queueType: queueType))
            }
        }
        let millisecond = queuedAt.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded() / 1000) }
        return try broker.publish(
            publisher, channel: Channel.publish, exchange: BatonTopology.tasksExchange, routingKey: routingKey, body: body,
            persistent: true, priority: priority, queuedAt: millisecond, mandatory: true)
    }

    public func publishCancel(body: [UInt8]) throws -> UInt64 {
        try broker.publish(
            try broker.require(publisher, "publish"), channel: Channel.publish, exchange: BatonTopology.controlExchange, routingKey: "",
            body: body, persistent: false)
    }

    public func forward(_ body: [UInt8], toPartition partition: Int, deadLetter: DeadLetterOrigin?) throws -> UInt64 {
        try broker.publish(
            try broker.require(publisher, "publish"), channel: Channel.publish, exchange: BatonTopology.reportsExchange,
            routingKey: BatonTopology.reportKey(partition: partition), body: body, persistent: true, deliveries: deadLetter?.deliveries,
            deathQueue: deadLetter?.queue)
    }

    public func confirmed() throws -> UInt64 { try broker.confirmed(publisher, channel: Channel.publish) }

    /// The simulator owns time: held confirms time out at once, as a block does (`MemoryBroker.onTimedOutWait`
    /// is told the `timeout`).
    public func waitForConfirms(timeout: Double) throws {
        do {
            try broker.waitForConfirms(publisher, channel: Channel.publish)
        } catch  where BrokerFailure(error) == .timeout {
            broker.onTimedOutWait?(timeout)
            throw error
        }
    }

    public func keepAlive() throws {
        if let publisher { _ = try broker.require(publisher, "keep alive") }
    }

    /// The next message sent to the consuming connection, at once (the simulator owns time:
    /// `timeout` and `confirmsDue` are ignored).
    public func receive(timeout: Double, confirmsDue: Bool) throws -> CoordinatorInbound? {
        guard let inbound = try broker.receive(consumer) else { return nil }
        let receipt = BrokerReceipt(generation: generation, tag: inbound.tag, channel: inbound.channel)
        let message = inbound.message
        switch inbound.channel {
        case Channel.heartbeats:
            return .heartbeat(body: message.body, shared: nil)
        case Channel.registry:
            return .heartbeat(body: message.body, shared: receipt)
        case Channel.deadLetters:
            // As over RabbitMQ: the worker's count if it carries one, else the quorum queue's (one more).
            let deliveries = message.deliveries ?? message.deliveryCount.map { $0 + 1 } ?? 1
            return .unrouted(
                body: message.body, deadLetter: DeadLetterOrigin(deliveries: deliveries, queue: message.deathQueue), receipt: receipt)
        case Channel.unpartitioned:
            return .unrouted(body: message.body, deadLetter: nil, receipt: receipt)
        default:
            if let deliveries = message.deliveries {  // a forwarded dead letter
                return .deadLetter(body: message.body, deliveries: deliveries, queue: message.deathQueue, receipt: receipt)
            }
            return .report(body: message.body, receipt: receipt)
        }
    }

    public func ack(through receipt: BrokerReceipt) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }
        try broker.ack(consumer, channel: receipt.channel, tag: receipt.tag, multiple: true)
    }

    public func ack(_ receipt: BrokerReceipt) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }
        try broker.ack(consumer, channel: receipt.channel, tag: receipt.tag, multiple: false)
    }

    public func reject(_ receipt: BrokerReceipt) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }
        try broker.reject(consumer, channel: receipt.channel, tag: receipt.tag, requeue: false)
    }

    public func flow() throws -> BrokerFlow {
        _ = try broker.require(publisher, "publish")
        return BrokerFlow(blocked: broker.blocksPublishers, blocks: broker.blocks)
    }

    public func takeReturned() -> [[UInt8]] {
        guard let publisher, publisher.usable else { return [] }
        let returned = publisher.returned
        publisher.returned = []
        // No queue was bound: the next publish to it declares it again, as over RabbitMQ.
        for message in returned { declaredRoutes.remove(message.routingKey) }
        return returned.map(\.body)
    }

    public func taskQueueDepth(pool: String, procedure: String) throws -> Int {
        _ = try broker.require(publisher, "queue.declare")
        return broker.depth(pool: pool, procedure: procedure, queueType: queueType)
    }
}
