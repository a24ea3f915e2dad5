import Foundation

/// What a worker sends the coordinator on the results queue about one attempt: it started,
/// it ended (`result`), it made progress, or it wrote a log line.
/// On the wire: the members `ReportMessage.members` lists (ReportMessage+Wire.swift).
public struct ReportMessage: Sendable {
    public enum Kind: String, Sendable, Codable { case started, result, progress, log }
    public var kind: Kind
    public var runID: String
    public var key: String
    public var attempt: Int
    public var phase: TaskPhase = .run
    public var worker: String?
    public var startedAt: Date?
    public var finishedAt: Date?
    /// For a result: the output when it succeeded (nil on the sending side, which splices the encoded bytes in).
    public var output: JSON?
    /// For a result: true if `output` is a graph the procedure returned to run in its place.
    public var spawned = false
    public var failure: (message: String, permanent: Bool)?
    /// For a failed result: the type name of the error the procedure threw (`AttemptResult.errorType`).
    public var errorType: String?
    public var fraction: Double?
    public var message: String?
    /// The token of the task this report is about (`TaskDispatch.attemptToken`), echoed as it came.
    public var attemptToken: String?
    /// A result's output as the procedure encoded it (sending side only).
    var encodedOutput: EncodedJSON?

    init(kind: Kind, runID: String, key: String, attempt: Int) {
        self.kind = kind
        self.runID = runID
        self.key = key
        self.attempt = attempt
    }

    public static func started(runID: String, key: String, attempt: Int, worker: String, at: Date) -> ReportMessage {
        var m = ReportMessage(kind: .started, runID: runID, key: key, attempt: attempt)
        m.worker = worker
        m.startedAt = at
        return m
    }

    /// A finished attempt whose output is still the bytes the procedure encoded: they go out as they are.
    public static func result(runID: String, _ result: AttemptResult<EncodedJSON>) -> ReportMessage {
        var m = ReportMessage(kind: .result, runID: runID, key: result.key, attempt: result.attempt)
        m.phase = result.phase
        m.worker = result.worker
        m.startedAt = result.startedAt
        m.finishedAt = result.finishedAt
        m.errorType = result.errorType
        switch result.outcome {
        case let .succeeded(output): m.encodedOutput = output
        case let .spawned(document):
            m.encodedOutput = document
            m.spawned = true
        case let .failed(message, permanent): m.failure = (message, permanent)
        }
        return m
    }

    public static func progress(runID: String, key: String, attempt: Int, fraction: Double, message: String?) -> ReportMessage {
        var m = ReportMessage(kind: .progress, runID: runID, key: key, attempt: attempt)
        m.fraction = fraction
        m.message = message
        return m
    }

    public static func log(runID: String, key: String, attempt: Int, message: String) -> ReportMessage {
        var m = ReportMessage(kind: .log, runID: runID, key: key, attempt: attempt)
        m.message = message
        return m
    }

    /// This report, carrying the token of `task` (the task it is about).
    public func echoing(_ task: TaskDispatch) -> ReportMessage {
        var m = self
        m.attemptToken = task.attemptToken
        return m
    }

    /// The scheduler event this report stands for.
    public var event: SchedulerEvent {
        switch kind {
        case .started:
            return .started(key: key, attempt: attempt, worker: worker ?? "?", at: startedAt)
        case .result:
            let outcome: NodeResult.Outcome =
                failure.map { .failed(message: $0.message, permanent: $0.permanent) }
                ?? (spawned ? .spawned(output ?? .null) : .succeeded(output ?? .null))
            var result = NodeResult(
                key: key, attempt: attempt, phase: phase, outcome: outcome, worker: worker, startedAt: startedAt, finishedAt: finishedAt)
            result.errorType = failure == nil ? nil : errorType
            return .result(result)
        case .progress:
            return .progress(key: key, attempt: attempt, fraction: fraction ?? 0, message: message)
        case .log:
            return .log(key: key, attempt: attempt, message: message ?? "")
        }
    }
}
