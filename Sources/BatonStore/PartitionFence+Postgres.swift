import Baton
import BatonPostgres
import BatonSeams

/// The fence as PostgreSQL sees it: its parameter, and the error `baton.require_epochs` raises.
extension PartitionFence {
    /// The partitions held, as a PostgreSQL `int[]` literal.
    public var heldParameter: String { PGArray.literal(epochs.keys.sorted().map(String.init)) }

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
