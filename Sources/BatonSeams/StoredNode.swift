/// A node's row as `loadRun` reads it back, a plain value both stores produce (`Store` from its
/// query, `MemoryStore` from its table); `StoredRunNodes` turns rows into the run's node states.
public struct StoredNode: Sendable {
    public var key: String
    /// The status column as stored (checked when read).
    public var status: String
    public var attempts: Int
    /// Read only for a queued node (its task may go out again as it was): nil otherwise is fine.
    public var input: StoredJSON?
    public var output: StoredJSON?
    public var error: String?
    public var worker: String?
    /// `NodeState.bookkeeping` as stored.
    public var scheduler: StoredJSON?
    /// The children the node expanded into (nil: none).
    public var fragment: StoredJSON?
    public var attemptToken: String?
    /// The batch that last queued the node is confirmed published.
    public var confirmed: Bool

    public init(
        key: String, status: String, attempts: Int, input: StoredJSON?, output: StoredJSON?, error: String?, worker: String?,
        scheduler: StoredJSON?, fragment: StoredJSON?, attemptToken: String?, confirmed: Bool
    ) {
        self.key = key
        self.status = status
        self.attempts = attempts
        self.input = input
        self.output = output
        self.error = error
        self.worker = worker
        self.scheduler = scheduler
        self.fragment = fragment
        self.attemptToken = attemptToken
        self.confirmed = confirmed
    }
}
