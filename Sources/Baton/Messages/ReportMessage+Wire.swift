/// A report on the wire: the members below, in wire order, are its one description. Which members a
/// report has depends on its `type` (and a result's on its `status`), which readers read first.
/// A worker writes two per node (started, result) and the coordinator reads them, directly.
extension ReportMessage: WireMessage, Codable {
    static let what = "report"

    static func blank<C: WireCoder>(_ c: inout C) throws -> ReportMessage {
        var kind = Kind.log
        try c.required("type", &kind)
        var m = ReportMessage(kind: kind, runID: "", key: "", attempt: 0)
        if kind == .result {
            var status = ""
            try c.required("status", &status)
            switch status {
            case "succeeded": break
            case "spawned": m.spawned = true
            case "failed": m.failure = ("", false)
            case let other: throw MessageError("report: result has unknown status '\(other)'")
            }
        }
        return m
    }

    static func members<C: WireCoder>(_ c: inout C, _ m: inout ReportMessage) throws {
        let result = m.kind == .result
        let failed = result && m.failure != nil
        let spawned = result && !failed && m.spawned
        // A result's output, or the graph it spawned: on the sending side as the procedure encoded it.
        var output = m.encodedOutput.map(ResultOutput.encoded) ?? .json(m.output ?? .null)
        if m.kind == .started { try c.optional("at", &m.startedAt) }
        try c.required("attempt", &m.attempt)
        if failed { try c.required("error", &m.failure!.message) }
        if failed { try c.optional("error_type", &m.errorType) }
        if result { try c.optional("finished_at", &m.finishedAt) }
        if m.kind == .progress { try c.member("fraction", &m.fraction, required: true) }
        if m.kind == .progress || m.kind == .log { try c.member("message", &m.message, required: m.kind == .log) }
        try c.required("node", &m.key)
        if result && !failed && !spawned { try c.required("output", &output, absent: .json(.null)) }
        if failed { try c.required("permanent", &m.failure!.permanent, absent: false) }
        if result { try c.defaulted("phase", &m.phase, standard: .run) }
        try c.required("run", &m.runID)
        if spawned { try c.required("spawn", &output) }
        if result { try c.optional("started_at", &m.startedAt) }
        if result {
            var status = failed ? "failed" : spawned ? "spawned" : "succeeded"
            try c.required("status", &status)
        }
        try c.optional("token", &m.attemptToken)  // the attempt's token, as the task carried it (absent before tokens)
        try c.required("type", &m.kind)
        try c.version()
        try c.optional("worker", &m.worker)
        if result && !failed, case let .json(value) = output { m.output = value }
    }

    static func checked(_ m: ReportMessage) throws -> ReportMessage {
        var m = m
        if let type = m.errorType {  // a name to group by: no NUL (a text column refuses it), at most 200 characters
            let clean = String(type.replacingOccurrences(of: "\u{0}", with: "").prefix(200))
            m.errorType = clean.isEmpty ? nil : clean
        }
        guard m.kind == .progress, let fraction = m.fraction else { return m }
        guard fraction.isFinite else { throw MessageError("report: progress fraction is not a finite number") }
        m.fraction = min(max(fraction, 0), 1)
        return m
    }

    public init(from decoder: Decoder) throws { self = try Self.decoded(from: decoder) }

    /// The `Codable` form: the bytes `encoded()` writes (a result's encoded output is parsed for it).
    public func encode(to encoder: Encoder) throws { try encodeMembers(to: encoder) }

    /// The message body; a result's encoded output is spliced in as it is, not serialized again.
    public func encoded() -> [UInt8] { written(capacity: 256 + (encodedOutput?.bytes.count ?? 0)) }

    public init(decoding bytes: [UInt8]) throws { self = try Self.decoded(from: bytes) }
}
