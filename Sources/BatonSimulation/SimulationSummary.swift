/// Many seeds' reports added up, for `baton-sim --seeds`'s one line.
public struct SimulationSummary: Sendable {
    public var seeds = 0
    /// Seeds whose broker had quorum queues.
    public var quorumSeeds = 0
    public var bandChoices = 0
    public var steps = 0
    public var faults: [String: Int] = [:]
    public var runsEnded = 0
    public var nodesEnded = 0
    public var violations = 0
    public var partitionMoves = 0
    public var fencedWrites = 0
    public var unstartedDeadLetters = 0
    public var faultDeadLetters = 0
    public var scheduleFirings = 0
    public var webhookDeliveries = 0
    public var webhookAttempts = 0
    public var webhookDuplicates = 0
    public var webhookRecordsLost = 0
    public var outputsReadBack = 0
    public var mostOutputBytesHeld = 0

    public init() {}

    public mutating func add(_ report: SimulationReport) {
        seeds += 1
        if report.queueType == .quorum { quorumSeeds += 1 }
        bandChoices += report.bandChoices
        steps += report.steps
        for (kind, n) in report.faults { faults[kind, default: 0] += n }
        runsEnded += report.runsEnded
        nodesEnded += report.nodesEnded
        violations += report.violations.count
        partitionMoves += report.partitionMoves
        fencedWrites += report.fencedWrites
        unstartedDeadLetters += report.unstartedDeadLetters
        faultDeadLetters += report.faultDeadLetters
        scheduleFirings += report.scheduleFirings
        webhookDeliveries += report.webhookDeliveries
        webhookAttempts += report.webhookAttempts
        webhookDuplicates += report.webhookDuplicates
        webhookRecordsLost += report.webhookRecordsLost
        outputsReadBack += report.outputsReadBack
        mostOutputBytesHeld = max(mostOutputBytesHeld, report.mostOutputBytesHeld)
    }

    /// `seeds 100, quorum 48 (band choices 900), steps 210000, faults 4100 (clock-jump 410, …), runs 600 ended, nodes 2900 ended,
    /// partition moves 300, fenced writes 2, unstarted dead letters 4, outputs read back 90, most bytes held 70000, violations 0`
    public var line: String {
        let total = faults.values.reduce(0, +)
        let kinds = faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return
            "seeds \(seeds), quorum \(quorumSeeds) (band choices \(bandChoices)), steps \(steps), faults \(total) (\(kinds)), runs \(runsEnded) ended, nodes \(nodesEnded) ended, "
            + "partition moves \(partitionMoves), fenced writes \(fencedWrites), unstarted dead letters \(unstartedDeadLetters), "
            + (faultDeadLetters > 0 ? "runs failed by faults' dead letters \(faultDeadLetters), " : "")
            + (scheduleFirings > 0 ? "schedule firings \(scheduleFirings), " : "")
            + (webhookDeliveries > 0
                ? "webhook deliveries \(webhookDeliveries) (attempts \(webhookAttempts), taken twice \(webhookDuplicates), records lost \(webhookRecordsLost)), "
                : "")
            + "outputs read back \(outputsReadBack), most bytes held \(mostOutputBytesHeld), violations \(violations)"
    }
}
