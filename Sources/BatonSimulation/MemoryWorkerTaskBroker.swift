import BatonAMQP

/// A worker's consuming side of the `MemoryBroker`, as `AMQPWorkerTaskBroker` is over RabbitMQ:
/// one connection named `name` with a channel for tasks (one prefetch shared by every task queue),
/// one for cancel signals (an exclusive queue of its own, consumed without acks, gone with the
/// connection) and one for confirmed republishing.
public final class MemoryWorkerTaskBroker: WorkerTaskBroker, @unchecked Sendable {
    // Safe: used from the simulator's one thread (see MemoryBroker).
    public let broker: MemoryBroker
    public let name: String
    private var connection: MemoryConnection?
    private var generation = 0

    private enum Channel {
        static let tasks = BatonTopology.WorkerChannel.tasks
        static let control = BatonTopology.WorkerChannel.control
        static let republish = BatonTopology.WorkerChannel.republish
    }

    init(broker: MemoryBroker, name: String) {
        self.broker = broker
        self.name = name
    }

    /// Never: the simulator never waits in `receive`.
    public var needsPolling: Bool { false }

    public func connect(pools: [String], procedures: [String], prefetch: Int, consume: Bool) throws {
        close()
        generation += 1
        let c = try broker.open(name: name, owner: name)
        var queues: [String] = []
        for pool in pools {
            for procedure in procedures { queues.append(broker.declareTaskQueue(pool: pool, procedure: procedure)) }
        }
        c.channel(Channel.tasks).prefetch = Int(UInt16(clamping: prefetch))
        if consume {
            for queue in queues { broker.consume(c, channel: Channel.tasks, queue: queue) }
        }
        broker.declareControlQueue(c, channel: Channel.control)
        connection = c
    }

    public func stopConsuming() {
        guard let connection, connection.alive else { return }
        broker.cancelConsumers(connection, channel: Channel.tasks)
    }

    public func close() {
        broker.close(connection)
        connection = nil
    }

    /// The next message sent to this connection, at once (`timeout` and `wakeup` are ignored).
    public func receive(timeout: Double, wakeup: AMQPWakeup?) throws -> WorkerInbound? {
        guard let inbound = try broker.receive(connection) else { return nil }
        let message = inbound.message
        if inbound.channel == Channel.control { return .control(body: message.body) }
        return .task(
            InboundTask(
                body: message.body, redelivered: message.redelivered, deliveries: message.deliveries, queuedAt: message.queuedAt,
                receipt: BrokerReceipt(generation: generation, tag: inbound.tag), routingKey: message.routingKey,
                priority: message.priority))
    }

    public func ack(_ receipt: BrokerReceipt) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }  // taken on a lost connection: given out again
        try broker.ack(connection, channel: Channel.tasks, tag: receipt.tag, multiple: false)
    }

    public func reject(_ receipt: BrokerReceipt, requeue: Bool) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }
        try broker.reject(connection, channel: Channel.tasks, tag: receipt.tag, requeue: requeue)
    }

    public func republish(_ task: InboundTask, deliveries: Int) throws {
        let c = try broker.require(connection, "republish")
        _ = try broker.publish(
            c, channel: Channel.republish, exchange: BatonTopology.tasksExchange, routingKey: task.route, body: task.body,
            persistent: true, priority: task.taskPriority, deliveries: deliveries)
        try broker.waitForConfirms(c, channel: Channel.republish)
        try ack(task.receipt)
    }

    /// The twin's queues are classic: the count travels in the header, so the task is rejected.
    public func deadLetter(_ task: InboundTask, deliveries: Int) throws {
        try reject(task.receipt, requeue: false)
    }

    public func handBack(_ tasks: [InboundTask]) throws {
        let c = try broker.require(connection, "hand back")
        let mine = tasks.filter { MemoryReceipt($0.receipt).generation == generation }
        guard !mine.isEmpty else { return }
        do {
            for task in mine {
                _ = try broker.publish(
                    c, channel: Channel.republish, exchange: BatonTopology.tasksExchange, routingKey: task.route, body: task.body,
                    persistent: true, priority: task.taskPriority, deliveries: task.deliveries, queuedAt: task.queuedAt)
            }
            try broker.waitForConfirms(c, channel: Channel.republish)
            for task in mine { try ack(task.receipt) }
        } catch {
            for task in mine { try? reject(task.receipt, requeue: true) }
            throw error
        }
    }
}
