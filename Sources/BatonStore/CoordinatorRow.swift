/// A live coordinator as `baton coordinators` shows it: what it announced, and the partitions it
/// holds with their epochs.
public struct CoordinatorRow: Sendable, Codable, Equatable {
    /// One partition it holds.
    public struct Held: Sendable, Codable, Equatable {
        public let partition: Int
        public let epoch: Int64

        public init(partition: Int, epoch: Int64) {
            self.partition = partition
            self.epoch = epoch
        }
    }

    public let id: String
    public let host: String
    public let pid: Int
    public let startedAt: String
    public let secondsSinceSeen: Double
    public let runs: Int
    public let nodesPerSecond: Double
    public let partitions: [Held]

    public init(
        id: String, host: String, pid: Int, startedAt: String, secondsSinceSeen: Double, runs: Int, nodesPerSecond: Double,
        partitions: [Held]
    ) {
        self.id = id
        self.host = host
        self.pid = pid
        self.startedAt = startedAt
        self.secondsSinceSeen = secondsSinceSeen
        self.runs = runs
        self.nodesPerSecond = nodesPerSecond
        self.partitions = partitions
    }

    /// The epochs of its partitions, as `5` or `2-7` (`-` for none).
    public var epochRange: String {
        let epochs = partitions.map(\.epoch)
        guard let low = epochs.min(), let high = epochs.max() else { return "-" }
        return low == high ? "\(low)" : "\(low)-\(high)"
    }

    enum CodingKeys: String, CodingKey {
        case id, host, pid, runs, partitions
        case startedAt = "started_at", secondsSinceSeen = "seconds_since_seen", nodesPerSecond = "nodes_per_second"
    }
}
