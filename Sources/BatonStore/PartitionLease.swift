/// One partition's row (`baton.partitions`): its owner while the lease runs, and its epoch.
public struct PartitionLease: Sendable, Equatable, Codable {
    public let partition: Int
    /// The coordinator that holds it; nil when released.
    public let owner: String?
    /// Grows by one at every change of owner.
    public let epoch: Int64
    /// Seconds until the lease runs out, on the database's clock (negative: expired; nil: none).
    public let secondsLeft: Double?

    enum CodingKeys: String, CodingKey {
        case partition, owner, epoch
        case secondsLeft = "seconds_left"
    }

    public init(partition: Int, owner: String?, epoch: Int64, secondsLeft: Double?) {
        self.partition = partition
        self.owner = owner
        self.epoch = epoch
        self.secondsLeft = secondsLeft
    }

    /// Whether a coordinator may take it: released, or its lease ran out.
    public var isFree: Bool { owner == nil || (secondsLeft ?? -1) <= 0 }
}
