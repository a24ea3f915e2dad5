import Baton

/// A run as the server answered for it: its id and status, and once it ended, its top-level
/// nodes' outputs by key and why it failed or was cancelled.
public struct RunResult: Sendable, Equatable {
    public let id: String
    public let status: RunStatus
    /// Each top-level node's output by key once the run ended; null before.
    public let outputs: JSON
    public let error: String?
    /// For a submit: false when an `Idempotency-Key` named an earlier run, which is this one.
    public let created: Bool

    public init(id: String, status: RunStatus, outputs: JSON = .null, error: String? = nil, created: Bool = true) {
        self.id = id
        self.status = status
        self.outputs = outputs
        self.error = error
        self.created = created
    }

    /// Whether the run has ended (succeeded, failed or cancelled).
    public var hasEnded: Bool { status.isTerminal }
}
