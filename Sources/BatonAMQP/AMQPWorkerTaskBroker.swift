import Foundation

/// A worker's consuming connection over librabbitmq: a channel for tasks, one for cancel signals
/// (a queue of its own, deleted with the connection) and one for confirmed re-publishing.
public final class AMQPWorkerTaskBroker: WorkerTaskBroker, @unchecked Sendable {
    // Safe: used by the worker's consumer thread only (the protocol's contract).
    private let url: String
    private let connectionName: String
    private let heartbeatSeconds: Int
    private var connection: AMQPConnection?
    /// The task queues consumed, by consumer tag.
    private var consumerTags: [String: String] = [:]
    /// Task queues whose consumer the broker cancelled, not yet told to the caller.
    private var cancelledQueues: [String] = []
    private var generation = 0

    private enum Channel {
        static let tasks = BatonTopology.WorkerChannel.tasks
        static let control = BatonTopology.WorkerChannel.control
        static let republish = BatonTopology.WorkerChannel.republish
        static let probe = BatonTopology.WorkerChannel.probe
    }

    public init(url: String, connectionName: String, heartbeatSeconds: Int) {
        self.url = url
        self.connectionName = connectionName
        self.heartbeatSeconds = heartbeatSeconds
    }

    public var needsPolling: Bool { connection?.url.useTLS == true }

    public func connect(pools: [String], procedures: [String], prefetch: Int, consume: Bool) throws {
        close()
        generation += 1
        let c = try AMQPConnection(url: url, heartbeatSeconds: heartbeatSeconds, connectionName: connectionName)
        let queueType = try BatonTopology.queueType(on: c, channel: Channel.tasks)
        try BatonTopology.declareCommon(on: c, channel: Channel.tasks, queueType: queueType)
        var queues: [String] = []
        for pool in pools {
            for procedure in procedures {
                queues += try BatonTopology.declareTaskQueues(
                    pool: pool, procedure: procedure, on: c, channel: Channel.tasks, queueType: queueType)
            }
        }
        if let share = queueType.consumerPrefetch(prefetch, queues: queues.count) {
            try c.setPrefetch(UInt16(clamping: share), shared: false, channel: Channel.tasks)
        } else {
            try c.setPrefetch(UInt16(clamping: prefetch), shared: true, channel: Channel.tasks)
        }
        consumerTags = [:]
        cancelledQueues = []
        if consume {
            // Highest bands first: the first deliveries, which take free slots as they come, are theirs.
            for queue in queues.reversed() { consumerTags[try c.consume(queue: queue, channel: Channel.tasks)] = queue }
        }
        try c.openChannel(Channel.republish)
        try c.enableConfirms(channel: Channel.republish)
        try c.openChannel(Channel.control)
        let control = try BatonTopology.declareControlQueue(on: c, channel: Channel.control)
        try c.consume(queue: control, noAck: true, channel: Channel.control)
        connection = c
    }

    public func stopConsuming() {
        for tag in consumerTags.keys.sorted() { try? connection?.cancelConsumer(tag: tag, channel: Channel.tasks) }
        consumerTags = [:]
    }

    public func close() {
        connection?.close()
        connection = nil
    }

    private func require() throws -> AMQPConnection {
        guard let connection else { throw AMQPError(.connectionLost, "not connected", operation: "consume") }
        return connection
    }

    public func receive(timeout: Double, wakeup: AMQPWakeup?) throws -> WorkerInbound? {
        let c = try require()
        if !cancelledQueues.isEmpty { return .cancelled(queue: cancelledQueues.removeFirst()) }
        let delivery: AMQPDelivery
        do {
            guard let next = try c.nextDelivery(timeout: timeout, wakeup: wakeup) else { return nil }
            delivery = next
        } catch let error as AMQPError where error.kind == .consumerCancelled {
            // A task queue's consumer (its queue was deleted): the others go on. Any other: connect again.
            for tag in c.takeCancelledConsumers() {
                guard let queue = consumerTags.removeValue(forKey: tag) else { throw error }
                cancelledQueues.append(queue)
            }
            guard !cancelledQueues.isEmpty else { return nil }  // told with an earlier one
            return .cancelled(queue: cancelledQueues.removeFirst())
        }
        if delivery.channel == Channel.control { return .control(body: delivery.body) }
        let queuedAt = delivery.headers[BatonTopology.queuedAtHeader]?.intValue.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        // A quorum queue counts the returns itself: this delivery is one more.
        let counted = delivery.headers[BatonTopology.deliveryCountHeader]?.intValue.map { Int($0) + 1 }
        return .task(
            InboundTask(
                body: delivery.body, redelivered: delivery.redelivered,
                deliveries: counted ?? delivery.headers[BatonTopology.deliveriesHeader]?.intValue.map { Int($0) }, queuedAt: queuedAt,
                countedByBroker: counted != nil,
                receipt: BrokerReceipt(generation: generation, tag: delivery.deliveryTag), exchange: delivery.exchange,
                routingKey: delivery.routingKey, priority: delivery.priority, headers: delivery.headers))
    }

    public func resume(queue: String) throws -> Bool {
        let c = try require()
        try c.openChannel(Channel.probe)  // opened again if a missing queue closed it
        do {
            try c.declareQueue(name: queue, passive: true, channel: Channel.probe)
        } catch let error as AMQPError where error.code == .notFound {
            return false
        }
        consumerTags[try c.consume(queue: queue, channel: Channel.tasks)] = queue
        return true
    }

    public func ack(_ receipt: BrokerReceipt) throws {
        guard receipt.generation == generation else { return }  // taken on a lost connection: the broker gives it out again
        try require().ack(deliveryTag: receipt.tag, channel: Channel.tasks)
    }

    public func reject(_ receipt: BrokerReceipt, requeue: Bool) throws {
        guard receipt.generation == generation else { return }
        try require().reject(deliveryTag: receipt.tag, requeue: requeue, channel: Channel.tasks)
    }

    public func republish(_ task: InboundTask, deliveries: Int) throws {
        let c = try require()
        try c.publish(
            exchange: task.exchange, routingKey: task.routingKey, body: task.body, persistent: true, priority: task.priority,
            headers: [BatonTopology.deliveriesHeader: .int(Int64(deliveries))], channel: Channel.republish)
        try c.waitForConfirms(channel: Channel.republish)
        try ack(task.receipt)
    }

    public func deadLetter(_ task: InboundTask, deliveries: Int) throws {
        guard task.countedByBroker else { return try reject(task.receipt, requeue: false) }  // the header carries the count
        // The queue's own count does not go with a rejected message: a copy says it, then the original is acked.
        let c = try require()
        try c.publish(
            exchange: BatonTopology.deadExchange, routingKey: task.routingKey, body: task.body, persistent: true,
            headers: [
                BatonTopology.deliveriesHeader: .int(Int64(deliveries)),
                BatonTopology.firstDeathQueueHeader: .string(BatonTopology.taskQueue(routingKey: task.routingKey)),
            ], channel: Channel.republish)
        try c.waitForConfirms(channel: Channel.republish)
        try ack(task.receipt)
    }

    public func handBack(_ tasks: [InboundTask]) throws {
        let c = try require()
        let mine = tasks.filter { $0.receipt.generation == generation }
        guard !mine.isEmpty else { return }
        do {
            for task in mine {
                // The queue's own count stays with the queue: the copy starts afresh there, as a hand-back is no failure.
                try c.publish(
                    exchange: task.exchange, routingKey: task.routingKey, body: task.body, persistent: true, priority: task.priority,
                    headers: task.headers.filter { $0.key != BatonTopology.deliveryCountHeader }, channel: Channel.republish)
            }
            try c.waitForConfirms(channel: Channel.republish)
            for task in mine { try ack(task.receipt) }
        } catch {
            for task in mine { try? reject(task.receipt, requeue: true) }
            throw error
        }
    }
}
