/// The faults the simulator injects, chosen by the seed.
enum FaultKind: String, CaseIterable, Sendable {
    case coordinatorCrash = "coordinator-crash"
    case workerCrash = "worker-crash"
    case connectionLost = "connection-lost"
    case publishFailsMidBatch = "publish-fails"
    case commitFails = "commit-fails"
    case duplicateDelivery = "duplicate-delivery"
    case delayedConfirms = "delayed-confirms"
    case clockJump = "clock-jump"
    case pausedProcess = "paused-process"
    case storeSessionsLost = "database-restart"
    /// A partition's owner stalls past its lease, as the database sees it (a long pause between its
    /// renewal and its next write): the lease runs out now, and another coordinator may take it.
    case leaseLapse = "lease-lapse"
    /// The broker blocks every publisher for a while (a memory or disk alarm): nothing published arrives,
    /// heartbeats included, until it unblocks them.
    case blockedPublishers = "blocked-publishers"
    /// A task queue is deleted or purged under load (`rabbitmqctl delete_queue` / `purge_queue`, a
    /// policy, a lost broker disk): its waiting tasks are gone. Under the uniform mix it is drawn from a
    /// stream of its own (`SimulationOptions.queueLossRate`), so the other kinds' draws stay as they were.
    case taskQueueLost = "task-queue-lost"
    /// Someone with the broker's login but no worker publishes a report about a queued or running
    /// attempt, naming its run, node and attempt (all the dashboard shows) but not its token.
    case forgedReport = "forged-report"
    /// One coordinator is cut off from the store alone, its broker link kept (a network fault between
    /// its host and PostgreSQL): its calls fail, its new sessions are refused, but the database keeps its
    /// sessions until the network heals, a few seconds to three partition leases later.
    case storeCut = "store-cut"
    /// One process, a coordinator or a worker, is cut off from the broker alone, its store link kept:
    /// its calls fail and it cannot connect, and the broker holds its connections (and their unacked
    /// deliveries) until its heartbeat times out, then gives them to others; it heals later.
    case brokerCut = "broker-cut"
}

extension FaultKind {
    /// The kinds the uniform mix draws at a fault step (one each, evenly): those from before the swarm, so
    /// the seeds pinned with `--fault-mix uniform` replay as they were found. Kinds added since come from
    /// streams of their own under the uniform mix, and join the swarm's mix like any other.
    static let uniformKinds: [FaultKind] = [
        .coordinatorCrash, .workerCrash, .connectionLost, .publishFailsMidBatch, .commitFails, .duplicateDelivery,
        .delayedConfirms, .clockJump, .pausedProcess, .storeSessionsLost, .leaseLapse,
    ]
}
