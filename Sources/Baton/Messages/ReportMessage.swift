import Foundation

/// What a worker sends the coordinator on the results queue about one attempt: it started,
/// it ended (`result`), it made progress, or it wrote a log line.
///
/// On the wire: `{"v": 1, "type", "run", "node", "attempt", ...}` with, per type,
/// `started`: `worker`, `at`; `result`: `phase`?, `worker`?, `started_at`?, `finished_at`?,
/// `status` (`succeeded` with `output`, `spawned` with `spawn` (the graph to run in the node's place),
/// or `failed` with `error` and `permanent`);
/// `progress`: `fraction`, `message`?; `log`: `message`. Times are seconds since 1970.
public struct ReportMessage: Sendable, Codable {
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
    public var fraction: Double?
    public var message: String?
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

    /// The scheduler event this report stands for.
    public var event: SchedulerEvent {
        switch kind {
        case .started:
            return .started(key: key, attempt: attempt, worker: worker ?? "?", at: startedAt)
        case .result:
            let outcome: NodeResult.Outcome =
                failure.map { .failed(message: $0.message, permanent: $0.permanent) }
                ?? (spawned ? .spawned(output ?? .null) : .succeeded(output ?? .null))
            return .result(
                NodeResult(
                    key: key, attempt: attempt, phase: phase, outcome: outcome, worker: worker,
                    startedAt: startedAt, finishedAt: finishedAt))
        case .progress:
            return .progress(key: key, attempt: attempt, fraction: fraction ?? 0, message: message)
        case .log:
            return .log(key: key, attempt: attempt, message: message ?? "")
        }
    }

    enum CodingKeys: String, CodingKey {
        case v, type, run, node, attempt, phase, worker, at, status, output, spawn, error, permanent, fraction, message
        case startedAt = "started_at", finishedAt = "finished_at"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try WireFormat.checkVersion(c, key: .v, what: "report")
        self.init(
            kind: try c.decode(Kind.self, forKey: .type), runID: try c.decode(String.self, forKey: .run),
            key: try c.decode(String.self, forKey: .node), attempt: try c.decode(Int.self, forKey: .attempt))
        func date(_ key: CodingKeys) throws -> Date? { try c.decodeIfPresent(Double.self, forKey: key).map(Date.init(timeIntervalSince1970:)) }
        worker = try c.decodeIfPresent(String.self, forKey: .worker)
        switch kind {
        case .started:
            startedAt = try date(.at)
        case .result:
            phase = try c.decodeIfPresent(TaskPhase.self, forKey: .phase) ?? .run
            startedAt = try date(.startedAt)
            finishedAt = try date(.finishedAt)
            switch try c.decode(String.self, forKey: .status) {
            case "succeeded": output = try c.decodeIfPresent(JSON.self, forKey: .output) ?? .null
            case "spawned":
                output = try c.decode(JSON.self, forKey: .spawn)
                spawned = true
            case "failed":
                failure = (try c.decode(String.self, forKey: .error), try c.decodeIfPresent(Bool.self, forKey: .permanent) ?? false)
            case let other: throw MessageError("report: result has unknown status '\(other)'")
            }
        case .progress:
            let fraction = try c.decode(Double.self, forKey: .fraction)
            guard fraction.isFinite else { throw MessageError("report: progress fraction is not a finite number") }
            self.fraction = min(max(fraction, 0), 1)
            message = try c.decodeIfPresent(String.self, forKey: .message)
        case .log:
            message = try c.decode(String.self, forKey: .message)
        }
    }

    /// The `Codable` form: a result's output is written from `output`; one that is still encoded
    /// (`encodedOutput`, the sending side) goes out only through `encoded()`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(WireFormat.version, forKey: .v)
        try c.encode(kind, forKey: .type)
        try c.encode(runID, forKey: .run)
        try c.encode(key, forKey: .node)
        try c.encode(attempt, forKey: .attempt)
        try c.encodeIfPresent(worker, forKey: .worker)
        switch kind {
        case .started:
            try c.encodeIfPresent(startedAt?.timeIntervalSince1970, forKey: .at)
        case .result:
            if phase != .run { try c.encode(phase, forKey: .phase) }
            try c.encodeIfPresent(startedAt?.timeIntervalSince1970, forKey: .startedAt)
            try c.encodeIfPresent(finishedAt?.timeIntervalSince1970, forKey: .finishedAt)
            if let failure {
                try c.encode("failed", forKey: .status)
                try c.encode(failure.message, forKey: .error)
                try c.encode(failure.permanent, forKey: .permanent)
            } else {
                try c.encode(spawned ? "spawned" : "succeeded", forKey: .status)
                if encodedOutput == nil { try c.encode(output ?? .null, forKey: spawned ? .spawn : .output) }
            }
        case .progress:
            try c.encodeIfPresent(fraction, forKey: .fraction)
            try c.encodeIfPresent(message, forKey: .message)
        case .log:
            try c.encodeIfPresent(message, forKey: .message)
        }
    }

    /// The message body. `started` and `result` reports are written directly (`written()`, a result's
    /// encoded output spliced in as it is, not serialized again); progress and log through `Codable`.
    public func encoded() -> [UInt8] { written() ?? WireFormat.encode(self) }

    public init(decoding bytes: [UInt8]) throws {
        self = try Self.read(bytes) ?? WireFormat.decode(Self.self, from: bytes, what: "report")
    }
}
