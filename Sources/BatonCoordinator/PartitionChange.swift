/// How a coordinator's set of partitions changed (`baton_coordinator_partition_changes_total`).
public enum PartitionChange: String, Sendable, CaseIterable {
    /// Taken: free, or held by this coordinator before it reconnected.
    case acquired
    /// Handed over cleanly (beyond its share, or stopping).
    case released
    /// Taken over by another coordinator (its lease ran out while this one stalled).
    case lost
}
