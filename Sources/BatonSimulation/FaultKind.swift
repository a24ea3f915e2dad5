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

    /// The eleven kinds from before the swarm, in their order then: the uniform mix draws among these
    /// only, so a kind added later leaves the courses of the seeds kept with `--fault-mix uniform` alone.
    static let beforeTheSwarm: [FaultKind] = [
        .coordinatorCrash, .workerCrash, .connectionLost, .publishFailsMidBatch, .commitFails, .duplicateDelivery, .delayedConfirms,
        .clockJump, .pausedProcess, .storeSessionsLost, .leaseLapse,
    ]
}
