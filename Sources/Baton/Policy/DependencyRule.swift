/// When a node whose dependencies have all ended may run.
public enum DependencyRule: String, Sendable, Equatable, Codable {
    /// Runs if all succeeded; cancelled if any failed or was cancelled; otherwise skipped.
    case allSucceeded = "all-succeeded"
    /// Runs unless a dependency failed or was cancelled (then cancelled).
    case noneFailed = "none-failed"
    /// Always runs: a "finally".
    case allFinished = "all-finished"
}
