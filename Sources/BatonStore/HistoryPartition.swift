import Foundation

/// One time partition of the history: the tables `baton.runs_<suffix>`, `nodes_<suffix>`,
/// `edges_<suffix>` and `events_<suffix>`, holding runs submitted in [from, to).
public struct HistoryPartition: Sendable, Equatable {
    public let suffix: String
    /// Seconds since 1970.
    public let from: Double
    public let to: Double

    public init(suffix: String, from: Double, to: Double) {
        self.suffix = suffix
        self.from = from
        self.to = to
    }
}
