/// Sent by the coordinator to every worker: stop these attempts (cancelled or timed out).
/// On the wire: the members `ControlMessage.members` lists (below).
public struct ControlMessage: Sendable, Equatable {
    public internal(set) var runID: String
    public internal(set) var attempts: [TaskRef]

    public init(runID: String, attempts: [TaskRef]) {
        self.runID = runID
        self.attempts = attempts
    }
}

extension ControlMessage: WireMessage, Codable {
    static let what = "control message"

    /// The one type there is, `cancel`, checked first.
    static func blank<C: WireCoder>(_ c: inout C) throws -> ControlMessage {
        var type = ""
        try c.required("type", &type)
        guard type == "cancel" else { throw MessageError("control message of unknown type '\(type)'") }
        return ControlMessage(runID: "", attempts: [])
    }

    static func members<C: WireCoder>(_ c: inout C, _ m: inout ControlMessage) throws {
        try c.required("attempts", &m.attempts)  // each `{"attempt", "node"}`
        try c.required("run", &m.runID)
        var type = "cancel"
        try c.required("type", &type)
        try c.version()
    }

    public init(from decoder: Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Encoder) throws { try encodeMembers(to: encoder) }

    public func encoded() -> [UInt8] { written(capacity: 64 + 40 * attempts.count) }

    public init(decoding bytes: [UInt8]) throws { self = try Self.decoded(from: bytes) }
}
