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
}

extension FaultKind {
    /// The kinds drawn at a fault step (one each, evenly). Flow-control faults are drawn from a stream of
    /// their own, so seeds run as before them until their first one.
    static let drawn = allCases.filter { $0 != .blockedPublishers }
}
