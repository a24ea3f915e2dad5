import Baton
import BatonAMQP
import BatonStore
import Foundation
import Logging

/// The coordinator's work, on one dedicated thread: consume a batch of reports,
/// feed them to the runs' state machines, commit what changed in one
/// transaction, publish the tasks that became ready (confirmed), then ack the
/// batch. A crash anywhere replays the batch; nothing is acked before it is recorded.
final class CoordinatorLoop: @unchecked Sendable {
    // Safe: everything but `stop` is touched only by the loop's own thread.
    let stop = StopSignal()
    private let configuration: CoordinatorConfiguration
    private var logger: Logger { configuration.logger }

    private var store: Store?
    private var consumer: AMQPConnection?
    private var publisher: AMQPConnection?
    private var declaredPools: Set<String> = []

    /// Unfinished runs, as their state machines.
    private var runs: [String: RunState] = [:]
    /// Runs that ended recently, so late reports for them need no lookup.
    private var finished = RecentSet(capacity: 10_000)
    private var lastPoll = Date.distantPast
    /// librabbitmq answers broker heartbeats only inside a call: an idle publisher is serviced every second.
    private var lastPublisherService = Date()

    /// When each worker was last heard from (heartbeats), for leases.
    private var workerSeen: [String: Date] = [:]
    private var lastLeaseCheck = Date()

    /// Requests taken since the last commit.
    private var handledRequests: [Int] = []
    /// The earliest timer of any cached run.
    private var nextWakeUp: Date?

    /// Commands produced since the last commit, per run in first-touched order.
    private var pendingCommands: [String: [SchedulerCommand]] = [:]
    private var pendingOrder: [String] = []

    private static let resultsChannel: UInt16 = 1
    private static let heartbeatsChannel: UInt16 = 2
    private static let deadLettersChannel: UInt16 = 3

    init(configuration: CoordinatorConfiguration) { self.configuration = configuration }

    func run() {
        var backoff = Backoff()
        logger.info("coordinator starting")
        while !stop.isSet {
            do {
                try connect()
                backoff.reset()
                while !stop.isSet { try step() }
            } catch {
                let delay = backoff.next()
                logger.error("coordinator: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
                disconnect()
                stop.wait(delay)
            }
        }
        disconnect()
        logger.info("coordinator stopped")
    }

    // MARK: - Connections

    private func connect() throws {
        let store = try Store(url: configuration.databaseURL)
        try store.requireSchema()
        // Only one coordinator may write run state. The others wait as hot standbys and take
        // over within about a second of the leader's database session ending (crash included).
        var announced = false
        while !(try store.tryLeadership()) {
            if !announced { logger.info("another coordinator leads; standing by") }
            announced = true
            if stop.wait(1) { store.close(); return }
        }
        if announced { logger.info("taking over as the leading coordinator") }
        try store.connection.listen(Store.runsChannel)
        try store.connection.listen(Store.requestsChannel)
        self.store = store

        let publisher = try AMQPConnection(url: configuration.amqpURL, connectionName: "baton-coordinator-publish")
        try publisher.enableConfirms()
        try BatonTopology.declareCommon(on: publisher)
        self.publisher = publisher
        declaredPools = []

        let consumer = try AMQPConnection(url: configuration.amqpURL, connectionName: "baton-coordinator-consume")
        try consumer.setPrefetch(UInt16(clamping: configuration.batchSize * 2), channel: Self.resultsChannel)
        try consumer.consume(queue: BatonTopology.resultsQueue, channel: Self.resultsChannel)
        try consumer.openChannel(Self.heartbeatsChannel)
        try consumer.consume(queue: BatonTopology.heartbeatsQueue, noAck: true, channel: Self.heartbeatsChannel)
        try consumer.openChannel(Self.deadLettersChannel)
        try consumer.setPrefetch(100, channel: Self.deadLettersChannel)
        try consumer.consume(queue: BatonTopology.deadLettersQueue, channel: Self.deadLettersChannel)
        self.consumer = consumer

        // Leases count from the last heartbeat the database saw, so a restart forgets no worker.
        workerSeen = [:]
        for worker in try store.liveWorkers(within: 24 * 3600) {
            workerSeen[worker.id] = Date().addingTimeInterval(-worker.secondsSinceSeen)
        }

        // Recovery: resume every unfinished run; queued and running nodes are
        // published again (their attempt numbers make duplicates harmless).
        runs = [:]
        pendingCommands = [:]
        pendingOrder = []
        handledRequests = []
        try takeRequests()  // what users asked while no coordinator ran comes first: a cancelled run must not start
        for id in try store.activeRunIDs() { try startRun(id) }
        lastPoll = Date()
        try commit(ackUpTo: nil, heartbeats: [])
        logger.info("coordinator connected; resumed \(runs.count) unfinished run(s)")
    }

    private func disconnect() {
        consumer?.close(); consumer = nil
        publisher?.close(); publisher = nil
        store?.close(); store = nil
        runs = [:]
        pendingCommands = [:]
        pendingOrder = []
    }

    // MARK: - One batch

    private func step() throws {
        guard let store, let consumer else {
            if !stop.isSet { throw CoordinatorError("not connected") }
            return
        }
        var requestsWaiting = false
        for note in try store.connection.waitForNotifications(timeout: 0) {
            if note.channel == Store.runsChannel { try startRun(note.payload) } else { requestsWaiting = true }
        }
        if Date().timeIntervalSince(lastPoll) >= configuration.pollInterval {
            lastPoll = Date()
            for id in try store.activeRunIDs() where runs[id] == nil { try startRun(id) }
            requestsWaiting = true
        }
        if requestsWaiting { try takeRequests() }
        if let wake = nextWakeUp, wake <= Date() { nextWakeUp = fireTimers() }
        if Date().timeIntervalSince(lastLeaseCheck) >= min(1, configuration.lease / 4) { expireLeases() }

        if Date().timeIntervalSince(lastPublisherService) >= 1 {
            try publisher?.processIncoming(timeout: 0)
            lastPublisherService = Date()
        }

        var heartbeats: [WorkerHeartbeat] = []
        var lastResultTag: UInt64?
        var lastDeadLetterTag: UInt64?
        var received = 0
        while received < configuration.batchSize {
            var wait = (received == 0 && pendingOrder.isEmpty) ? 0.05 : 0
            if let wake = nextWakeUp { wait = min(wait, max(0, wake.timeIntervalSinceNow)) }
            guard let delivery = try consumer.nextDelivery(timeout: wait) else { break }
            received += 1
            if delivery.channel == Self.heartbeatsChannel {
                do {
                    let beat = try WorkerHeartbeat(decoding: delivery.body)
                    heartbeats.append(beat)
                    workerSeen[beat.id] = Date()
                } catch {
                    logger.warning("ignored a malformed heartbeat: \(error)")
                }
                continue
            }
            if delivery.channel == Self.deadLettersChannel {
                lastDeadLetterTag = delivery.deliveryTag
                try handleDeadLetter(delivery)
                continue
            }
            let report: ReportMessage
            do {
                report = try ReportMessage(decoding: delivery.body)
            } catch {
                logger.warning("dead-lettering a malformed report: \(error)")
                try consumer.reject(deliveryTag: delivery.deliveryTag, requeue: false, channel: Self.resultsChannel)
                continue
            }
            lastResultTag = delivery.deliveryTag
            try handle(report)
        }
        try commit(ackUpTo: lastResultTag, heartbeats: heartbeats)
        if let tag = lastDeadLetterTag { try consumer.ack(deliveryTag: tag, multiple: true, channel: Self.deadLettersChannel) }
    }

    /// A dead-lettered task fails its node; anything else on the dead-letter queue is only logged.
    private func handleDeadLetter(_ delivery: AMQPDelivery) throws {
        guard let task = try? TaskDispatch(decoding: delivery.body) else {
            logger.warning("dead letter from \(delivery.headers["x-first-death-queue"]?.stringValue ?? "?") that is not a task (\(delivery.body.count) bytes); dropped")
            return
        }
        let deliveries = delivery.headers["x-baton-deliveries"]?.intValue ?? 1
        let reason = "the task was dead-lettered after \(deliveries) deliveries without a result: it keeps killing (or losing) the worker that runs it"
        logger.error("run \(task.runID) node \(task.key) attempt \(task.attempt): \(reason)")
        guard try startRun(task.runID) else { return }
        record(task.runID, runs[task.runID]!.handle(.deadLettered(key: task.key, attempt: task.attempt, reason: reason)))
    }

    private func handle(_ report: ReportMessage) throws {
        let id = report.runID
        guard try startRun(id) else { return }
        switch report {
        case let .started(_, key, attempt, worker, at):
            record(id, runs[id]!.handle(.started(key: key, attempt: attempt, worker: worker, at: at)))
        case let .finished(_, result):
            record(id, runs[id]!.handle(.result(result)))
        case let .progress(_, key, attempt, fraction, message):
            record(id, runs[id]!.handle(.progress(key: key, attempt: attempt, fraction: fraction, message: message)))
        case let .log(_, key, attempt, message):
            record(id, runs[id]!.handle(.log(key: key, attempt: attempt, message: message)))
        }
    }

    /// Sends `.tick` to every run whose earliest timer or deadline is due; returns the next one after that.
    private func fireTimers() -> Date? {
        let now = Date()
        var next: Date?
        for id in Array(runs.keys) {
            guard let wake = runs[id]?.nextWakeUp else { continue }
            if wake <= now {
                record(id, runs[id]!.handle(.tick, at: now))
                if let later = runs[id]?.nextWakeUp { next = min(next ?? later, later) }
            } else {
                next = min(next ?? wake, wake)
            }
        }
        return next
    }

    /// Workers silent for longer than the lease lose what they run: it goes out again as new attempts.
    private func expireLeases() {
        lastLeaseCheck = Date()
        let cutoff = Date().addingTimeInterval(-configuration.lease)
        for (worker, seen) in workerSeen where seen < cutoff {
            workerSeen[worker] = nil  // a heartbeat brings it back
            logger.warning("worker \(worker) missed its lease (\(Int(configuration.lease)) s without a heartbeat); re-dispatching its attempts")
            for id in Array(runs.keys) { record(id, runs[id]!.handle(.workerLost(worker: worker))) }
        }
    }

    /// Applies users' cancel and retry requests; they are marked handled in the batch's commit.
    private func takeRequests() throws {
        guard let store else { return }
        for request in try store.openRequests() {
            handledRequests.append(request.id)
            if runs[request.runID] == nil {
                guard let state = try loadState(request.runID) else { continue }
                runs[request.runID] = state
                finished.remove(request.runID)
            }
            switch request.kind {
            case .cancel:
                record(request.runID, runs[request.runID]!.handle(.cancel(reason: request.reason ?? "cancelled")))
            case .retry:
                let wasTerminal = runs[request.runID]!.status.isTerminal
                record(request.runID, runs[request.runID]!.handle(.retry(from: request.node)))
                if wasTerminal && !runs[request.runID]!.status.isTerminal { logger.info("run \(request.runID) retried") }
            }
            if runs[request.runID]!.status.isTerminal && pendingCommands[request.runID] == nil {
                runs[request.runID] = nil  // nothing to do for it (e.g. cancelling a finished run)
                finished.insert(request.runID)
            }
        }
    }

    /// A run's state machine as stored, with this coordinator's limits.
    private func loadState(_ id: String) throws -> RunState? {
        guard var state = try store?.loadRun(id) else { return nil }
        state.maxInputBytes = configuration.maxInputBytes
        return state
    }

    /// Makes sure `id` is a cached, unfinished run, loading and resuming it if need be.
    /// False for a run that ended, or that does not exist (any id a message names is checked here,
    /// so a malformed one cannot reach SQL and fail the batch).
    @discardableResult
    private func startRun(_ id: String) throws -> Bool {
        if runs[id] != nil { return true }
        guard !finished.contains(id), UUID(uuidString: id) != nil else { return false }
        let clock = ContinuousClock()
        let began = clock.now
        guard let state = try loadState(id) else { return false }
        if state.status.isTerminal {
            finished.insert(id)
            return false
        }
        let loaded = clock.now
        runs[id] = state
        record(id, runs[id]!.handle(.start))
        logger.debug("run \(id): loaded \(state.graph.order.count) nodes in \(loaded - began), started in \(clock.now - loaded)")
        return true
    }

    private func record(_ runID: String, _ commands: [SchedulerCommand]) {
        guard !commands.isEmpty else { return }
        if pendingCommands[runID] == nil { pendingOrder.append(runID) }
        pendingCommands[runID, default: []].append(contentsOf: commands)
    }

    /// Persists, then publishes, then acks: the order that makes a crash at any point harmless.
    private func commit(ackUpTo tag: UInt64?, heartbeats: [WorkerHeartbeat]) throws {
        guard let store, let publisher, let consumer else { return }
        let batch = pendingOrder.map { (runID: $0, commands: pendingCommands[$0]!) }
        let clock = ContinuousClock()
        let began = clock.now
        try store.apply(batch, heartbeats: heartbeats, handledRequests: handledRequests)
        let applied = clock.now
        pendingCommands = [:]
        pendingOrder = []
        handledRequests = []

        var published = 0
        for (_, commands) in batch {
            for command in commands {
                switch command {
                case let .dispatch(task):
                    if declaredPools.insert(task.pool).inserted { try BatonTopology.declarePool(task.pool, on: publisher) }
                    try publisher.publish(exchange: BatonTopology.tasksExchange, routingKey: task.pool, body: task.encoded(),
                                          persistent: true, priority: UInt8(clamping: task.priority))
                    published += 1
                case let .cancelTasks(runID, attempts):
                    try publisher.publish(exchange: BatonTopology.controlExchange, routingKey: "",
                                          body: ControlMessage(runID: runID, attempts: attempts).encoded(), persistent: false)
                    published += 1
                default:
                    break
                }
            }
        }
        if published > 0 {
            try publisher.waitForConfirms()
            lastPublisherService = Date()
        }
        if let tag { try consumer.ack(deliveryTag: tag, multiple: true, channel: Self.resultsChannel) }
        if !batch.isEmpty {
            logger.debug("batch: \(batch.reduce(0) { $0 + $1.commands.count }) commands, applied in \(applied - began), \(published) published in \(clock.now - applied)")
        }

        for (runID, _) in batch where runs[runID]?.status.isTerminal == true {
            logger.info("run \(runID) \(runs[runID]!.status.rawValue)")
            runs[runID] = nil
            finished.insert(runID)
        }
        // Timers may have been armed or disarmed by this batch.
        nextWakeUp = runs.values.compactMap(\.nextWakeUp).min()
    }
}

/// A bounded set that forgets its oldest members.
struct RecentSet {
    private var members = Set<String>()
    private var order: [String] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ member: String) -> Bool { members.contains(member) }

    /// Forgets `member` (its run became active again); the order list keeps a stale entry, which is harmless.
    mutating func remove(_ member: String) { members.remove(member) }

    mutating func insert(_ member: String) {
        guard members.insert(member).inserted else { return }
        order.append(member)
        if members.count > capacity {
            members.remove(order[head])
            head += 1
            if head > capacity { order.removeFirst(head); head = 0 }
        }
    }
}

struct CoordinatorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
