/// What a coordinator says about itself every round (`Store.announce`): who it is and how busy.
public struct CoordinatorAnnouncement: Sendable, Equatable {
    /// Unique per process (host, pid and a random part), so a restarted process is a new coordinator.
    public var id: String
    public var host: String
    public var pid: Int
    /// How long its leases last, in seconds: it counts as live while it announced within this.
    public var leaseSeconds: Double
    /// Unfinished runs it holds in memory.
    public var runs: Int
    /// Nodes finished per second over its last minute.
    public var nodesPerSecond: Double

    public init(id: String, host: String, pid: Int, leaseSeconds: Double, runs: Int = 0, nodesPerSecond: Double = 0) {
        self.id = id
        self.host = host
        self.pid = pid
        self.leaseSeconds = leaseSeconds
        self.runs = runs
        self.nodesPerSecond = nodesPerSecond
    }
}
