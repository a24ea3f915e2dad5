import Foundation

/// How one attempt of a node ended. `Output` is the procedure's output: parsed (`JSON`) for the
/// scheduler, or still the bytes the procedure encoded (`EncodedJSON`) on its way from a worker.
public struct AttemptResult<Output: Sendable>: Sendable {
    public typealias Outcome = AttemptOutcome<Output>
    public let key: String
    public let attempt: Int
    public let phase: TaskPhase
    public let outcome: Outcome
    public let worker: String?
    public let startedAt: Date?
    public let finishedAt: Date?
    /// For a failure from an error a procedure threw (not a `ProcedureFailure`): the error's type
    /// name (`ErrorText.typeName`), kept apart from the message so failures can be grouped by it.
    public var errorType: String?

    public init(
        key: String, attempt: Int, phase: TaskPhase = .run, outcome: Outcome, worker: String? = nil,
        startedAt: Date? = nil, finishedAt: Date? = nil
    ) {
        self.key = key
        self.attempt = attempt
        self.phase = phase
        self.outcome = outcome
        self.worker = worker
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// The same result with the output transformed (a failure stays as it is).
    public func mapOutput<New>(_ transform: (Output) throws -> New) rethrows -> AttemptResult<New> {
        let outcome: AttemptOutcome<New>
        switch self.outcome {
        case let .succeeded(output): outcome = .succeeded(try transform(output))
        case let .spawned(document): outcome = .spawned(try transform(document))
        case let .failed(message, permanent): outcome = .failed(message: message, permanent: permanent)
        }
        var mapped = AttemptResult<New>(
            key: key, attempt: attempt, phase: phase, outcome: outcome, worker: worker,
            startedAt: startedAt, finishedAt: finishedAt)
        mapped.errorType = errorType
        return mapped
    }
}

/// How one attempt of a node ended, as the scheduler sees it.
public typealias NodeResult = AttemptResult<JSON>
