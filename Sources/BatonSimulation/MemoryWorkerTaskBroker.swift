import Baton
import BatonAMQP

/// A worker's consuming side of the `MemoryBroker`, as `AMQPWorkerTaskBroker` is over RabbitMQ:
/// one connection named `name` with a channel for tasks, one for cancel signals (an exclusive queue
/// of its own, consumed without acks, gone with the connection) and one for confirmed republishing.
/// It reads the queue type from the broker's marker: classic task queues share one prefetch on the
/// channel; quorum ones (a queue per priority band, highest consumed first) each have a share of
/// it, and their redeliveries carry the queue's count (`InboundTask.countedByBroker`).
public final class MemoryWorkerTaskBroker: WorkerTaskBroker, @unchecked Sendable {
    // Safe: used from the simulator's one thread (see MemoryBroker).
    public let broker: MemoryBroker
    public let name: String
    private var connection: MemoryConnection?
    private var generation = 0
    /// Each task queue's own prefetch (quorum queues), as `connect` set it.
    private var share: Int?
    /// Tasks taken on the current connection and not yet done with, in the order taken.
    public private(set) var held: [MemoryHeldTask] = []
    /// Tasks published again whose originals wait for the copies' confirms.
    private var copies = CopiesAwaitingConfirm()

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
        let queueType = broker.queueType
        var queues: [String] = []
        for pool in pools {
            for procedure in procedures { queues += broker.declareTaskQueues(pool: pool, procedure: procedure, queueType: queueType) }
        }
        let share = queueType.consumerPrefetch(prefetch, queues: queues.count).map { Int(UInt16(clamping: $0)) }
        self.share = share
        c.channel(Channel.tasks).prefetch = share == nil ? Int(UInt16(clamping: prefetch)) : 0
        if consume {
            // Quorum: highest bands first, as over RabbitMQ.
            for queue in queueType == .quorum ? queues.reversed() : queues {
                broker.consume(c, channel: Channel.tasks, queue: queue, prefetch: share)
            }
        }
        broker.declareControlQueue(c, channel: Channel.control)
        connection = c
    }

    public func resume(queue: String) throws -> Bool {
        let c = try broker.require(connection, "queue.declare passive")
        guard broker.queueNames.contains(queue) else { return false }
        broker.consume(c, channel: Channel.tasks, queue: queue, prefetch: share)
        broker.dispatch()
        return true
    }

    public func stopConsuming() {
        guard let connection, connection.usable else { return }
        broker.cancelConsumers(connection, channel: Channel.tasks)
    }

    public func close() {
        broker.close(connection)
        connection = nil
        held = []
        copies.removeAll()
    }

    /// The next message sent to this connection, at once (`timeout` and `wakeup` are ignored).
    public func receive(timeout: Double, wakeup: (any BrokerWakeup)?) throws -> WorkerInbound? {
        if let connection, connection.usable, !connection.cancelled.isEmpty {
            return .cancelled(queue: connection.cancelled.removeFirst().queue)
        }
        guard let inbound = try broker.receive(connection) else { return nil }
        let message = inbound.message
        if inbound.channel == Channel.control { return .control(body: message.body) }
        let task = try? TaskDispatch(decoding: message.body)
        held.append(MemoryHeldTask(tag: inbound.tag, message: message, task: task))
        // A quorum queue counts the returns itself: this delivery is one more.
        let counted = message.deliveryCount.map { $0 + 1 }
        return .task(
            InboundTask(
                body: broker.quorumDefects.contains(.invertedPriorities) ? Self.inverted(task) ?? message.body : message.body,
                redelivered: message.redelivered, deliveries: counted ?? message.deliveries, queuedAt: message.queuedAt,
                countedByBroker: counted != nil, receipt: BrokerReceipt(generation: generation, tag: inbound.tag),
                routingKey: message.routingKey, priority: message.priority))
    }

    /// The task with its priority turned around (`MemoryQuorumDefect.invertedPriorities`).
    private static func inverted(_ task: TaskDispatch?) -> [UInt8]? {
        guard let task else { return nil }
        var copy = TaskDispatch(
            runID: task.runID, key: task.key, attempt: task.attempt, procedure: task.procedure, input: task.input, pool: task.pool,
            priority: 9 - task.priority, phase: task.phase, timeout: task.timeout, previousOutput: task.previousOutput)
        copy.partition = task.partition
        return copy.encoded()
    }

    /// The worker started `task`: the oldest held copy of it not started yet, marked started.
    func started(_ task: TaskDispatch) -> MemoryHeldTask? {
        guard let index = held.firstIndex(where: { !$0.started && $0.task.map { Self.same($0, task) } == true }) else { return nil }
        held[index].started = true
        return held[index]
    }

    static func same(_ a: TaskDispatch, _ b: TaskDispatch) -> Bool {
        a.runID == b.runID && a.key == b.key && a.attempt == b.attempt && a.phase == b.phase
    }

    private func release(_ receipt: MemoryReceipt) { held.removeAll { $0.tag == receipt.tag } }

    public func ack(_ receipt: BrokerReceipt) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }  // taken on a lost connection: given out again
        release(receipt)
        try broker.ack(connection, channel: Channel.tasks, tag: receipt.tag, multiple: false)
    }

    public func reject(_ receipt: BrokerReceipt, requeue: Bool) throws {
        let receipt = MemoryReceipt(receipt)
        guard receipt.generation == generation else { return }
        release(receipt)
        try broker.reject(connection, channel: Channel.tasks, tag: receipt.tag, requeue: requeue)
    }

    public func republish(_ task: InboundTask, deliveries: Int) throws {
        let c = try broker.require(connection, "republish")
        let sequence = try broker.publish(
            c, channel: Channel.republish, exchange: BatonTopology.tasksExchange, routingKey: task.route, body: task.body,
            persistent: true, priority: task.taskPriority, deliveries: deliveries)
        try awaitConfirm(of: task, copy: sequence, on: c)
    }

    /// Acks `task` once its copy is confirmed: at once unless the broker blocks publishers (a wait
    /// for a confirm that comes), else at a later `settleCopies`, as the production broker does.
    private func awaitConfirm(of task: InboundTask, copy sequence: UInt64, on c: MemoryConnection) throws {
        copies.add(task.receipt, copy: sequence)
        release(MemoryReceipt(task.receipt))  // published again: no longer a task the worker holds to run
        if broker.blocksPublishers == nil { try broker.waitForConfirms(c, channel: Channel.republish) }
        try settleCopies()
    }

    public func settleCopies() throws {
        guard !copies.isEmpty else { return }
        let through = try broker.confirmed(connection, channel: Channel.republish)
        for original in copies.confirmed(through: through) { try ack(original) }
    }

    /// Classic: the count travels in the header, so the task is rejected. Quorum: the queue's own
    /// count does not go with a rejected message, so a copy says it, then the original is acked.
    public func deadLetter(_ task: InboundTask, deliveries: Int) throws {
        guard task.countedByBroker else { return try reject(task.receipt, requeue: false) }
        let c = try broker.require(connection, "dead-letter")
        if let original = held.first(where: { $0.tag == MemoryReceipt(task.receipt).tag }) { broker.noteDeadLetter(original.message) }
        let sequence = try broker.publish(
            c, channel: Channel.republish, exchange: BatonTopology.deadExchange, routingKey: task.route, body: task.body,
            persistent: true, deliveries: deliveries, deathQueue: BatonTopology.taskQueue(routingKey: task.route))
        try awaitConfirm(of: task, copy: sequence, on: c)
    }

    public func handBack(_ tasks: [InboundTask]) throws {
        let c = try broker.require(connection, "hand back")
        let mine = tasks.filter { MemoryReceipt($0.receipt).generation == generation }
        guard !mine.isEmpty else { return }
        do {
            for task in mine {
                // The queue's own count stays with the queue: the copy starts afresh there (a hand-back is no failure).
                let carried = task.countedByBroker ? held.first { $0.tag == MemoryReceipt(task.receipt).tag }?.message.deliveries : task.deliveries
                _ = try broker.publish(
                    c, channel: Channel.republish, exchange: BatonTopology.tasksExchange, routingKey: task.route, body: task.body,
                    persistent: true, priority: task.taskPriority, deliveries: carried, queuedAt: task.queuedAt)
            }
            try broker.waitForConfirms(c, channel: Channel.republish)
            for task in mine { try ack(task.receipt) }
        } catch {
            for task in mine { try? reject(task.receipt, requeue: true) }
            throw error
        }
    }
}
