import Foundation

/// A node's new state, with only the fields this transition sets.
public struct NodeChange: Sendable, Equatable {
    public let key: String
    public let status: NodeStatus
    public let attempt: Int
    public var input: JSON?
    public var output: JSON?
    public var error: String?
    public var worker: String?
    public var startedAt: Date?
    public var finishedAt: Date?
    /// The event kind when it is not the status itself (`retrying`, `timed_out`, `reset`).
    public var event: String?
    /// When a waiting node goes on.
    public var dueAt: Date?
    /// The node's bookkeeping after this change (`NodeState.bookkeeping`).
    public var bookkeeping: JSON?
    /// True when this transition starts the node afresh: earlier output, times and worker are cleared.
    public var reset: Bool = false

    public init(
        key: String, status: NodeStatus, attempt: Int, input: JSON? = nil, output: JSON? = nil,
        error: String? = nil, worker: String? = nil, startedAt: Date? = nil, finishedAt: Date? = nil,
        event: String? = nil, dueAt: Date? = nil
    ) {
        self.key = key
        self.status = status
        self.attempt = attempt
        self.input = input
        self.output = output
        self.error = error
        self.worker = worker
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.event = event
        self.dueAt = dueAt
    }
}
