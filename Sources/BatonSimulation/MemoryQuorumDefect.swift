/// A way the `MemoryBroker` can get quorum queues wrong on purpose, so a test can show that the
/// simulator's quorum invariants catch it (`SimulationOptions.quorumDefects`; never set otherwise).
enum MemoryQuorumDefect: Sendable, Hashable {
    /// Redeliveries carry no `x-delivery-count`: the queue does not count.
    case uncounted
    /// The queue never dead-letters a task past its `x-delivery-limit`.
    case unlimited
    /// Workers are handed tasks whose own priority says the opposite of their band (9 - p), so the
    /// worker's `SlotQueue` orders them against the bands, as a wrong order in it would.
    case invertedPriorities
}
