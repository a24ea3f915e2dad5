import Foundation

/// A row of `baton.partitions` in a `MemoryStore`: its owner, epoch and lease end (database clock),
/// with its row of `baton.publications` (confirmed through, floor).
struct MemoryPartitionRow: Equatable {
    let partition: Int
    var owner: String?
    var epoch: Int64 = 0
    var leaseUntil: Date?
    /// `baton.publications.confirmed_through` of the partition.
    var confirmedThrough: Int64 = 0
    /// `baton.publications.floor`: drawn when the partition last changed owner.
    var floor: Int64 = 0

    init(partition: Int) { self.partition = partition }
}
