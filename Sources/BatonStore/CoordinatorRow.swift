/// A live coordinator as `baton coordinators` shows it: where it runs, what it owns.
public struct CoordinatorRow: Sendable, Equatable, Codable {
    public let id: String
    public let host: String
    public let pid: Int
    public let startedAt: String
    public let lastSeenAt: String
    public let secondsSinceSeen: Double
    /// The runs it has loaded and the nodes it finished per second, as it last reported them.
    public let runs: Int
    public let nodesPerSecond: Double
    /// The partitions it holds, with their epochs, by partition.
    public let partitions: [PartitionLease]

    enum CodingKeys: String, CodingKey {
        case id, host, pid, runs, partitions
        case startedAt = "started_at", lastSeenAt = "last_seen_at", secondsSinceSeen = "seconds_since_seen"
        case nodesPerSecond = "nodes_per_second"
    }

    public init(
        id: String, host: String, pid: Int, startedAt: String, lastSeenAt: String, secondsSinceSeen: Double, runs: Int,
        nodesPerSecond: Double, partitions: [PartitionLease]
    ) {
        self.id = id
        self.host = host
        self.pid = pid
        self.startedAt = startedAt
        self.lastSeenAt = lastSeenAt
        self.secondsSinceSeen = secondsSinceSeen
        self.runs = runs
        self.nodesPerSecond = nodesPerSecond
        self.partitions = partitions
    }
}
