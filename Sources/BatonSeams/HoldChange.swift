import Baton

/// A change to `baton.holds` (mutex, concurrency and cache requests) a batch writes for one of its
/// runs. Grants are not among them: any coordinator grants waiting holds, of every run, under one
/// lock after its commit (`Store.grantWaiting`).
public enum HoldChange: Sendable, Equatable {
    /// A node asks for `request` (numbered by the database: first come, first served).
    case insert(runID: String, request: AdmissionRequest)
    /// A node gives back what it holds or waits for.
    case release(runID: String, key: String)
    /// The run's node was told of the grant of hold `seq`.
    case told(runID: String, seq: Int64)

    /// The run it concerns.
    public var runID: String {
        switch self {
        case let .insert(runID, _), let .release(runID, _), let .told(runID, _): runID
        }
    }
}
