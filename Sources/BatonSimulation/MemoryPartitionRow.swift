import Foundation

/// A row of `baton.partitions` in a `MemoryStore`: its owner, epoch and lease end (database clock).
struct MemoryPartitionRow: Equatable {
    let partition: Int
    var owner: String?
    var epoch: Int64 = 0
    var leaseUntil: Date?

    init(partition: Int) { self.partition = partition }
}
