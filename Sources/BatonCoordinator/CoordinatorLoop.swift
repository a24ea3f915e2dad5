import Baton
import BatonAMQP
import BatonStore
import Foundation
import Logging

/// The coordinator's work, on one dedicated thread: consume a batch of reports, feed them to
/// the runs' state machines, commit what changed in one statement, publish the tasks that
/// became ready (confirmed), then ack the batch. A crash anywhere replays the batch; nothing
/// is acked before it is recorded. The decisions are values (`RunState`, `PendingBatch`,
/// `ReceivePolicy`, `LeaseTracker`, `FailureDecision`, `InboundIntake`, `NotificationIntake`,
/// `RunCache`, `GrantDecision`, `CommitRetry`, `ConfirmWait`); this class only carries them out.
final class CoordinatorLoop: @unchecked Sendable {
    // Safe: everything but `stop` is touched only by the loop's own thread. Members that the
    // extensions (CoordinatorLoop+Commit, +Admission, +Failures, +Metrics) use are internal, not
    // private; nothing else touches them.
    let stop = StopSignal()
    let configuration: CoordinatorConfiguration
    var logger: Logger { configuration.logger }

    var store: (any CoordinatorStore)?
    /// The broker seam, connected while `connected` is true.
    let broker: any CoordinatorBroker
    var connected = false

    /// Unfinished runs, as their state machines.
    var runs: [String: RunState] = [:]
    /// Which runs to load, keep and evict; it remembers the runs that ended recently.
    var cache = RunCache()
    /// The loop's decisions: what to do next, when to poll, check leases, back off or stop.
    private var machine: CoordinatorStateMachine
    /// The broker's confirms were read during this batch's commit (which answers its heartbeats too).
    var brokerServiced = false
    var leases: LeaseTracker
    var pending = PendingBatch()
    /// Committed batches whose results are acked once the broker confirmed their tasks.
    var backlog = ConfirmBacklog()
    /// The publisher's last confirm sequence number.
    var lastSequence: UInt64 = 0
    /// Each cached run's earliest timer, in a heap: reading the next is O(1), not a scan of every run.
    var runTimers = TimerQueue<String>()
    /// The earliest timer of any cached run.
    var nextWakeUp: Date? { runTimers.earliest }
    /// Holds were requested or released since the last grant (`grantWaiting` after the commit).
    var holdsChanged = false
    /// What is paused (`baton.pauses`), as every cached run has it (`CoordinatorLoop+Pauses`).
    var pauses = Pauses()
    /// The schema's partition count, and the partitions held (partition -> epoch; also the store's fence).
    var partitionCount = 0
    var held: [Int: Int64] = [:] {
        didSet { store?.fence?.epochs = held }  // every commit is fenced by exactly what is held
    }
    /// Nodes finished since the last announcement, and when that was (for the nodes/s it announces).
    var nodesFinished = 0
    var lastAnnounced: Date?
    /// When the partitions held were last taken or renewed (a commit retried renews them when due).
    var lastRenewed: Date?
    /// Cache entries recorded since the last commit (not in `baton.cache` yet), by `CacheLookup.claim` name.
    var uncommittedCache: [String: CacheHit] = [:]
    var metrics: CoordinatorMetrics? { configuration.metrics }
    /// The runs' and attempts' spans, with a tracer configured.
    let tracing: RunTracing?
    var health: ServiceHealth { configuration.health }
    /// Not before this time does the next turn run (a back-off).
    var resumeAt: Date { machine.resumeAt }
    /// Runs failed as a whole whose failure is not written yet, with the message to write.
    var unrecordedFailures: [String: String] = [:]
    /// Dead letters that failed their node, counted once the batch is committed.
    var uncountedDeadLetters = 0
    /// Task queues whose depth `baton_tasks_waiting` reports (pool, procedure), and when they were last read.
    var watchedQueues: Set<QueueName> = []
    /// Queued nodes whose task the broker may have lost (`CoordinatorLoop+LostTasks`).
    var reconciler: LostTaskReconciler
    /// The newest report received in this batch (acked, with every earlier one, after the commit).
    var lastReport: BrokerReceipt?
    /// Reports refused for their token, to log at a bounded rate.
    var refusals = RefusalLog()
    /// Reports refused since the last commit, told once it succeeds (`tellRefusals`).
    var refusedInBatch: [(ReportCheck.Refusal, String)] = []
    /// Bytes of the messages received in this batch (bounded by `configuration.batchBytes`).
    private var batchBytes = 0
    /// About the bytes of outputs the cached runs hold (results received, runs loaded), against the
    /// memory budget: past half of it, outputs are dropped from memory after the commit (`offloadOutputs`).
    var heldOutputBytes = 0
    /// An offloaded output that could not be read back during the action: thrown after it (a reconnect
    /// reloads every run, so nothing decided without the output is written).
    var outputReadFailure: Error?

    /// The time, from the configuration's clock (the simulator's is virtual): no decision reads `Date()`.
    func now() -> Date { configuration.clock() }

    init(configuration: CoordinatorConfiguration) {
        self.configuration = configuration
        broker = configuration.makeBroker()
        leases = LeaseTracker(lease: configuration.lease)
        reconciler = LostTaskReconciler(settings: configuration.lostTasks)
        tracing = configuration.tracer.map { RunTracing(tracer: $0, logger: configuration.logger) }
        machine = CoordinatorStateMachine(
            intervals: .init(
                poll: configuration.pollInterval, leaseCheck: leases.checkInterval,
                queueDepths: configuration.metrics?.queueDepthInterval ?? 5, balance: configuration.partitionLease / 5),
            batchSize: configuration.batchSize, batchBytes: configuration.batchBytes, random: configuration.random)
    }

    /// Runs until stopped; returns the reason when it stopped on an error that retrying cannot help
    /// (`FailureDecision.stop`), nil when it was asked to stop.
    func run() -> CoordinatorStop? {
        logger.info("coordinator starting")
        while !stop.isSet {
            if let stopped = turn() {
                disconnect()
                return stopped
            }
            let wait = resumeAt.timeIntervalSince(now())
            if wait > 0 { _ = configuration.pause(wait, stop) }
        }
        handOverAll()
        disconnect()
        logger.info("coordinator stopped")
        return nil
    }

    /// One turn: the state machine's actions carried out one after another, each outcome fed
    /// back as an event, until it ends the turn. An error is decided by `FailureDecision` and fed
    /// back too. Returns the reason when the coordinator must stop. The simulator calls it directly.
    func turn() -> CoordinatorStop? {
        var action = machine.next(.turn, now: now(), facts: facts)
        while true {
            switch action {
            case .wait, .endTurn:
                return nil
            case let .stop(message):
                logger.critical("coordinator stopping: \(message)")
                return CoordinatorStop(message)
            default:
                let event: CoordinatorStateMachine.Event
                do {
                    event = try carryOut(action)
                    if let failure = outputReadFailure {
                        outputReadFailure = nil
                        throw failure
                    }
                } catch {
                    let decision = FailureDecision.connection(error, everConnected: machine.everConnected)
                    action = machine.next(.failed(decision), now: now(), facts: facts)
                    guard case let .reconnect(delay) = action else { continue }  // stop
                    logger.error("coordinator: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
                    disconnect()
                    health.beat(quietFor: delay)
                    return nil
                }
                action = machine.next(event, now: now(), facts: facts)
            }
        }
    }

    /// What the state machine reads of the loop's state.
    private var facts: CoordinatorStateMachine.Facts {
        .init(nextWakeUp: nextWakeUp, hasPending: pending.hasDecisions, metrics: metrics != nil, batchBytes: batchBytes)
    }

    /// Carries out one action; returns what happened.
    private func carryOut(_ action: CoordinatorStateMachine.Action) throws -> CoordinatorStateMachine.Event {
        if case .connect = action {
            try connect()
            return .connected
        }
        guard let store, connected else { throw CoordinatorError("not connected") }
        switch action {
        case .readNotifications:
            health.beat()
            lastReport = nil
            let work = NotificationIntake(try store.notifications(timeout: 0), fence: store.fence)
            if work.pauses { try readPauses() }  // before the new runs start: they start with them
            for id in work.start { try startRun(id) }
            if work.grants { try takeGrants() }
            return .notified(requests: work.requests)
        case .balance:
            try readPauses()  // the runs of partitions taken over start with the pauses of now, heard or not
            try balance()
        case .poll:
            if !unrecordedFailures.isEmpty { try recordFailures() }
            try readPauses()  // a safety net: a notification missed while reconnecting
            for id in try store.activeRunIDs() where runs[id] == nil { try startRun(id) }
            holdsChanged = true  // a safety net: grants another coordinator did not make before it stopped
            try grantWaiting()
            try takeGrants()
        case .takeRequests:
            try takeRequests()
        case .fireTimers:
            fireTimers()
            try grantWaiting()
        case .expireLeases:
            try expireLeases()
            try reconcileLostTasks()
        case .readQueueDepths:
            if let metrics { try readQueueDepths(metrics) }
        case .keepBrokerAlive:
            try broker.keepAlive()
        case let .receive(timeout):
            let message = try broker.receive(timeout: timeout, confirmsDue: !backlog.isEmpty)
            leases.listened(at: now())
            guard let message else { return .received(false) }
            batchBytes += message.bodyBytes
            try handle(message)
            return .received(true)
        case .commit:
            brokerServiced = false
            try settleConfirms()
            try commit(ackUpTo: lastReport)
            try grantWaiting()
            lastReport = nil
            batchBytes = 0
            return .committed(brokerServiced: brokerServiced)
        case .connect, .wait, .endTurn, .reconnect, .stop:
            break
        }
        return .done
    }

    // MARK: - Connections

    /// Connects to both services, announces this coordinator, takes back the partitions it held
    /// before it reconnected and its share of the free ones, and resumes their unfinished runs.
    private func connect() throws {
        health.beat()
        let store = try configuration.makeStore()
        self.store = store
        try store.requireSchema()
        health.set("postgresql", connected: true)
        partitionCount = try store.partitionCount()
        if let expected = configuration.expectedPartitions, expected != partitionCount {
            throw CoordinatorStop(
                "the schema has \(partitionCount) partitions, this coordinator was started with --partitions \(expected): "
                    + "every coordinator must use the schema's count (fixed by the first `baton migrate`)")
        }
        guard partitionCount > 0 else { throw CoordinatorStop("the schema has no partitions: run `baton migrate`") }
        held = [:]
        store.fence = PartitionFence(coordinator: configuration.id, count: partitionCount, epochs: [:])
        health.set(role: .starting)
        health.set("rabbitmq", connected: false)
        try store.listenForWork()
        let typeName = try store.queueType()
        guard let queueType = QueueType(rawValue: typeName) else {
            throw CoordinatorStop("the database's queue type '\(typeName)' is not one this baton knows (classic, quorum)")
        }
        try broker.connect(
            prefetch: configuration.batchSize * 2, partitions: partitionCount, silence: configuration.partitionLease, queueType: queueType)
        connected = true
        backlog.reset()
        lastSequence = 0
        reconciler.reset()

        // Leases count from the last heartbeat the database saw, so a restart forgets no worker.
        let now = now()
        var lastSeen: [String: Date] = [:]
        for worker in try store.liveWorkers(within: 24 * 3600) { lastSeen[worker.id] = now.addingTimeInterval(-worker.secondsSinceSeen) }
        leases = LeaseTracker(lease: configuration.lease, lastSeen: lastSeen)
        runs = [:]
        pending = PendingBatch()
        refusedInBatch = []
        uncommittedCache = [:]
        holdsChanged = true
        pauses = try store.loadPauses()  // before any run is loaded: each starts with them
        metrics?.pauses(pauses)
        try balance(reclaiming: true)
        health.set("rabbitmq", connected: true)
        logger.info("coordinator \(configuration.id) connected: \(held.count) of \(partitionCount) partitions, \(runs.count) unfinished run(s)")
    }

    func disconnect() {
        health.set(role: .starting)
        health.set("postgresql", connected: false)
        if connected { health.set("rabbitmq", connected: false) }
        metrics?.forgetRuns()
        metrics?.partitions(0)
        uncountedDeadLetters = 0
        broker.close()
        connected = false
        store?.close(); store = nil
        held = [:]
        runs = [:]
        runTimers = TimerQueue()
        pending = PendingBatch()
        backlog.reset()
        uncommittedCache = [:]
        holdsChanged = false
        batchBytes = 0
        heldOutputBytes = 0
        outputReadFailure = nil
    }

    /// Reads an output dropped from memory back from the store; a failure is kept and thrown after
    /// the action (`outputReadFailure`), and nil injected meanwhile is never committed.
    private func readOutput(_ runID: String, _ key: String) -> JSON? {
        guard let store, outputReadFailure == nil else { return nil }
        do {
            return try store.nodeOutput(run: runID, key: key)
        } catch {
            outputReadFailure = error
            return nil
        }
    }

    /// Sends `.tick` to every run whose earliest timer or deadline is due, and arms each again; a due
    /// rate token (`rateTimer`) asks for a grant.
    private func fireTimers() {
        let now = now()
        for id in runTimers.takeDue(at: now) where runs[id] != nil || id == Self.rateTimer {
            guard id != Self.rateTimer else {
                holdsChanged = true  // a rate token is due: grant again
                continue
            }
            record(id, runs[id]!.handle(.tick, at: now, random: configuration.random, tokens: configuration.attemptTokens))
            runTimers.set(id, at: runs[id]?.nextWakeUp)
        }
    }

    /// Applies users' cancel, retry and signal requests; they are marked handled in the batch's commit.
    func takeRequests() throws {
        guard let store else { return }
        for request in try store.openRequests() {
            pending.handled(request.id, runID: request.runID)
            if request.kind == .signal {
                try takeSignal(request)
                continue
            }
            if runs[request.runID] == nil {
                guard let state = try loadState(request.runID) else { continue }
                runs[request.runID] = state
                cache.reopen(request.runID)
            }
            switch request.kind {
            case .cancel:
                record(
                    request.runID,
                    runs[request.runID]!.handle(
                        .cancel(reason: request.reason ?? "cancelled"), at: now(), random: configuration.random, tokens: configuration.attemptTokens))
            case .signal:
                break  // taken above
            case .retry:
                let wasTerminal = runs[request.runID]!.status.isTerminal
                record(
                    request.runID,
                    runs[request.runID]!.handle(
                        .retry(from: request.node), at: now(), random: configuration.random, tokens: configuration.attemptTokens))
                if wasTerminal && !runs[request.runID]!.status.isTerminal { logger.info("run \(request.runID) retried") }
            }
            if cache.requestTaken(request.runID, status: runs[request.runID]!.status, inBatch: pending.order.contains(request.runID)) {
                runs[request.runID] = nil  // nothing to do for it (e.g. cancelling a finished run)
            }
        }
    }

    /// Applies a signal (`baton signal`) as `.signal` to its run, started (or resumed) first if need be:
    /// a run that ended, or is gone, takes none (the store refused it unless the run ended since).
    private func takeSignal(_ request: RunRequest) throws {
        guard let key = request.node, try startRun(request.runID) else { return }
        let event = SchedulerEvent.signal(key: key, value: request.value ?? .null, at: request.requestedAt ?? now())
        record(request.runID, runs[request.runID]!.handle(event, at: now(), random: configuration.random, tokens: configuration.attemptTokens))
    }

    /// A run's state machine as stored, with this coordinator's limits. A run that cannot be read
    /// is failed (once, with the reason) and nil is returned; a lost connection is thrown.
    private func loadState(_ id: String) throws -> RunState? {
        guard let store else { return nil }
        do {
            guard var state = try store.loadRun(id) else { return nil }
            state.maxInputBytes = configuration.maxInputBytes
            state.dispatchWindow = configuration.dispatchWindow
            state.outputReader = { [unowned self] key in readOutput(id, key) }
            state.dropsInputs = true  // the store has them; retries and tasks sent again build them again
            state.pauses = pauses
            heldOutputBytes += state.heldOutputBytes
            return state
        } catch {
            try carryOut(FailureDecision.loading(id, error: error), error: error)
            return nil
        }
    }

    /// Makes sure `id` is a cached, unfinished run, loading and resuming it if need be.
    /// False for a run that ended, or that does not exist (any id a message names is checked here,
    /// so a malformed one cannot reach SQL and fail the batch).
    @discardableResult
    func startRun(_ id: String) throws -> Bool {
        if runs[id] != nil { return true }
        guard cache.shouldLoad(id, failureUnrecorded: unrecordedFailures[id] != nil) else { return false }
        let clock = ContinuousClock()
        let began = clock.now
        let read = try loadState(id)
        guard cache.loaded(id, status: read?.status), let state = read else { return false }
        let loaded = clock.now
        let nodeCount = state.graph.order.count
        runs[id] = state
        // Workers that run its nodes get a lease from now, in case they died while no coordinator ran.
        for node in runs[id]!.nodes.values where node.status == .running {
            if let worker = node.worker { leases.expect(worker, at: now()) }
        }
        // `state` is not used from here on: the run's only copy is in `runs`, so starting it does not copy its nodes.
        record(id, runs[id]!.handle(.start, at: now(), random: configuration.random, tokens: configuration.attemptTokens))
        watchQueued(of: id)
        logger.debug("run \(id): loaded \(nodeCount) nodes in \(loaded - began), started in \(clock.now - loaded)")
        return true
    }

    /// Carries out a decision about an error: reconnect (rethrow), stop, or fail one run and go on.
    func carryOut(_ decision: FailureDecision, error: Error) throws {
        switch decision {
        case .reconnect, .splitBatch, .retryBatch, .retryLater:
            throw error
        case let .stop(message):
            throw CoordinatorStop(message)
        case .dropBookkeeping:
            logger.error("dropped heartbeats and marks that cannot be recorded: \(error)")
        case let .failRun(id, message):
            if let tracing, let store { tracing.runFailed(id, error: message, at: now(), store: store) }
            logger.error("run \(id) failed: \(message)", metadata: tracing?.takeLogMetadata(id))
            pending.drop(id)
            runs[id] = nil
            holdsChanged = true  // the store releases its holds with the failure: others may go
            unrecordedFailures[id] = message
            try recordFailures()
        }
    }
}
