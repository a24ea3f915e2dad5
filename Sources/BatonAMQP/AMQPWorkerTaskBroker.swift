import BatonSeams
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
    /// Task queues whose consumer the broker cancelled (`basic.cancel`: the queue was deleted), not yet
    /// told to the caller.
    private var cancelledQueues: [String] = []
    private var generation = 0
    /// Task queues to consume that did not exist when last checked (in the order to consume them).
    private var missing: [String] = []
    private var nextProbe = Date.distantPast
    /// Where tasks are published back: `baton.requeue`, or (a broker whose topology is from before
    /// it) the exchange they came from.
    private var requeueExchange: String?
    /// Tasks published again whose originals wait for the copies' confirms (on `Channel.republish`).
    private var copies = CopiesAwaitingConfirm()

    /// How often a missing task queue is checked for.
    static let probeInterval = 1.0

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
        // Declares nothing durable (its user may not): checks on a channel of its own, which a missing
        // queue closes, and consumes the task queues that exist; the others as soon as they do.
        try c.openChannel(Channel.probe)
        let queueType = try BatonTopology.queueType(on: c, channel: Channel.probe)
        try BatonTopology.requireDeclared(exchanges: [BatonTopology.controlExchange], on: c, channel: Channel.probe)
        requeueExchange =
            try BatonTopology.exchangeExists(BatonTopology.requeueExchange, on: c, channel: Channel.probe)
            ? BatonTopology.requeueExchange : nil
        var queues: [String] = []
        for pool in pools {
            for procedure in procedures { queues += queueType.bands.map { $0.queue(pool: pool, procedure: procedure) } }
        }
        try c.openChannel(Channel.tasks)
        if let share = queueType.consumerPrefetch(prefetch, queues: queues.count) {
            try c.setPrefetch(UInt16(clamping: share), shared: false, channel: Channel.tasks)
        } else {
            try c.setPrefetch(UInt16(clamping: prefetch), shared: true, channel: Channel.tasks)
        }
        consumerTags = [:]
        cancelledQueues = []
        missing = []
        connection = c
        if consume {
            // Highest bands first: the first deliveries, which take free slots as they come, are theirs.
            missing = queues.reversed()
            try consumeDeclared()
        }
        try c.openChannel(Channel.republish)
        try c.enableConfirms(channel: Channel.republish)
        try c.openChannel(Channel.control)
        let control = try BatonTopology.declareControlQueue(on: c, channel: Channel.control)
        try c.consume(queue: control, noAck: true, channel: Channel.control)
    }

    public var missingQueues: [String] { missing }

    /// Consumes each task queue still missing that exists now; the others are checked again later.
    private func consumeDeclared() throws {
        let c = try require()
        var still: [String] = []
        for queue in missing {
            if try BatonTopology.queueExists(queue, on: c, channel: Channel.probe) {
                consumerTags[try c.consume(queue: queue, channel: Channel.tasks)] = queue
            } else {
                still.append(queue)
            }
        }
        missing = still
        nextProbe = Date().addingTimeInterval(Self.probeInterval)
    }

    public func stopConsuming() {
        for tag in consumerTags.keys.sorted() { try? connection?.cancelConsumer(tag: tag, channel: Channel.tasks) }
        consumerTags = [:]
        missing = []
    }

    public func close() {
        connection?.close()
        connection = nil
        copies.removeAll()
    }

    private func require() throws -> AMQPConnection {
        guard let connection else { throw AMQPError(.connectionLost, "not connected", operation: "consume") }
        return connection
    }

    public func receive(timeout: Double, wakeup: (any BrokerWakeup)?) throws -> WorkerInbound? {
        if !missing.isEmpty && Date() >= nextProbe { try consumeDeclared() }
        let c = try require()
        if !cancelledQueues.isEmpty { return .cancelled(queue: cancelledQueues.removeFirst()) }
        let delivery: AMQPDelivery
        do {
            guard let next = try c.nextDelivery(timeout: timeout, wakeup: wakeup as? AMQPWakeup) else { return nil }
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
                receipt: BrokerReceipt(generation: generation, tag: delivery.deliveryTag), routingKey: delivery.routingKey,
                priority: delivery.priority, traceparent: delivery.headers[BatonTopology.traceparentHeader]?.stringValue,
                origin: AMQPTaskOrigin(exchange: delivery.exchange, headers: delivery.headers)))
    }

    public func resume(queue: String) throws -> Bool {
        let c = try require()
        guard try BatonTopology.queueExists(queue, on: c, channel: Channel.probe) else { return false }
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
        let sequence = try c.publish(
            exchange: requeueExchange ?? AMQPTaskOrigin.of(task).exchange, routingKey: task.routingKey, body: task.body, persistent: true,
            priority: task.priority, headers: [BatonTopology.deliveriesHeader: .int(Int64(deliveries))], channel: Channel.republish)
        try awaitConfirm(of: task, copy: sequence, on: c)
    }

    /// Acks `task` once its copy, publish `sequence`, is confirmed: waits a moment for it (the usual
    /// case), then leaves it to `settleCopies`. A block of publishers holds the confirm back for as long
    /// as it lasts; closing the connection for it would hand back every task held, each counted.
    private func awaitConfirm(of task: InboundTask, copy sequence: UInt64, on c: AMQPConnection) throws {
        copies.add(task.receipt, copy: sequence)
        try settle(on: c, wait: Self.confirmWait)
    }

    /// How long `republish` and `deadLetter` wait for their copy's confirm before leaving it to later turns.
    static let confirmWait = 0.2

    public func settleCopies() throws {
        guard !copies.isEmpty, let connection else { return }
        try settle(on: connection, wait: 0)
    }

    /// Acks the originals of the copies confirmed so far; then, if some still wait and `wait` is
    /// above zero, waits up to that long for the socket and acks those confirmed by then.
    private func settle(on c: AMQPConnection, wait: Double) throws {
        for original in copies.confirmed(through: try c.readConfirms(channel: Channel.republish, timeout: 0)) { try ack(original) }
        guard wait > 0, !copies.isEmpty else { return }
        for original in copies.confirmed(through: try c.readConfirms(channel: Channel.republish, timeout: wait)) { try ack(original) }
    }

    public func deadLetter(_ task: InboundTask, deliveries: Int) throws {
        guard task.countedByBroker else { return try reject(task.receipt, requeue: false) }  // the header carries the count
        // The queue's own count does not go with a rejected message: a copy says it, then the original is acked.
        let c = try require()
        let sequence = try c.publish(
            exchange: BatonTopology.deadExchange, routingKey: task.routingKey, body: task.body, persistent: true,
            headers: [
                BatonTopology.deliveriesHeader: .int(Int64(deliveries)),
                BatonTopology.firstDeathQueueHeader: .string(BatonTopology.taskQueue(routingKey: task.routingKey)),
            ], channel: Channel.republish)
        try awaitConfirm(of: task, copy: sequence, on: c)
    }

    public func handBack(_ tasks: [InboundTask]) throws {
        let c = try require()
        let mine = tasks.filter { $0.receipt.generation == generation }
        guard !mine.isEmpty else { return }
        do {
            for task in mine {
                // The queue's own count stays with the queue: the copy starts afresh there, as a hand-back is no failure.
                try c.publish(
                    exchange: requeueExchange ?? AMQPTaskOrigin.of(task).exchange, routingKey: task.routingKey, body: task.body, persistent: true,
                    priority: task.priority, headers: AMQPTaskOrigin.of(task).headers.filter { $0.key != BatonTopology.deliveryCountHeader },
                    channel: Channel.republish)
            }
            try c.waitForConfirms(channel: Channel.republish)
            for task in mine { try ack(task.receipt) }
        } catch {
            for task in mine { try? reject(task.receipt, requeue: true) }
            throw error
        }
    }
}
