/// How big the run history is now: its rows, and its tables on disk.
public struct HistorySize: Sendable, Equatable {
    public let runs: Int
    public let nodes: Int
    /// `baton.runs`, `baton.nodes`, `baton.events` and `baton.edges` with their indexes and TOAST, in MB.
    public let megabytes: Double
}
