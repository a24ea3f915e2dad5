import Baton

/// A run a schedule fired: its id, status, idempotency key and submission time (seconds since the epoch).
public struct ScheduleRun: Sendable, Equatable {
    public let id: String
    public let status: RunStatus
    public let key: String
    public let submittedAt: Double

    public init(id: String, status: RunStatus, key: String, submittedAt: Double) {
        self.id = id
        self.status = status
        self.key = key
        self.submittedAt = submittedAt
    }
}
