import Baton
import BatonPostgres

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

    /// The partitions held, as a PostgreSQL `int[]` literal.
    public var heldParameter: String { PGArray.literal(epochs.keys.sorted().map(String.init)) }

    /// Whether `runID`'s partition is held.
    public func holds(_ runID: String) -> Bool { epochs[RunPartition.of(runID, count: count)] != nil }

    /// The runs a batch is for, which the fence must cover: every run in it (one with no commands
    /// had a report acked with the batch, which only its partition's owner may do), and those whose
    /// holds it changes.
    public static func runs(of batch: [(runID: String, commands: [SchedulerCommand])], holds: [HoldChange]) -> [String] {
        batch.map(\.runID) + holds.map(\.runID)
    }

    /// The partitions of `runIDs` with the epochs held, sorted by partition; a partition not held
    /// throws as PostgreSQL would.
    public func claims(for runIDs: some Sequence<String>) throws -> [(partition: Int, epoch: Int64)] {
        let parts = Set(runIDs.map { RunPartition.of($0, count: count) }).sorted()
        return try parts.map { part in
            guard let epoch = epochs[part] else { throw Self.lost(coordinator, [part]) }
            return (part, epoch)
        }
    }

    /// The error `baton.require_epochs` raises for `parts` (as PostgreSQL words it).
    public static func lost(_ coordinator: String, _ parts: [Int]) -> any Error {
        DatabaseError.statement(
            "baton: coordinator \(coordinator) no longer holds all of partitions {\(parts.map(String.init).joined(separator: ","))}",
            sqlState: SQLState.partitionLost.rawValue)
    }
}
