import Foundation

/// What the scheduler asks its shell to do. Persisting commands are written in
/// one transaction; dispatches are published only after that commits.
public enum SchedulerCommand: Sendable {
    /// The run's status changed (with the reason when it failed).
    case runStatus(RunStatus, error: String?)
    /// A node changed state; the store writes the row and an event for it.
    case node(NodeChange)
    /// Send a task to a worker of the node's pool.
    case dispatch(TaskDispatch)
}

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

    public init(key: String, status: NodeStatus, attempt: Int, input: JSON? = nil, output: JSON? = nil,
                error: String? = nil, worker: String? = nil, startedAt: Date? = nil, finishedAt: Date? = nil) {
        self.key = key
        self.status = status
        self.attempt = attempt
        self.input = input
        self.output = output
        self.error = error
        self.worker = worker
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

/// One attempt of a node, ready for a worker: the input is already resolved.
public struct TaskDispatch: Sendable, Equatable {
    public let runID: String
    public let key: String
    public let attempt: Int
    public let procedure: String
    public let input: JSON
    public let pool: String
    public let priority: Int

    public init(runID: String, key: String, attempt: Int, procedure: String, input: JSON, pool: String, priority: Int) {
        self.runID = runID
        self.key = key
        self.attempt = attempt
        self.procedure = procedure
        self.input = input
        self.pool = pool
        self.priority = priority
    }
}
