import Baton

/// What `submit` stored.
public struct SubmittedRun: Sendable {
    public let id: String
    public let status: RunStatus
    /// False when the idempotency key matched an earlier run, which is returned instead.
    public let created: Bool

    /// A submission as a store reports it (the simulator's `MemoryStore` too).
    public init(id: String, status: RunStatus, created: Bool) {
        self.id = id
        self.status = status
        self.created = created
    }
}
