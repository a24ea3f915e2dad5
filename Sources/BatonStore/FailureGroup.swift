import Foundation

/// Failed nodes that share a procedure and the type of error it threw, as the dashboard groups
/// them (`Store.failureGroups(ofRuns:)`).
public struct FailureGroup: Sendable, Equatable, Codable {
    public let procedure: String
    /// `nodes.error_type`; nil for a `ProcedureFailure` and for failures the coordinator decided
    /// (a timeout, an input that did not resolve).
    public let errorType: String?
    /// How many failed nodes, and in how many runs.
    public let nodes: Int
    public let runs: Int
    /// The error of the latest of them, its run and node, and when it failed.
    public let latestError: String?
    public let latestRunID: String
    public let latestNode: String
    public let latestAt: String?

    enum CodingKeys: String, CodingKey {
        case procedure, nodes, runs
        case errorType = "error_type", latestError = "latest_error", latestRunID = "latest_run_id", latestNode = "latest_node"
        case latestAt = "latest_at"
    }

    public init(
        procedure: String, errorType: String?, nodes: Int, runs: Int, latestError: String?, latestRunID: String, latestNode: String,
        latestAt: String?
    ) {
        self.procedure = procedure
        self.errorType = errorType
        self.nodes = nodes
        self.runs = runs
        self.latestError = latestError
        self.latestRunID = latestRunID
        self.latestNode = latestNode
        self.latestAt = latestAt
    }
}
