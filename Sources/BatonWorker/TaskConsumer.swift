import Baton
import BatonAMQP
import Foundation
import Logging

/// The consumer thread: takes tasks from the queues of the procedures this worker serves
/// (up to the prefetch count, shared by all of them), starts each in a free slot as a Swift
/// task or keeps it waiting for one in a `SlotQueue`, and acks deliveries as soon as the
/// publisher says their results are confirmed (it wakes this thread through the mailbox).
/// What to do with each delivery is `TaskIntake`'s decision.
final class TaskConsumer: @unchecked Sendable {
    // Safe: `connection`, `consumerTags` and `intake` are touched only by the consumer thread;
    // `generation`, `abandoned`, `running` and `slots` are shared with procedure tasks under `lock`.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private var connection: AMQPConnection?
    private var consumerTags: [String] = []
    private var intake: TaskIntake
    private let lock = NSLock()
    private var generation = 0
    private var abandoned = false
    /// Attempts running now, so a control message can cancel them.
    private var running: [AttemptID: Task<Void, Never>] = [:]
    /// Slots, and the tasks taken from the broker that wait for one.
    private var slots: SlotQueue<LocalTask>

    /// A task taken from the broker, with the delivery to ack once its result is confirmed.
    struct LocalTask: Sendable {
        let task: TaskDispatch
        let ack: DeliveryAck
        /// The message as delivered, to hand it back unchanged (nil for one that is not waiting).
        var delivery: AMQPDelivery? = nil
        /// When the coordinator published it (read only with metrics on).
        var queuedAt: Date? = nil
    }

    static let startedReportDelay: UInt64 = 10_000_000

    init(configuration: WorkerConfiguration, mailbox: WorkerMailbox) {
        self.configuration = configuration
        self.mailbox = mailbox
        intake = TaskIntake(deliveryLimit: configuration.deliveryLimit)
        slots = SlotQueue(slots: configuration.concurrency)
    }

    /// Consumes until `draining` is set, then stops taking work and returns once
    /// everything taken was reported and acked, or the grace period ran out.
    func run(draining: StopSignal) {
        var backoff = Backoff()
        let health = configuration.health
        var lastBeat = Date.distantPast
        while true {
            // The health beat is throttled to once a second: a lock per delivery would be on the hot path.
            if Date().timeIntervalSince(lastBeat) >= 1 {
                lastBeat = Date()
                health.beat(now: lastBeat)
            }
            if draining.isSet && !intake.isDraining {
                health.set(role: .draining)
                intake.startDraining(now: Date(), grace: configuration.shutdownGrace)
                stopConsuming()
                handBackWaiting()
            }
            switch intake.drainStep(now: Date(), idle: mailbox.isIdle) {
            case .keepGoing: break
            case .stop:
                connection?.close()
                connection = nil
                return
            case .abandon:
                configuration.logger.warning("shutdown grace period over: handing back \(mailbox.busyCount) task(s)")
                lock.withLock { abandoned = true }
                connection?.close()  // anything unacked goes back to its queue
                connection = nil
                return
            }
            do {
                if connection == nil { try connect(consume: !intake.isDraining); backoff.reset() }
                try sendAcks()
                // The publisher wakes this wait when acks are due; over TLS it cannot, so poll often then.
                let wait = mailbox.hasAcksComing && connection?.url.useTLS == true ? 0.005 : 0.05
                guard let delivery = try connection?.nextDelivery(timeout: wait, wakeup: mailbox.consumerWakeup) else { continue }
                if delivery.channel == BatonTopology.WorkerChannel.control {
                    handleControl(delivery)
                } else {
                    try handleTask(delivery)
                }
            } catch {
                let delay = backoff.delay(after: error)
                configuration.logger.error("worker consumer: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
                connection?.close()
                connection = nil
                health.set("rabbitmq", connected: false)
                if !intake.isDraining { health.set(role: .starting) }
                health.beat(quietFor: delay)
                lastBeat = Date()
                draining.wait(delay)
            }
        }
    }

    private func connect(consume: Bool) throws {
        // The broker drops a frozen worker's connection after about twice this, and tasks waiting
        // in it for a slot go back to the queue (the coordinator's lease covers those running).
        let heartbeat = min(30, max(1, Int(configuration.heartbeatInterval.rounded(.up))))
        let c = try AMQPConnection(
            url: configuration.amqpURL, heartbeatSeconds: heartbeat, connectionName: "baton-worker \(configuration.id)")
        let tasks = BatonTopology.WorkerChannel.tasks
        try BatonTopology.declareCommon(on: c, channel: tasks)
        // One queue per pool and procedure served; the prefetch is shared by all of them.
        var queues: [String] = []
        for pool in configuration.pools {
            for procedure in configuration.registry.names {
                queues.append(try BatonTopology.declareTaskQueue(pool: pool, procedure: procedure, on: c, channel: tasks))
            }
        }
        try c.setPrefetch(UInt16(clamping: configuration.prefetch), shared: true, channel: tasks)
        consumerTags = []
        if consume {
            for queue in queues { consumerTags.append(try c.consume(queue: queue, channel: tasks)) }
        }
        try c.openChannel(BatonTopology.WorkerChannel.republish)
        try c.enableConfirms(channel: BatonTopology.WorkerChannel.republish)
        try c.openChannel(BatonTopology.WorkerChannel.control)
        let control = try BatonTopology.declareControlQueue(on: c, channel: BatonTopology.WorkerChannel.control)
        try c.consume(queue: control, noAck: true, channel: BatonTopology.WorkerChannel.control)
        let stale = lock.withLock {
            generation += 1
            // Tasks that waited for a slot came on the old connection: the broker gives them out again.
            return slots.removeWaiting { $0.ack.generation != generation }.count
        }
        if stale > 0 { configuration.logger.info("dropped \(stale) waiting task(s) taken on a lost connection") }
        connection = c
        configuration.health.set("rabbitmq", connected: true)
        if consume { configuration.health.set(role: .serving) }
        configuration.logger.info(
            "worker \(configuration.id) consuming \(configuration.registry.names.count) procedure(s) in pool(s) \(configuration.pools.joined(separator: ",")) with \(configuration.concurrency) slot(s), prefetch \(configuration.prefetch)"
        )
    }

    private func handleControl(_ delivery: AMQPDelivery) {
        let message: ControlMessage
        do { message = try ControlMessage(decoding: delivery.body) } catch {
            configuration.logger.warning("ignored a control message: \(error)")
            return
        }
        let (tasks, waiting): ([Task<Void, Never>], [LocalTask]) = lock.withLock {
            let here = Set(running.keys).union(slots.waiting.map { AttemptID($0.task) })
            let cancel = Set(intake.control(message, running: here))
            return (cancel.compactMap { running[$0] }, slots.removeWaiting { cancel.contains(AttemptID($0.task)) })
        }
        for task in tasks { task.cancel() }
        for local in waiting { postCancelled(local) }
        let count = tasks.count + waiting.count
        if count > 0 { configuration.logger.info("cancelled \(count) attempt(s) of run \(message.runID)") }
    }

    private func handleTask(_ delivery: AMQPDelivery) throws {
        guard let connection else { return }
        let deliveries = delivery.headers[BatonTopology.deliveriesHeader]?.intValue.map { Int($0) }
        switch intake.delivery(body: delivery.body, redelivered: delivery.redelivered, deliveries: deliveries) {
        case let .run(task):
            // The coordinator's stamp is read only with metrics on: the header lookup costs a dictionary probe.
            let queuedAt = configuration.metrics == nil ? nil : delivery.headers[BatonTopology.queuedAtHeader]?.intValue
            let local: LocalTask? = lock.withLock {
                slots.arrived(
                    LocalTask(
                        task: task, ack: DeliveryAck(generation: generation, deliveryTag: delivery.deliveryTag), delivery: delivery,
                        queuedAt: queuedAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }))
            }
            if let local { start(local) }
        case let .reportCancelled(task):
            postCancelled(LocalTask(task: task, ack: DeliveryAck(generation: lock.withLock { generation }, deliveryTag: delivery.deliveryTag)))
        case let .dropSuperseded(task):
            configuration.logger.debug("dropped node \(task.key) attempt \(task.attempt) of run \(task.runID): a newer attempt exists")
            try connection.ack(deliveryTag: delivery.deliveryTag, channel: delivery.channel)
        case let .republish(_, count):
            configuration.metrics?.redelivered()
            // A redelivered task was taken before by a worker that never reported its result: it
            // may be what killed that worker. Count the delivery and send it round again (confirmed,
            // then ack the old copy), so a task that kills every worker it reaches is stopped.
            try connection.publish(
                exchange: delivery.exchange, routingKey: delivery.routingKey, body: delivery.body, persistent: true,
                priority: delivery.priority, headers: [BatonTopology.deliveriesHeader: .int(Int64(count))],
                channel: BatonTopology.WorkerChannel.republish)
            try connection.waitForConfirms(channel: BatonTopology.WorkerChannel.republish)
            try connection.ack(deliveryTag: delivery.deliveryTag, channel: delivery.channel)
        case let .deadLetter(task, count):
            configuration.metrics?.deadLettered(malformed: false)
            configuration.logger.error(
                "dead-lettering node \(task.key) attempt \(task.attempt) of run \(task.runID): delivered \(count) times without a result")
            try connection.reject(deliveryTag: delivery.deliveryTag, requeue: false, channel: delivery.channel)
        case let .rejectMalformed(reason):
            configuration.metrics?.deadLettered(malformed: true)
            configuration.logger.warning("dead-lettering a malformed task: \(reason)")
            try connection.reject(deliveryTag: delivery.deliveryTag, requeue: false, channel: delivery.channel)
        case .handBack:
            try connection.reject(deliveryTag: delivery.deliveryTag, requeue: true, channel: delivery.channel)
        }
    }

    /// Reports a task cancelled before it started; its delivery is acked with the report.
    private func postCancelled(_ local: LocalTask) {
        let task = local.task
        let result = AttemptResult<EncodedJSON>(
            key: task.key, attempt: task.attempt, phase: task.phase,
            outcome: .failed(message: "cancelled before it started", permanent: true),
            worker: configuration.id, startedAt: Date(), finishedAt: Date())
        mailbox.post(OutgoingReport(body: ReportMessage.result(runID: task.runID, result).encoded(), ack: local.ack))
    }

    /// Draining: tasks still waiting for a slot go back to their queues at once. They never ran, so
    /// they are published again as they came (confirmed, then the copies taken are acked) rather than
    /// rejected: a rejected task comes back marked redelivered and would count a delivery towards
    /// `--delivery-limit`, so a task that several stopping workers had waiting could be dead-lettered
    /// without ever running. If that fails, they are rejected (or go back with the connection).
    private func handBackWaiting() {
        let (current, waiting) = lock.withLock { (generation, slots.removeWaiting { _ in true }) }
        let mine = waiting.filter { $0.ack.generation == current }
        guard let connection, !mine.isEmpty else { return }
        do {
            for local in mine {
                guard let d = local.delivery else { continue }
                try connection.publish(
                    exchange: d.exchange, routingKey: d.routingKey, body: d.body, persistent: true, priority: d.priority,
                    headers: d.headers, channel: BatonTopology.WorkerChannel.republish)
            }
            try connection.waitForConfirms(channel: BatonTopology.WorkerChannel.republish)
            for local in mine where local.delivery != nil {
                try connection.ack(deliveryTag: local.ack.deliveryTag, channel: BatonTopology.WorkerChannel.tasks)
            }
        } catch {
            configuration.logger.warning("handing back \(mine.count) waiting task(s) by publishing them again failed (\(error)); rejecting them")
            for local in mine {
                try? connection.reject(deliveryTag: local.ack.deliveryTag, requeue: true, channel: BatonTopology.WorkerChannel.tasks)
            }
        }
    }

    private func stopConsuming() {
        for tag in consumerTags { try? connection?.cancelConsumer(tag: tag, channel: BatonTopology.WorkerChannel.tasks) }
        consumerTags = []
    }

    private func sendAcks() throws {
        let current = lock.withLock { generation }
        for ack in mailbox.takeAcks() where ack.generation == current {
            try connection?.ack(deliveryTag: ack.deliveryTag, channel: BatonTopology.WorkerChannel.tasks)
        }
    }

    /// Runs a task in the slot it holds. Its result is posted as soon as it is known (a timeout
    /// when it fires); the slot passes to the next waiting task (one taken on the current
    /// connection) only when the procedure's body has returned, before the result is even
    /// confirmed. A timed-out procedure that ignores cancellation keeps its slot until it returns,
    /// so a worker never runs more procedures than it has slots.
    private func start(_ local: LocalTask) {
        let task = local.task
        let ack = local.ack
        let configuration = self.configuration
        let mailbox = self.mailbox
        let id = AttemptID(task)
        mailbox.taskStarted()
        let startedAt = Date()
        if let metrics = configuration.metrics, let queuedAt = local.queuedAt {
            metrics.started(pool: task.pool, queuedFor: startedAt.timeIntervalSince(queuedAt))
        }
        let report: @Sendable (ReportMessage) -> Void = { mailbox.post(OutgoingReport(body: $0.encoded(), ack: nil)) }
        // Created with the lock held, so the task cannot unregister itself before it is registered.
        lock.lock()
        defer { lock.unlock() }
        running[id] = Task.detached { [self] in
            // Only an attempt still running after a moment is reported as started; for quick ones the
            // result says when they started, which halves the messages and commits on the hot path.
            let startedReport = Task {
                try await Task.sleep(nanoseconds: Self.startedReportDelay)
                report(.started(runID: task.runID, key: task.key, attempt: task.attempt, worker: configuration.id, at: startedAt))
            }
            let throttle = ProgressThrottle()
            await configuration.registry.runAttempt(
                task, worker: configuration.id, logger: configuration.logger, maxOutputBytes: configuration.maxOutputBytes,
                progress: { fraction, message in
                    if throttle.allow(final: fraction >= 1) {
                        report(.progress(runID: task.runID, key: task.key, attempt: task.attempt, fraction: fraction, message: message))
                    }
                },
                log: { report(.log(runID: task.runID, key: task.key, attempt: task.attempt, message: $0)) },
                report: { result in
                    startedReport.cancel()
                    if let metrics = configuration.metrics, let began = result.startedAt, let ended = result.finishedAt {
                        metrics.procedureFinished(task.procedure, seconds: ended.timeIntervalSince(began))
                    }
                    if !self.lock.withLock({ self.abandoned }) {
                        mailbox.post(OutgoingReport(body: ReportMessage.result(runID: task.runID, result).encoded(), ack: ack))
                    }
                })
            // The procedure's body has returned (after its result was posted): only now is its slot free.
            let next: LocalTask? = self.lock.withLock {
                self.running.removeValue(forKey: id)
                var next = self.slots.slotFreed()
                while let candidate = next, candidate.ack.generation != self.generation || self.abandoned {
                    next = self.slots.slotFreed()
                }
                return next
            }
            mailbox.taskEnded()
            if let next { self.start(next) }
        }
    }
}
