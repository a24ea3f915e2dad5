/// What the scheduler knows about one node of a run.
public struct NodeState: Sendable, Equatable {
    public var status: NodeStatus
    /// Attempts started so far; the current attempt's number once queued.
    public var attempt: Int
    /// The resolved input, once the node has been queued.
    public var input: JSON?
    public var output: JSON?
    public var error: String?
    public var worker: String?

    public init(status: NodeStatus = .pending, attempt: Int = 0, input: JSON? = nil, output: JSON? = nil,
                error: String? = nil, worker: String? = nil) {
        self.status = status
        self.attempt = attempt
        self.input = input
        self.output = output
        self.error = error
        self.worker = worker
    }
}
