import Baton

/// What a coordinator's commits prove it still owns (`Store.fence`): its id and the epoch of each
/// partition it holds. A commit for a run of a partition not held, or whose epoch has moved on,
/// writes nothing and fails with SQLSTATE BT001 (`SQLState.partitionLost`).
public struct PartitionFence: Sendable, Equatable {
    public var coordinator: String
    /// The schema's partition count (`RunPartition.of`).
    public var count: Int
    /// Partition -> the epoch this coordinator acquired it under.
    public var epochs: [Int: Int64]

    public init(coordinator: String, count: Int, epochs: [Int: Int64]) {
        self.coordinator = coordinator
        self.count = count
        self.epochs = epochs
    }

    /// Whether `runID`'s partition is held.
    public func holds(_ runID: String) -> Bool { epochs[RunPartition.of(runID, count: count)] != nil }

    /// The runs a batch is for, which the fence must cover: every run in it (one with no commands
    /// had a report acked with the batch, which only its partition's owner may do), and those whose
    /// holds it changes.
    public static func runs(of batch: [(runID: String, commands: [SchedulerCommand])], holds: [HoldChange]) -> [String] {
        batch.map(\.runID) + holds.map(\.runID)
    }
}
