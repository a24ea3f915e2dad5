import Foundation

/// Something that happened to a run, fed into `RunState.handle(_:)`.
public enum SchedulerEvent: Sendable {
    /// Start the run, or resume it after a coordinator restart: dispatches what
    /// is ready and publishes again whatever was queued or running.
    case start
    /// A worker began an attempt.
    case started(key: String, attempt: Int, worker: String, at: Date?)
    /// A worker reported how an attempt ended.
    case result(NodeResult)
}

/// How one attempt of a node ended, as a worker reports it.
public struct NodeResult: Sendable {
    public let key: String
    public let attempt: Int
    public let outcome: Outcome
    public let worker: String?
    public let startedAt: Date?
    public let finishedAt: Date?

    public enum Outcome: Sendable, Equatable {
        case succeeded(JSON)
        case failed(message: String, permanent: Bool)
    }

    public init(key: String, attempt: Int, outcome: Outcome, worker: String? = nil, startedAt: Date? = nil, finishedAt: Date? = nil) {
        self.key = key
        self.attempt = attempt
        self.outcome = outcome
        self.worker = worker
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}
