import Baton
import BatonAMQP
import Foundation
import Logging

/// The consumer thread: takes tasks from the pools' queues (prefetch = slots),
/// starts each as a Swift task, and acks deliveries once their results are confirmed.
final class TaskConsumer: @unchecked Sendable {
    // Safe: `connection` and `generation` are touched only by the consumer thread;
    // `currentGeneration` is read by procedure tasks under `lock`.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private var connection: AMQPConnection?
    private var consumerTags: [String] = []
    private let lock = NSLock()
    private var generation = 0
    private var abandoned = false
    /// Attempts running now, so a control message can cancel them.
    private var running: [TaskKey: Task<Void, Never>] = [:]
    /// Attempts cancelled before they reached this worker: if one arrives, it is not run.
    private var cancelledEarly = RecentKeys(capacity: 10_000)
    private static let controlChannel: UInt16 = 2
    /// Confirmed republishing of redelivered tasks with their delivery count.
    private static let republishChannel: UInt16 = 3
    /// How many times a task has been delivered without a result.
    static let deliveriesHeader = "x-baton-deliveries"

    struct TaskKey: Hashable {
        let runID: String
        let key: String
        let attempt: Int
    }

    static let startedReportDelay: UInt64 = 10_000_000

    init(configuration: WorkerConfiguration, mailbox: WorkerMailbox) {
        self.configuration = configuration
        self.mailbox = mailbox
    }

    /// Consumes until `draining` is set, then stops taking work and returns once
    /// everything taken was reported and acked, or the grace period ran out.
    func run(draining: StopSignal) {
        var backoff = Backoff()
        var drainDeadline: Date?
        while true {
            if draining.isSet && drainDeadline == nil {
                drainDeadline = Date().addingTimeInterval(configuration.shutdownGrace)
                stopConsuming()
            }
            if let deadline = drainDeadline {
                if mailbox.isIdle { break }
                if Date() >= deadline {
                    configuration.logger.warning("shutdown grace period over: handing back \(mailbox.busyCount) task(s)")
                    lock.withLock { abandoned = true }
                    break
                }
            }
            do {
                if connection == nil { try connect(consume: drainDeadline == nil); backoff.reset() }
                try sendAcks()
                let wait = mailbox.hasAcksComing ? 0.005 : 0.05
                guard let delivery = try connection?.nextDelivery(timeout: wait) else { continue }
                if delivery.channel == Self.controlChannel {
                    handleControl(delivery)
                    continue
                }
                if drainDeadline != nil {
                    try connection?.reject(deliveryTag: delivery.deliveryTag, requeue: true, channel: delivery.channel)
                    continue
                }
                try start(delivery)
            } catch {
                let delay = backoff.next()
                configuration.logger.error("worker consumer: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
                connection?.close()
                connection = nil
                draining.wait(delay)
            }
        }
        connection?.close()  // anything unacked goes back to its queue
        connection = nil
    }

    private func connect(consume: Bool) throws {
        let c = try AMQPConnection(url: configuration.amqpURL, connectionName: "baton-worker \(configuration.id)")
        try BatonTopology.declareCommon(on: c)
        for pool in configuration.pools { try BatonTopology.declarePool(pool, on: c) }
        try c.setPrefetch(UInt16(clamping: configuration.concurrency))
        consumerTags = []
        if consume {
            for pool in configuration.pools { consumerTags.append(try c.consume(queue: BatonTopology.taskQueue(pool: pool))) }
        }
        try c.openChannel(Self.republishChannel)
        try c.enableConfirms(channel: Self.republishChannel)
        try c.openChannel(Self.controlChannel)
        let control = try BatonTopology.declareControlQueue(on: c, channel: Self.controlChannel)
        try c.consume(queue: control, noAck: true, channel: Self.controlChannel)
        lock.withLock { generation += 1 }
        connection = c
        configuration.logger.info("worker \(configuration.id) consuming pools \(configuration.pools.joined(separator: ",")) with \(configuration.concurrency) slot(s)")
    }

    private func handleControl(_ delivery: AMQPDelivery) {
        guard let message = try? ControlMessage(decoding: delivery.body) else {
            configuration.logger.warning("ignored a malformed control message")
            return
        }
        let tasks = lock.withLock {
            message.attempts.compactMap { ref -> Task<Void, Never>? in
                let id = TaskKey(runID: message.runID, key: ref.key, attempt: ref.attempt)
                if running[id] == nil { cancelledEarly.insert(id) }
                return running[id]
            }
        }
        for task in tasks { task.cancel() }
        if !tasks.isEmpty { configuration.logger.info("cancelled \(tasks.count) attempt(s) of run \(message.runID)") }
    }

    /// A redelivered task was taken before by a worker that never reported its result: it
    /// may be what killed that worker. Rather than run it now, count the delivery in a header
    /// and send it round again (confirmed, then ack the old copy); past the limit, reject it to
    /// the dead-letter exchange, where the coordinator fails its node. So a task that kills
    /// every worker it reaches is stopped after a bounded number of deliveries.
    private func countRedelivery(_ delivery: AMQPDelivery, _ task: TaskDispatch) throws {
        guard let connection else { return }
        let deliveries = Int(delivery.headers[Self.deliveriesHeader]?.intValue ?? 1) + 1
        if deliveries > configuration.deliveryLimit {
            configuration.logger.error("dead-lettering node \(task.key) attempt \(task.attempt) of run \(task.runID): delivered \(deliveries - 1) times without a result")
            try connection.reject(deliveryTag: delivery.deliveryTag, requeue: false, channel: delivery.channel)
            return
        }
        try connection.publish(exchange: delivery.exchange, routingKey: delivery.routingKey, body: delivery.body, persistent: true,
                               priority: delivery.priority, headers: [Self.deliveriesHeader: .int(Int64(deliveries))],
                               channel: Self.republishChannel)
        try connection.waitForConfirms(channel: Self.republishChannel)
        try connection.ack(deliveryTag: delivery.deliveryTag, channel: delivery.channel)
    }

    private func stopConsuming() {
        for tag in consumerTags { try? connection?.cancelConsumer(tag: tag) }
        consumerTags = []
    }

    private func sendAcks() throws {
        let current = lock.withLock { generation }
        for ack in mailbox.takeAcks() where ack.generation == current {
            try connection?.ack(deliveryTag: ack.deliveryTag)
        }
    }

    private func start(_ delivery: AMQPDelivery) throws {
        let task: TaskDispatch
        do {
            task = try TaskDispatch(decoding: delivery.body)
        } catch {
            configuration.logger.warning("dead-lettering a malformed task: \(error)")
            try connection?.reject(deliveryTag: delivery.deliveryTag, requeue: false, channel: delivery.channel)
            return
        }
        if delivery.redelivered {
            try countRedelivery(delivery, task)
            return
        }
        let ack = PendingAck(generation: lock.withLock { generation }, deliveryTag: delivery.deliveryTag)
        let id = TaskKey(runID: task.runID, key: task.key, attempt: task.attempt)
        if lock.withLock({ cancelledEarly.contains(id) }) {
            // Cancelled while it waited in the queue: report that instead of running it.
            let result = NodeResult(key: task.key, attempt: task.attempt, phase: task.phase,
                                    outcome: .failed(message: "cancelled before it started", permanent: true),
                                    worker: configuration.id, startedAt: Date(), finishedAt: Date())
            mailbox.post(OutgoingReport(body: ReportMessage.finished(runID: task.runID, result: result).encoded(), ack: ack))
            return
        }
        let configuration = self.configuration
        let mailbox = self.mailbox
        mailbox.taskStarted()
        let startedAt = Date()
        let report: @Sendable (ReportMessage) -> Void = { mailbox.post(OutgoingReport(body: $0.encoded(), ack: nil)) }
        // Created with the lock held, so the task cannot unregister itself before it is registered.
        lock.lock()
        defer { lock.unlock() }
        running[id] = Task.detached { [self] in
            // Only an attempt still running after a moment is reported as started; for quick ones the
            // result says when they started, which halves the messages and commits on the hot path.
            let startedReport = Task {
                try await Task.sleep(nanoseconds: Self.startedReportDelay)
                mailbox.post(OutgoingReport(body: ReportMessage.started(runID: task.runID, key: task.key, attempt: task.attempt,
                                                                        worker: configuration.id, at: startedAt).encoded(), ack: nil))
            }
            let throttle = ProgressThrottle()
            let result = await configuration.registry.attempt(
                task, worker: configuration.id, logger: configuration.logger, maxOutputBytes: configuration.maxOutputBytes,
                progress: { fraction, message in
                    if throttle.allow(final: fraction >= 1) {
                        report(.progress(runID: task.runID, key: task.key, attempt: task.attempt, fraction: fraction, message: message))
                    }
                },
                log: { report(.log(runID: task.runID, key: task.key, attempt: task.attempt, message: $0)) })
            startedReport.cancel()
            _ = self.lock.withLock { self.running.removeValue(forKey: id) }
            if !self.lock.withLock({ self.abandoned }) {
                mailbox.post(OutgoingReport(body: ReportMessage.finished(runID: task.runID, result: result).encoded(), ack: ack))
            }
            mailbox.taskEnded()
        }
    }
}

/// A bounded set of task keys that forgets the oldest.
struct RecentKeys {
    private var members = Set<TaskConsumer.TaskKey>()
    private var order: [TaskConsumer.TaskKey] = []
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ key: TaskConsumer.TaskKey) -> Bool { members.contains(key) }

    mutating func insert(_ key: TaskConsumer.TaskKey) {
        guard members.insert(key).inserted else { return }
        order.append(key)
        if order.count > capacity {
            let drop = order.count - capacity
            for old in order.prefix(drop) { members.remove(old) }
            order.removeFirst(drop)
        }
    }
}
