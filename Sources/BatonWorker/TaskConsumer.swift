import Baton
import BatonAMQP
import Foundation
import Logging

/// The consumer thread: takes tasks from the queues of the procedures this worker serves
/// (up to the prefetch count, shared by all of them), starts each in a free slot through the
/// `AttemptExecutor` or keeps it waiting for one in a `SlotQueue`, and acks deliveries as soon as
/// the publisher says their results are confirmed (it wakes this thread through the mailbox).
/// What to do with each delivery is `TaskIntake`'s decision; the broker is behind `WorkerTaskBroker`.
final class TaskConsumer: @unchecked Sendable {
    // Safe: `broker`, `connected`, `intake` and the drain state are touched only by the consumer
    // thread; `generation`, `abandoned`, `running` and `slots` are shared with attempts under `lock`.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private let broker: any WorkerTaskBroker
    private var connected = false
    private var intake: TaskIntake
    private let lock = NSLock()
    private var generation = 0
    private var abandoned = false
    /// Attempts running now, so a control message can cancel them.
    private var running: [AttemptID: AttemptHandle] = [:]
    /// Slots, and the tasks taken from the broker that wait for one.
    private var slots: SlotQueue<LocalTask>
    private lazy var backoff = Backoff(random: configuration.random)
    private var lastBeat = Date.distantPast
    /// Task queues whose consumer the broker cancelled (deleted under this worker), to consume again.
    private var lostQueues = LostQueues()
    /// Not before this time does a step try to connect again (a back-off after an error).
    private var retryAt = Date.distantPast

    /// A task taken from the broker, with the delivery to ack once its result is confirmed.
    struct LocalTask: Sendable {
        let task: TaskDispatch
        let ack: DeliveryAck
        /// The message as delivered, to hand it back unchanged (nil for one that is not waiting).
        var delivery: InboundTask? = nil
        /// When the coordinator published it (read only with metrics on).
        var queuedAt: Date? = nil
    }

    init(configuration: WorkerConfiguration, mailbox: WorkerMailbox) {
        self.configuration = configuration
        self.mailbox = mailbox
        broker = configuration.makeTaskBroker()
        intake = TaskIntake(deliveryLimit: configuration.deliveryLimit)
        slots = SlotQueue(slots: configuration.concurrency) { $0.task.priority }
    }

    private func now() -> Date { configuration.clock() }

    /// The attempts this worker holds on its current connection: running, or waiting for a slot
    /// (a heartbeat lists them, so the coordinator does not take a prefetched task for lost).
    func holding() -> [HeldAttempt] {
        lock.withLock {
            let waiting = slots.waiting.filter { $0.ack.generation == generation }.map { AttemptID($0.task) }
            return (Array(running.keys) + waiting).prefix(WorkerHeartbeat.holdingLimit).map {
                HeldAttempt(runID: $0.runID, key: $0.key, attempt: $0.attempt)
            }
        }
    }

    /// Consumes until `draining` is set, then stops taking work and returns once
    /// everything taken was reported and acked, or the grace period ran out.
    func run(draining: StopSignal) {
        while step(draining: draining) {
            let wait = retryAt.timeIntervalSince(now())
            if wait > 0 { _ = configuration.pause(wait, draining) }
        }
    }

    /// One turn: drain decisions, (re)connect, send due acks, take one message. Returns false once
    /// the consumer is done (drained or abandoned). The simulator calls it directly.
    func step(draining: StopSignal, wait: Double? = nil) -> Bool {
        let health = configuration.health
        // The health beat is throttled to once a second: a lock per delivery would be on the hot path.
        if now().timeIntervalSince(lastBeat) >= 1 {
            lastBeat = now()
            health.beat(now: lastBeat)
        }
        if draining.isSet && !intake.isDraining {
            health.set(role: .draining)
            intake.startDraining(now: now(), grace: configuration.shutdownGrace)
            broker.stopConsuming()
            handBackWaiting()
        }
        switch intake.drainStep(now: now(), idle: mailbox.isIdle) {
        case .keepGoing: break
        case .stop:
            broker.close()
            connected = false
            return false
        case .abandon:
            configuration.logger.warning("shutdown grace period over: handing back \(mailbox.busyCount) task(s)")
            lock.withLock { abandoned = true }
            broker.close()  // anything unacked goes back to its queue
            connected = false
            return false
        }
        guard now() >= retryAt else { return true }
        do {
            if !connected { try connect(consume: !intake.isDraining); backoff.reset() }
            try sendAcks()
            // Tasks published again are acked once their copies are confirmed, which a block of
            // publishers delays: waited for here, turn after turn, never by closing the connection.
            try broker.settleCopies()
            if !lostQueues.isEmpty && !intake.isDraining { try resumeLostQueues() }
            // The publisher wakes this wait when acks are due; over TLS it cannot, so poll often then.
            let timeout = wait ?? (mailbox.hasAcksComing && broker.needsPolling ? 0.005 : 0.05)
            guard let message = try broker.receive(timeout: timeout, wakeup: mailbox.consumerWakeup) else { return true }
            switch message {
            case let .control(body): handleControl(body)
            case let .task(task): try handleTask(task)
            case let .cancelled(queue):
                if lostQueues.cancelled(queue, now: now()) {
                    configuration.logger.warning(
                        "task queue \(queue) was deleted under this worker (basic.cancel): consuming it again once it exists; the other queues go on")
                }
            }
        } catch {
            let delay = backoff.delay(after: error)
            configuration.logger.error("worker consumer: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
            broker.close()
            connected = false
            health.set("rabbitmq", connected: false)
            if !intake.isDraining { health.set(role: .starting) }
            health.beat(quietFor: delay)
            lastBeat = now()
            retryAt = now().addingTimeInterval(delay)
        }
        return true
    }

    /// The process dies: the connection closes and nothing more is reported.
    func crash() {
        lock.withLock { abandoned = true }
        broker.close()
        connected = false
    }

    /// Looks again, for each lost queue due, whether it exists, and consumes it if so.
    private func resumeLostQueues() throws {
        for queue in lostQueues.due(now: now()) {
            if try broker.resume(queue: queue) {
                lostQueues.resumed(queue)
                configuration.logger.info("task queue \(queue) exists again: consuming it")
            } else {
                lostQueues.stillMissing(queue, now: now())
            }
        }
    }

    private func connect(consume: Bool) throws {
        lostQueues.reset()
        try broker.connect(
            pools: configuration.pools, procedures: configuration.registry.names, prefetch: configuration.prefetch, consume: consume)
        let stale = lock.withLock {
            generation += 1
            // Tasks that waited for a slot came on the old connection: the broker gives them out again.
            return slots.removeWaiting { $0.ack.generation != generation }.count
        }
        if stale > 0 { configuration.logger.info("dropped \(stale) waiting task(s) taken on a lost connection") }
        let missing = broker.missingQueues
        if !missing.isEmpty {
            configuration.logger.notice(
                "\(missing.count) task queue(s) not declared yet (\(missing.prefix(3).joined(separator: ", "))\(missing.count > 3 ? ", …" : "")): the coordinator declares a queue before its first task to it; consuming each as soon as it exists"
            )
        }
        connected = true
        configuration.health.set("rabbitmq", connected: true)
        if consume { configuration.health.set(role: .serving) }
        configuration.logger.info(
            "worker \(configuration.id) consuming \(configuration.registry.names.count) procedure(s) in pool(s) \(configuration.pools.joined(separator: ",")) with \(configuration.concurrency) slot(s), prefetch \(configuration.prefetch)"
        )
    }

    private func handleControl(_ body: [UInt8]) {
        let message: ControlMessage
        do { message = try ControlMessage(decoding: body) } catch {
            configuration.logger.warning("ignored a control message: \(error)")
            return
        }
        let (handles, waiting): ([AttemptHandle], [LocalTask]) = lock.withLock {
            let here = Set(running.keys).union(slots.waiting.map { AttemptID($0.task) })
            let cancel = Set(intake.control(message, running: here))
            return (cancel.compactMap { running[$0] }, slots.removeWaiting { cancel.contains(AttemptID($0.task)) })
        }
        for handle in handles { handle.cancel() }
        for local in waiting { postCancelled(local) }
        let count = handles.count + waiting.count
        if count > 0 { configuration.logger.info("cancelled \(count) attempt(s) of run \(message.runID)") }
    }

    private func handleTask(_ delivery: InboundTask) throws {
        switch intake.delivery(
            body: delivery.body, redelivered: delivery.redelivered, deliveries: delivery.deliveries,
            countedByBroker: delivery.countedByBroker)
        {
        case var .run(task):
            if configuration.tracer != nil { task.traceparent = delivery.traceparent }
            let local: LocalTask? = lock.withLock {
                slots.arrived(
                    LocalTask(
                        task: task, ack: DeliveryAck(generation: generation, receipt: delivery.receipt), delivery: delivery,
                        queuedAt: configuration.metrics == nil ? nil : delivery.queuedAt))
            }
            if let local { start(local) }
        case let .reportCancelled(task):
            postCancelled(LocalTask(task: task, ack: DeliveryAck(generation: lock.withLock { generation }, receipt: delivery.receipt)))
        case let .dropSuperseded(task):
            configuration.logger.debug("dropped node \(task.key) attempt \(task.attempt) of run \(task.runID): a newer attempt exists")
            try broker.ack(delivery.receipt)
        case let .republish(_, count):
            configuration.metrics?.redelivered()
            // A redelivered task was taken before by a worker that never reported its result: it
            // may be what killed that worker. Count the delivery and send it round again (confirmed,
            // then ack the old copy), so a task that kills every worker it reaches is stopped.
            try broker.republish(delivery, deliveries: count)
        case let .deadLetter(task, count):
            configuration.metrics?.deadLettered(malformed: false)
            configuration.logger.error(
                "dead-lettering node \(task.key) attempt \(task.attempt) of run \(task.runID): delivered \(count) times without a result")
            try broker.deadLetter(delivery, deliveries: count)
        case let .rejectMalformed(reason):
            configuration.metrics?.deadLettered(malformed: true)
            configuration.logger.warning("dead-lettering a malformed task: \(reason)")
            try broker.reject(delivery.receipt, requeue: false)
        case .handBack:
            try broker.reject(delivery.receipt, requeue: true)
        }
    }

    /// Reports a task cancelled before it started; its delivery is acked with the report.
    private func postCancelled(_ local: LocalTask) {
        let task = local.task
        let result = AttemptResult<EncodedJSON>(
            key: task.key, attempt: task.attempt, phase: task.phase,
            outcome: .failed(message: "cancelled before it started", permanent: true),
            worker: configuration.id, startedAt: now(), finishedAt: now())
        mailbox.post(
            OutgoingReport(body: ReportMessage.result(runID: task.runID, result).echoing(task).encoded(), ack: local.ack, partition: task.partition))
    }

    /// Draining: tasks still waiting for a slot go back to their queues at once. They never ran, so
    /// they are published again as they came (confirmed, then the copies taken are acked) rather than
    /// rejected: a rejected task comes back marked redelivered and would count a delivery towards
    /// `--delivery-limit`, so a task that several stopping workers had waiting could be dead-lettered
    /// without ever running. If that fails, they are rejected (or go back with the connection).
    private func handBackWaiting() {
        let (current, waiting) = lock.withLock { (generation, slots.removeWaiting { _ in true }) }
        let mine = waiting.filter { $0.ack.generation == current }.compactMap(\.delivery)
        guard connected, !mine.isEmpty else { return }
        do { try broker.handBack(mine) } catch {
            configuration.logger.warning("handing back \(mine.count) waiting task(s) by publishing them again failed (\(error)); rejected them")
        }
    }

    private func sendAcks() throws {
        let current = lock.withLock { generation }
        for ack in mailbox.takeAcks() where ack.generation == current { try broker.ack(ack.receipt) }
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
        if let metrics = configuration.metrics, let queuedAt = local.queuedAt {
            metrics.started(pool: task.pool, queuedFor: now().timeIntervalSince(queuedAt))
        }
        let partition = task.partition
        // Every report of the attempt carries its token, as the task brought it.
        let report: @Sendable (ReportMessage) -> Bool = { message in
            let outgoing = OutgoingReport(body: message.echoing(task).encoded(), ack: nil, partition: partition)
            switch message.kind {
            case .log, .progress: return mailbox.offer(outgoing)  // dropped (and counted) while the outbox is full
            case .started, .result:
                mailbox.post(outgoing)
                return true
            }
        }
        // Started with the lock held, so the attempt cannot unregister itself before it is registered
        // (an executor never calls back from within `start`).
        lock.lock()
        defer { lock.unlock() }
        running[id] = configuration.executor.start(
            task, configuration: configuration, report: report,
            result: { [self] result in
                if let metrics = configuration.metrics, let began = result.startedAt, let ended = result.finishedAt {
                    metrics.procedureFinished(task.procedure, seconds: ended.timeIntervalSince(began))
                }
                if !self.lock.withLock({ self.abandoned }) {
                    mailbox.post(
                        OutgoingReport(
                            body: ReportMessage.result(runID: task.runID, result).echoing(task).encoded(), ack: ack, partition: task.partition))
                }
            },
            finished: { [self] in
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
            })
    }
}
