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
    /// A task queue is deleted or purged under load (`rabbitmqctl delete_queue` / `purge_queue`, a
    /// policy, a lost broker disk): its waiting tasks are gone. Drawn from a stream of its own
    /// (`SimulationOptions.queueLossRate`), so the other kinds' draws stay as they were.
    case taskQueueLost = "task-queue-lost"

    /// The kinds drawn at the common fault rate (all but `taskQueueLost`).
    static let drawn: [FaultKind] = allCases.filter { $0 != .taskQueueLost }
}
