import BatonAMQP

/// How one seed went.
public struct SimulationReport: Sendable {
    public let seed: UInt64
    /// The queue type its broker had.
    public var queueType = QueueType.classic
    public var steps = 0
    public var faults: [String: Int] = [:]
    /// The seed's chance per step of each fault kind (`uniform 2.00% a step` or the swarm's draw).
    public var faultMix = ""
    public var runsEnded = 0
    public var nodesEnded = 0
    /// Partitions that changed owner, and writes the fence refused to an owner that had lost its partition.
    public var partitionMoves = 0
    public var fencedWrites = 0
    /// Attempts dead-lettered before they started and dispatched again (`dead_lettered_unstarted` events).
    public var unstartedDeadLetters = 0
    /// Runs failed by a task dead-lettered past the delivery limit whose every return was an
    /// injected fault's (`MemoryBroker.deadLetteredByFaults`): the faults alone reached the limit.
    public var faultDeadLetters = 0
    /// Quorum: attempts started while their worker held a task of another band (the priority-band check's cases).
    public var bandChoices = 0
    /// With `schedules`: the due times fired.
    public var scheduleFirings = 0
    /// With `webhooks`: the deliveries made, their attempts, those the receiver took twice (at least
    /// once: a record lost or an answer after the lease), and the records lost.
    public var webhookDeliveries = 0
    public var webhookAttempts = 0
    public var webhookDuplicates = 0
    public var webhookRecordsLost = 0
    /// Outputs dropped from a coordinator's memory and read back from the store (`Store.nodeOutput`).
    public var outputsReadBack = 0
    /// The most bytes of outputs and resolved inputs one coordinator held in memory after a step (as `RunState.heldBytes` counts them).
    public var mostOutputBytesHeld = 0
    /// Guarantees broken, one line each; empty when the seed passed.
    public var violations: [String] = []
    /// The steps taken (all of them with `keepTrace`, else the last ones).
    public var trace: [String] = []

    public var passed: Bool { violations.isEmpty }
}
