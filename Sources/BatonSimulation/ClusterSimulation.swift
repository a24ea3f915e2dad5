import Baton
import BatonAMQP
import BatonCoordinator
import BatonDemo
import BatonStore
import BatonWorker
import Foundation

/// One seed's simulated cluster: coordinators (one leads, the others stand by) and workers,
/// the real coordinator, worker loops, scheduler and procedures, with `MemoryStore` and
/// `MemoryBroker` behind their seams, on a `SimulationClock`. Every choice comes from the seed:
/// which process moves next, when publishes arrive and are confirmed, when time passes, and
/// which fault strikes. The guarantees are checked after every step (`InvariantChecker`). The
/// broker's queues are classic or quorum (`SimulationOptions.queueType`); a quorum run submits the
/// graphs `SimulationGraph.bands` and `.poison` in place of two drawn ones, has one more worker
/// (for the poison's pool) and the checks of `QuorumInvariants`.
public final class ClusterSimulation {
    public let seed: UInt64
    let options: SimulationOptions
    let clock = SimulationClock()
    let store: MemoryStore
    let broker: MemoryBroker
    /// The queue type of this seed's cluster.
    public let queueType: QueueType
    /// The workers' `--delivery-limit`.
    let workerLimit: Int
    var random: SeededRandom
    private let processRandom: RandomSource
    /// The coordinators' attempt tokens: a stream of its own, so drawing them moves no other choice.
    private let tokenRandom: RandomSource
    var coordinators: [SimulatedCoordinator] = []
    var workers: [SimulatedWorker] = []
    var checker = InvariantChecker()
    var submitted: [InvariantChecker.Submitted] = []
    var report: SimulationReport
    var step = 0
    /// While above zero, confirms are held back (a slow broker).
    var confirmsHeldFor = 0
    /// The coordinators' worker lease, in seconds.
    let coordinatorLease = 10.0
    /// While above zero, the broker blocks publishers (a memory or disk alarm).
    var blockedFor = 0
    /// During a block and its grace after: the newest event's id when it began (no `lease_expired` of a
    /// worker alive may follow: nothing is re-run because the broker blocked publishers), and when the
    /// grace ends. (A worker that crashed or paused meanwhile may rightly lose its lease: the watch then ends.)
    var blockWatch: (since: Int64, until: Date?)?
    /// The stream of flow-control faults: a stream of its own, so a seed runs as it did before them until
    /// its first block.
    var flowRandom: SeededRandom
    var faultsOn = true
    /// This seed's chance per step of each fault kind.
    let faultMix: FaultMix
    /// Signals (`SimulationGraph.signals`) not sent yet, and the stream of every signal choice: a
    /// stream of its own, so a seed that draws no signal graphs runs as it did before they existed.
    var unsentSignals: [(runID: String, key: String, value: JSON)] = []
    private var signalRandom: SeededRandom
    /// The stream of task queues lost (`FaultKind.taskQueueLost`): of its own, so the other faults are drawn as before.
    var lossRandom: SeededRandom
    /// Publishes the `forged-report` fault's reports (`ReportForger`).
    lazy var forger = ReportForger(broker: broker)
    /// The forger's choices: a stream of its own, so the other faults are drawn as before it existed.
    var forgeRandom: SeededRandom
    /// The stream of process cuts (`FaultKind.storeCut`, `.brokerCut`): of its own, as the forger's.
    var cutRandom: SeededRandom
    /// Cuts in force, and healed ones whose take-back is still watched.
    var cuts: [ProcessCut] = []
    /// Who opened each store session, and who is cut off from the store.
    let storeSessions = StoreSessionOwners()
    /// Whether this seed submits big outputs, and their sizes: a stream of its own.
    var bigRandom: SeededRandom
    /// Whether a seed submits `SimulationGraph.versions`: a stream of its own, like `bigRandom`.
    var versionRandom: SeededRandom
    /// The coordinators' partition lease, in seconds.
    let partitionLease = 10.0
    /// The pauses this seed makes (`PauseSimulation`), when it makes any.
    var pauses: PauseSimulation?
    /// What it may pause, once its runs are submitted.
    var pauseTargets: [PauseTarget] = []
    /// What was paused when the coordinator's turn now under way began, and what its decisions broke.
    let pauseWatch = PauseWatch()
    /// With `options.webhooks`: the coordinators' webhook delivery and the receiver.
    var webhooks: WebhookSimulation?

    public init(seed: UInt64, options: SimulationOptions = SimulationOptions()) {
        self.seed = seed
        self.options = options
        random = SeededRandom(seed: seed)
        signalRandom = SeededRandom(seed: seed ^ 0x5167_0A15)
        flowRandom = SeededRandom(seed: seed ^ 0xB10C_CED0)
        lossRandom = SeededRandom(seed: seed ^ 0x1057_00E0)
        processRandom = RandomSource(seed: seed ^ 0x5EED)
        tokenRandom = RandomSource(seed: seed ^ 0x70CE_4E45)
        forgeRandom = SeededRandom(seed: seed ^ 0xF0F6_ED00)
        cutRandom = SeededRandom(seed: seed ^ 0xC07_0FF0)
        bigRandom = SeededRandom(seed: seed ^ 0xB16_B7E5)
        versionRandom = SeededRandom(seed: seed ^ 0x5E_4510)
        let clock = self.clock
        queueType = options.queueType.queueType(seed: seed)
        // Classic runs keep the limit they always had; a quorum run's is drawn from a stream of its own.
        var limits = SeededRandom(seed: seed ^ 0x0D0E_11FE)
        workerLimit = queueType == .classic ? 50 : options.quorumWorkerLimit ?? (limits.chance(0.5) ? 10 : 50)
        store = MemoryStore(clock: { clock.now })
        store.setPartitionCount(options.partitions)
        store.queueType = queueType
        store.maxStatementBytes = SimulationOptions.maxStatementBytes
        broker = MemoryBroker(queueType: queueType)
        broker.quorumDefects = options.quorumDefects
        faultMix =
            options.faultMix == .uniform
            ? .uniform(rate: options.faultRate) : .swarm(seed: seed, rate: options.faultRate, disabled: options.disabledFaults)
        report = SimulationReport(seed: seed)
        report.faultMix = faultMix.line
        report.queueType = queueType
        if queueType == .quorum { checker.quorum = QuorumInvariants(workerLimit: workerLimit) }
        // Unowned: the processes live inside this simulation, and a strong capture would keep every seed's cluster alive.
        for i in 0..<options.coordinators {
            coordinators.append(SimulatedCoordinator(index: i, make: { [unowned self] in makeCoordinator($0, $1) }))
        }
        // A quorum run has one more worker, serving only the pool of the task that kills its workers.
        for i in 0..<(options.workers + (queueType == .quorum && !options.poisonAmongOthers ? 1 : 0)) {
            workers.append(SimulatedWorker(index: i, make: { [unowned self] in makeWorker($0, $1) }))
        }
        broker.onAck = { [weak self] ack in
            guard let self else { return }
            if ack.queue.hasPrefix(BatonTopology.resultsQueue + ".") {  // a partition's (the shared one's are forwarded, not applied)
                self.checker.acked(report: ack.message.body, forged: ack.message.publisher == ReportForger.name, store: self.store)
            } else if ack.queue.hasPrefix(BatonTopology.tasksExchange + ".") {
                self.checker.acked(task: ack.message, store: self.store)
            }
        }
        broker.onConfirm = { [weak self] message in self?.checker.confirmed(message) }
        broker.onDeliver = { [weak self] delivery in self?.checker.delivered(delivery) }
    }

    // MARK: - Processes

    private func makeCoordinator(_ index: Int, _ generation: Int) -> SteppedCoordinator {
        var configuration = CoordinatorConfiguration(
            databaseURL: "memory", amqpURL: "memory", batchSize: 20, pollInterval: 2, lease: coordinatorLease,
            logger: QuietLogger.make("coordinator-\(index).\(generation)"))
        let store = self.store
        let broker = self.broker
        let clock = self.clock
        let random = processRandom
        let name = "coordinator-\(index).\(generation)"
        configuration.id = name
        configuration.reconcileLostTasks = options.reconcileLostTasks
        // Small byte budgets, so that batches are cut by bytes and bounded in bytes (the catalog's outputs are small).
        configuration.commitBytes = options.commitBytes
        configuration.memoryBudget = SimulationOptions.memoryBudget
        configuration.offloadMinimumBytes = 0
        configuration.partitionLease = partitionLease
        // Cut off from the store (`FaultKind.storeCut`), it cannot open a session.
        let sessions = storeSessions
        configuration.makeStore = { try sessions.connect(store, coordinator: index) }
        configuration.makeBroker = { broker.coordinatorConnection(name: name) }
        configuration.clock = { clock.now }
        configuration.random = { random.unit() }
        let tokens = tokenRandom
        configuration.attemptTokens = { tokens.token() }
        let watch = pauseWatch
        let memory = store
        configuration.decided = { runID, commands in
            guard !watch.paused.isEmpty else { return }
            watch.violations += PauseSimulation.violations(store: memory, coordinator: name, runID: runID, commands: commands, paused: watch.paused)
        }
        // Workers from before tokens (`legacyWorkers`) send none: the coordinators are in the upgrade window.
        configuration.reportCheck = ReportCheck(acceptUntokened: options.legacyWorkers > 0 || options.acceptUntokenedReports)
        // A back-off inside a step (a commit retried) is time that passes while this process waits.
        configuration.pause = { seconds, _ in
            clock.advance(min(seconds, 1))
            return false
        }
        return SteppedCoordinator(configuration: configuration)
    }

    private func makeWorker(_ index: Int, _ generation: Int) -> (SteppedWorker, SimulatedExecutor) {
        let id = "worker-\(index).\(generation)"
        let registry = options.versions && index < options.workers ? VersionProcedures.registry(worker: index, of: options.workers) : .demo
        var configuration = WorkerConfiguration(
            amqpURL: "memory", pools: [index < options.workers ? "default" : SimulationGraph.poisonPool], concurrency: 2, prefetch: 4,
            registry: registry, id: id, heartbeatInterval: 1,
            shutdownGrace: 30, deliveryLimit: workerLimit, logger: QuietLogger.make("worker"))
        let broker = self.broker
        let clock = self.clock
        let executor = SimulatedExecutor(clock: clock, seed: seed &+ UInt64(index * 1_000 + generation))
        let tasks = broker.workerTasks(name: "\(id)-tasks")
        configuration.makeTaskBroker = { tasks }
        executor.onStart = { [unowned self] task in
            guard let started = tasks.started(task) else { return }
            checker.started(started, holding: tasks.held, worker: id, store: store)
            checker.served(started, by: registry, worker: id)
        }
        let legacy = index < options.legacyWorkers
        configuration.makeReportBroker = { broker.workerReports(name: "\(id)-reports", legacy: legacy) }
        configuration.executor = executor
        configuration.clock = { clock.now }
        let random = processRandom
        configuration.random = { random.unit() }
        configuration.pause = { _, _ in false }
        return (SteppedWorker(configuration: configuration), executor)
    }

    // MARK: - Running a seed

    /// Submits the runs, drives the cluster through `options.steps` steps with faults, then without
    /// faults until every run ended (or the heal budget is spent), and checks the guarantees.
    public func run() -> SimulationReport {
        let catalog =
            SimulationGraph.catalog + (options.fairShares ? [SimulationGraph.fair] : [])
            + (options.legacyWorkers > 0 ? [SimulationGraph.long] : [])
        trace("queues \(queueType.rawValue), workers' delivery limit \(workerLimit)")
        if !faultMix.uniform { trace("faults: \(faultMix.line)") }
        if options.schedules { store.addSchedule(ScheduleInvariants.schedule) }
        if options.webhooks {
            WebhookSimulation.register(in: store)
            webhooks = WebhookSimulation(seed: seed)
        }
        // A quorum run's two graphs of its own take the place of two drawn ones (a seed costs about as much).
        let poison = options.poisonAmongOthers ? SimulationGraph.poison(in: "default") : SimulationGraph.poison
        var own = queueType == .quorum ? [SimulationGraph.bands, poison] : []
        // Half the seeds also submit big outputs, injected into many nodes (the memory budget and byte-cut
        // commits), in place of a drawn graph.
        if options.bigOutputs && bigRandom.chance(0.5) {
            let sizes = SimulationOptions.bigOutputBytes
            let bytes = Int(exp(log(Double(sizes.lowerBound)) + bigRandom.unit() * log(Double(sizes.upperBound) / Double(sizes.lowerBound))))
            let dependents = 2 + bigRandom.index(SimulationOptions.mostDependents - 1)
            own.append(.bigOutputs(bytes: bytes, dependents: dependents))
            trace("big outputs of \(bytes) bytes, injected into \(dependents) nodes")
        }
        // A third of the seeds submit nodes of two versions of one procedure, in place of a drawn graph.
        if options.versions && versionRandom.chance(1.0 / 3) { own.append(.versions) }
        for _ in 0..<max(1, options.runs - own.count) {
            let graph = catalog[random.index(catalog.count)]
            submit(graph)
        }
        for graph in own { submit(graph) }
        // Half the seeds also wait for signals, sent at random moments (before and after their nodes wait, across faults).
        if options.signals && signalRandom.chance(0.5) {
            submit(.signal)
            submit(.signalTimeout)
        }
        var pausing = PauseSimulation(seed: seed)
        if options.pauses && pausing.random.chance(0.5) {
            pauseTargets = PauseSimulation.candidates(store: store, runs: submitted.map(\.runID))
            pauses = pausing
            trace("pauses among \(pauseTargets.count) targets")
        }
        while step < options.steps && report.violations.isEmpty {
            takeStep()
        }
        faultsOn = false
        if pauses != nil {
            pauses!.resumeAll(store: store)  // the heal: every run must be able to end
            trace("every pause ends")
        }
        confirmsHeldFor = 0
        if blockedFor > 0 { unblockPublishers() }
        shortenCuts()
        while !unsentSignals.isEmpty { sendSignal(0) }  // what was not sent under faults goes now, or its run could not end
        let healEnd = clock.now.addingTimeInterval(options.healSeconds)
        var healed = 0
        while report.violations.isEmpty, healed < options.healSteps, clock.now < healEnd, !allEnded {
            takeStep()
            healed += 1
        }
        refuseLateSignals()
        if webhooks != nil && report.violations.isEmpty { drainWebhooks() }
        checker.checkStranded(store: store, runs: submitted) { [broker] in broker.holdsTask(runID: $0, key: $1, attempt: $2) }
        report.faultDeadLetters = checker.finish(store: store, runs: submitted, deadLetteredByFaults: broker.deadLetteredByFaults)
        if options.schedules {
            let (violations, fired) = ScheduleInvariants.check(store: store)
            for line in violations { checker.violate(line) }
            report.scheduleFirings = fired
        }
        if let webhooks {
            let (violations, duplicates) = WebhookInvariants.check(store: store, simulation: webhooks)
            for line in violations { checker.violate(line) }
            report.webhookDeliveries = store.tables.deliveries.count
            report.webhookAttempts = store.tables.deliveries.values.reduce(0) { $0 + $1.row.attempts }
            report.webhookDuplicates = duplicates
            report.webhookRecordsLost = webhooks.recordsLost
        }
        // The processes go (what they still hold refers back to them): nothing of this seed outlives it.
        for c in coordinators where c.isUp { c.crash(restartAfter: 0) }
        for w in workers where w.isUp { w.crash(restartAfter: 0) }
        report.violations = checker.violations
        report.bandChoices = checker.quorum?.bandChoices ?? 0
        report.runsEnded = submitted.filter { store.run($0.runID)?.status.isTerminal == true }.count
        report.nodesEnded = checker.nodesEnded
        report.partitionMoves = store.ownerChanges
        report.fencedWrites = store.fencedWrites
        report.unstartedDeadLetters = submitted.reduce(0) { sum, run in
            sum + store.events(ofRun: run.runID).filter { $0.eventKind == .deadLetteredUnstarted }.count
        }
        report.steps = step
        report.outputsReadBack = store.outputsReadBack
        return report
    }

    /// The coordinator's `ScheduleFiring` turn, on the memory store and the virtual clock.
    private func fireSchedules(_ coordinator: String) {
        do {
            try ScheduleFiring(databaseURL: "memory", coordinator: coordinator, logger: QuietLogger.make(coordinator)).turn(store)
        } catch {
            trace("\(coordinator) schedules: \(error)")
        }
    }

    private var allEnded: Bool { submitted.allSatisfy { store.run($0.runID)?.status.isTerminal == true } }

    private func submit(_ graph: SimulationGraph) {
        do {
            let decoded = try GraphDecoder().decode(graph.document)
            let id = store.submit(decoded)
            submitted.append(.init(runID: id, graph: graph))
            trace("submit \(graph.name) as \(id)")
            for (key, value) in graph.signals.sorted(by: { $0.key < $1.key }) {
                unsentSignals.append((id, key, value))
                if signalRandom.chance(0.3) { sendSignal(unsentSignals.count - 1) }  // before any coordinator saw the run
            }
        } catch {
            checker.violate("the simulator's graph \(graph.name) does not decode: \(error)")
        }
    }

    func trace(_ line: String) {
        let stamped = String(format: "%6d %9.3f ", step, clock.now.timeIntervalSince1970 - 1_800_000_000) + line
        report.trace.append(stamped)
        if !options.keepTrace && report.trace.count > options.traceTail * 2 { report.trace.removeFirst(report.trace.count - options.traceTail) }
    }

    /// One step: maybe a fault, then one process moves (or time passes), then the checks.
    private func takeStep() {
        step += 1
        if faultsOn, let kind = faultMix.draw(&random) { inject(kind) }
        // Under the uniform mix, the kinds newer than it come from streams of their own (a seed runs as before
        // them until their first strike); the swarm draws them as any other kind.
        if faultsOn && faultMix.uniform {
            for fault in ownStreamFaults where fault.rate > 0 {
                if self[keyPath: fault.stream].chance(fault.rate) { inject(fault.kind) }
            }
        }
        restartWhatIsDue()
        act()
        checker.check(store: store, runs: submitted)
        checkBlockWatch()
        checkCuts()
        checkBudget()
        report.violations = checker.violations
        if !report.violations.isEmpty { trace("VIOLATION: " + report.violations[0]) }
    }

    func restartWhatIsDue() {
        let processes: [any SimulatedProcess] = coordinators + workers
        for p in processes where !p.isUp {
            if p.downFor > 0 {
                p.downFor -= 1
            } else {
                p.start()
                trace("\(p.name) starts")
            }
        }
        for p in processes where p.pausedFor > 0 { p.pausedFor -= 1 }
        if confirmsHeldFor > 0 { confirmsHeldFor -= 1 }
        if blockedFor > 0 {
            blockedFor -= 1
            if blockedFor == 0 { unblockPublishers() }
        }
    }

    /// The coordinator stays within its budget: the bytes of outputs and resolved inputs each holds in
    /// memory, as `RunState` counts them, never exceed its memory budget by more than `budgetSlack`.
    private func checkBudget() {
        for c in coordinators {
            guard let process = c.process else { continue }
            let held = process.heldBytes
            report.mostOutputBytesHeld = max(report.mostOutputBytesHeld, held)
            if held > SimulationOptions.memoryBudget + Self.budgetSlack {
                checker.violate(
                    "\(c.name) holds \(held) bytes of outputs and inputs in memory, over its budget of \(SimulationOptions.memoryBudget) (slack \(Self.budgetSlack))"
                )
            }
        }
    }

    /// How far beyond its memory budget a coordinator's outputs may be after a step: it drops them after
    /// a commit once past half the budget, so it holds up to half the budget, then the reports of one
    /// batch (bounded in bytes, `CoordinatorConfiguration.batchBytes`, at least 1 MiB) and the runs it
    /// loads before the next commit.
    static let budgetSlack = 1 << 20

    /// Picks what moves: a coordinator's turn, a worker's consumer or publisher turn, an attempt that
    /// ends, the broker delivering confirms, or the clock.
    private func act() {
        var choices: [(weight: Double, name: String, run: () -> Void)] = []
        for c in coordinators where c.isUp && c.pausedFor == 0 {
            guard let process = c.process, clock.now >= process.resumeAt else { continue }
            choices.append(
                (
                    3, "\(c.name) turn",
                    { [self] in
                        pauseWatch.paused = pauses == nil ? [] : Set(store.tables.pauses.keys)
                        defer {
                            pauseWatch.paused = []
                            for line in pauseWatch.violations { checker.violate(line) }
                            pauseWatch.violations = []
                        }
                        if let stopped = process.turn() {
                            trace("\(c.name) stops: \(stopped.message)")
                            c.crash(restartAfter: 20)
                        } else if options.schedules {
                            fireSchedules(c.name)
                        }
                    }
                ))
            if let webhooks, webhooks.canAct(c.index, name: c.name, now: clock.now) {
                choices.append((1.5, "\(c.name) webhooks", { [self] in deliverWebhooks(c) }))
            }
        }
        for w in workers where w.isUp && w.pausedFor == 0 {
            guard let process = w.process else { continue }
            choices.append((3, "\(w.name) consumer turn", { process.consumerTurn() }))
            choices.append((2, "\(w.name) publisher turn", { process.publisherTurn() }))
            if let executor = w.executor, let due = executor.nextDue, due <= clock.now {
                choices.append(
                    (
                        3, "\(w.name) attempts end",
                        { [self] in
                            executor.runDue()
                            if executor.killed {
                                trace("\(w.name) is killed by the task it ran")
                                blockWatch = nil
                                w.crash(restartAfter: 5 + random.index(20))
                            }
                        }
                    ))
            }
        }
        if confirmsHeldFor == 0 {
            choices.append((2, "broker confirms", { [self] in broker.deliverConfirms() }))
        } else {
            choices.append((1, "broker delivers (confirms held)", { [self] in broker.deliverPublishes() }))
        }
        choices.append((1.5, "time passes", { [self] in clock.advance(0.001 + random.unit() * 0.25) }))
        if !unsentSignals.isEmpty {
            choices.append((0.3, "a signal is sent", { [self] in sendSignal(signalRandom.index(unsentSignals.count)) }))
        }
        if faultsOn, pauses != nil, !pauseTargets.isEmpty {
            for line in pauses!.resumeDue(store: store) { trace(line) }
            choices.append(
                (
                    0.05, "a pause",
                    { [self] in
                        let target = pauseTargets[pauses!.random.index(pauseTargets.count)]
                        trace(pauses!.pause(target, store: store))
                    }
                ))
        }
        let total = choices.reduce(0) { $0 + $1.weight }
        var pick = random.unit() * total
        for choice in choices {
            pick -= choice.weight
            if pick < 0 {
                trace(choice.name)
                choice.run()
                return
            }
        }
        trace(choices.last!.name)
        choices.last!.run()
    }
}
