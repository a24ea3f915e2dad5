import Foundation

/// A node's new state, with only the fields this transition sets.
public struct NodeChange: Sendable, Equatable {
    public let key: String
    public let status: NodeStatus
    public let attempt: Int
    public var input: JSON?
    public var output: JSON?
    public var error: String?
    /// The type name of the error the procedure threw, when this change records that failure.
    public var errorType: String?
    public var worker: String?
    public var startedAt: Date?
    public var finishedAt: Date?
    /// The event kind when it is not the status itself (`retrying`, `timed_out`, `reset`).
    public var event: EventKind?
    /// When a waiting node goes on.
    public var dueAt: Date?
    /// The node's bookkeeping after this change (`NodeState.bookkeeping`).
    public var bookkeeping: JSON?
    /// True when this transition starts the node afresh: earlier output, times and worker are cleared.
    public var reset: Bool = false
    /// More members for the event's detail (what a node waits for: `rate`, `limit`, `per`).
    public var detail: JSONObject?
    /// The token of the attempt this change queues (stored with the node, in the same commit); never shown.
    public var attemptToken: AttemptToken?

    public init(
        key: String, status: NodeStatus, attempt: Int, input: JSON? = nil, output: JSON? = nil,
        error: String? = nil, worker: String? = nil, startedAt: Date? = nil, finishedAt: Date? = nil,
        event: EventKind? = nil, dueAt: Date? = nil
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

extension NodeChange {
    /// The kind of the event this change is recorded as, the same on a cluster (`baton.events`)
    /// and in a test run (`TestRun.events`): `started` for a node that begins running, its named
    /// event (`retrying`, `timed_out`, ...) if it has one, else its new status (`queued`,
    /// `succeeded`, `failed`, `skipped`, `cancelled`, ...).
    public var eventKind: EventKind { event ?? EventKind(status: status) }
}
