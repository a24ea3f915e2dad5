import BatonAMQP

/// The queue type of a simulated cluster's broker (`baton-sim --queue-type`).
public enum SimulationQueueType: String, Sendable, CaseIterable {
    case classic
    case quorum
    /// Each seed draws one, half and half, from a random stream of its own seed: a seed drawn
    /// classic runs exactly as with `classic`, one drawn quorum as with `quorum`.
    case mixed

    /// The queue type of the cluster of `seed`.
    public func queueType(seed: UInt64) -> QueueType {
        switch self {
        case .classic: return .classic
        case .quorum: return .quorum
        case .mixed:
            var random = SeededRandom(seed: seed ^ 0x0051_0E0E)
            return random.chance(0.5) ? .quorum : .classic
        }
    }
}
