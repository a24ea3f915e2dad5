import Foundation

/// What the scheduler asks its shell to do. Persisting commands are written in
/// one transaction; dispatches and cancel signals are sent only after that commits.
public enum SchedulerCommand: Sendable {
    /// The run's status changed (with the reason when it failed or was cancelled).
    case runStatus(RunStatus, error: String?)
    /// A node changed state; the store writes the row and an event for it.
    case node(NodeChange)
    /// Send a task to a worker of the node's pool.
    case dispatch(TaskDispatch)
    /// Tell workers to stop these attempts (the node was cancelled or timed out).
    case cancelTasks(runID: String, attempts: [TaskRef])
    /// An event that is not a state change (progress, log lines).
    case event(key: String, kind: String, detail: JSON)
}

/// One attempt of one node.
public struct TaskRef: Sendable, Equatable, Hashable {
    public let key: String
    public let attempt: Int
    public init(key: String, attempt: Int) {
        self.key = key
        self.attempt = attempt
    }
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
    /// The event kind when it is not the status itself (`retrying`, `timed_out`, `reset`).
    public var event: String?
    /// When a waiting node goes on.
    public var dueAt: Date?
    /// The node's bookkeeping after this change (`NodeState.bookkeeping`).
    public var bookkeeping: JSON?
    /// True when this transition starts the node afresh: earlier output, times and worker are cleared.
    public var reset: Bool = false

    public init(key: String, status: NodeStatus, attempt: Int, input: JSON? = nil, output: JSON? = nil,
                error: String? = nil, worker: String? = nil, startedAt: Date? = nil, finishedAt: Date? = nil,
                event: String? = nil, dueAt: Date? = nil) {
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

/// One attempt of a node (or of its condition), ready for a worker: the input is already resolved.
public struct TaskDispatch: Sendable, Equatable {
    public let runID: String
    public let key: String
    public let attempt: Int
    public let procedure: String
    public let input: JSON
    public let pool: String
    public let priority: Int
    public var phase: TaskPhase
    /// Seconds the worker lets the attempt run before cancelling it.
    public var timeout: Double?
    /// For `repeat`: the output of the previous run.
    public var previousOutput: JSON?

    public init(runID: String, key: String, attempt: Int, procedure: String, input: JSON, pool: String, priority: Int,
                phase: TaskPhase = .run, timeout: Double? = nil, previousOutput: JSON? = nil) {
        self.runID = runID
        self.key = key
        self.attempt = attempt
        self.procedure = procedure
        self.input = input
        self.pool = pool
        self.priority = priority
        self.phase = phase
        self.timeout = timeout
        self.previousOutput = previousOutput
    }
}
