/// What a node's failure means for its dependents.
public enum FailurePolicy: String, Sendable, Equatable, Codable {
    /// Dependents see a failure (default).
    case fail
    /// The node ends `failed`, but dependents treat it as succeeded with a `null` output.
    case ignore
}
