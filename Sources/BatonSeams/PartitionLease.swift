/// One partition's row (`baton.partitions`): its owner while the lease runs, and its epoch.
public struct PartitionLease: Sendable, Equatable, Codable {
    public let partition: Int
    /// The coordinator that holds it; nil when released.
    public let owner: String?
    /// Grows by one at every change of owner.
    public let epoch: Int64
    /// Seconds until the lease runs out, on the database's clock (negative: expired; nil: none).
    public let secondsLeft: Double?
    /// The owner's database session ended (it crashed): free before its lease runs out.
    public let ownerGone: Bool

    enum CodingKeys: String, CodingKey {
        case partition, owner, epoch
        case secondsLeft = "seconds_left", ownerGone = "owner_gone"
    }

    public init(partition: Int, owner: String?, epoch: Int64, secondsLeft: Double?, ownerGone: Bool = false) {
        self.partition = partition
        self.owner = owner
        self.epoch = epoch
        self.secondsLeft = secondsLeft
        self.ownerGone = ownerGone
    }

    /// Whether a coordinator may take it: released, its lease ran out, or its owner's session ended.
    public var isFree: Bool { owner == nil || (secondsLeft ?? -1) <= 0 || ownerGone }
}
