/// What one simulated cluster looks like and how long it is driven.
public struct SimulationOptions: Sendable {
    /// Steps with faults; then faults stop and the cluster is driven until every run ended.
    public var steps = 2_000
    /// At most this many steps (and virtual seconds) for the runs to end once faults stop.
    public var healSteps = 60_000
    public var healSeconds = 900.0
    /// Coordinators (one leads, the others stand by) and worker processes.
    public var coordinators = 3
    /// Partitions of the schema, shared among the coordinators.
    public var partitions = 8
    public var workers = 3
    /// The first this-many workers publish as workers from before partitions did (reports to
    /// `baton.results`, heartbeats to the shared queue only), as during an upgrade.
    public var legacyWorkers = 0
    /// The coordinators accept reports without a token (`--accept-untokened-reports`); always so with `legacyWorkers`.
    public var acceptUntokenedReports = false
    /// Runs submitted, drawn from the catalog.
    public var runs = 6
    /// The chance of a fault at each step: the uniform mix's, and the swarm's on average before it
    /// turns some kinds off and others up.
    public var faultRate = 0.02
    /// Each seed draws its own mix of fault kinds (`swarm`, the default), or all share `faultRate`
    /// evenly (`uniform`, as before the swarm: the seeds kept as tests of earlier findings replay it).
    public var faultMix = SimulationFaultMix.swarm
    /// The chance at each step (with faults on) that a task queue is deleted or purged under load
    /// (`FaultKind.taskQueueLost`), drawn from a stream of its own; 0 turns it off
    /// (`baton-sim --no-queue-loss`).
    public var queueLossRate = 0.001
    /// Coordinators find queued nodes whose task the broker lost and publish them again; off only to
    /// show that the simulator finds the stranded queue without it (`baton-sim --no-reconcile`).
    public var reconcileLostTasks = true
    /// Block publishers now and then (`blocked-publishers`, a broker alarm; `--no-blocked-publishers`: never).
    public var blockedPublishers = true
    /// Cut one process off from the store alone or from the broker alone now and then (`store-cut`,
    /// `broker-cut`); off with `baton-sim --no-process-cuts`.
    public var processCuts = true
    /// Whether runs are drawn from the `fair` graph too (fair shares; off: the draws of before it).
    public var fairShares = true
    /// Half the seeds (drawn from a stream of their own) submit a graph of big outputs in place of a drawn one
    /// (`SimulationGraph.bigOutputs`, sizes drawn per seed), so that outputs are dropped from memory and
    /// read back, and commits are cut by bytes; off with `baton-sim --no-big-outputs`.
    public var bigOutputs = true
    /// Workers serve `sim.version` 1 (even) or 2 (odd), and a third of the seeds (a stream of their own)
    /// submit `SimulationGraph.versions` in place of a drawn graph; off with `baton-sim --no-versions`
    /// (seeds found before versions replay as they were found).
    public var versions = true
    /// Classic or quorum queues, or (`mixed`, the default) each seed draws one.
    public var queueType = SimulationQueueType.mixed
    /// Quorum queues broken on purpose (tests of the invariants only).
    var quorumDefects: Set<MemoryQuorumDefect> = []
    /// The workers' `--delivery-limit` in quorum runs (nil: each seed draws 10 or 50; with 50 the
    /// queues' own `x-delivery-limit` of 20 stops a task first).
    var quorumWorkerLimit: Int?
    /// The task that kills its workers in the default pool, among the others, without a worker of
    /// its own: the tasks its workers held go round with it (`baton-sim --poison-among-others`).
    public var poisonAmongOthers = false
    /// Add a schedule firing every virtual second (catch-up all) and check that each due time fired
    /// exactly once (`ScheduleInvariants`; `baton-sim --schedules`). Off by default: its runs change
    /// every seed's course.
    public var schedules = false
    /// Register webhooks; coordinators deliver their events to a simulated receiver (2xx, 5xx, time-outs,
    /// answers after the claim's lease, records lost) and `WebhookInvariants` checks the outbox, the
    /// claims, the attempts and the back-off (`baton-sim --webhooks`). Off by default: its steps change
    /// every seed's course.
    public var webhooks = false
    /// Half the seeds (drawn from a stream of their own) also submit the signal graphs and send their
    /// signals; off, every seed runs as it did before signals existed (`baton-sim --no-signals`), which
    /// the seeds kept as tests of earlier findings replay.
    public var signals = true
    /// Half the seeds (drawn from a stream of their own) also pause and resume procedures, pools and runs
    /// at random moments (`PauseSimulation`); off, every seed runs as before pauses existed (`--no-pauses`).
    public var pauses = true
    /// Keep the trace of every step (for `--seed`); otherwise only the last ones are kept.
    public var keepTrace = false
    public var traceTail = 40

    /// The coordinators' `--commit-bytes` (`baton-sim --commit-bytes`) and `--memory-budget`, and the store's statement limit, in
    /// the simulator: small, so that the big outputs' batches (`bigOutputs`) are cut by bytes (below the
    /// statement limit, which a piece over it would break), and outputs (of any size) are dropped from
    /// memory and read back from the store often.
    public var commitBytes = 96 << 10
    static let memoryBudget = 64 << 10
    static let maxStatementBytes = 256 << 10
    /// The sizes of the big outputs (`bigOutputs`): a seed draws one between these, log-uniformly, and
    /// from 2 to `mostDependents` nodes that inject it.
    static let bigOutputBytes = (1 << 10)...(40 << 10)
    static let mostDependents = 8

    public init() {}

    /// The fault kinds these options turn off: the swarm gives them no chance.
    var disabledFaults: Set<FaultKind> {
        var off: Set<FaultKind> = []
        if !blockedPublishers { off.insert(.blockedPublishers) }
        if queueLossRate <= 0 { off.insert(.taskQueueLost) }
        if !processCuts { off.formUnion([.storeCut, .brokerCut]) }
        return off
    }
}
