/// Sent by the coordinator to every worker: stop these attempts (cancelled or timed out).
/// On the wire: `{"v": 1, "type": "cancel", "run", "attempts": [{"node", "attempt"}]}`.
public struct ControlMessage: Sendable, Equatable, Codable {
    public let runID: String
    public let attempts: [TaskRef]

    public init(runID: String, attempts: [TaskRef]) {
        self.runID = runID
        self.attempts = attempts
    }

    enum CodingKeys: String, CodingKey { case v, type, run, attempts }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try WireFormat.checkVersion(c, key: .v, what: "control message")
        let type = try c.decode(String.self, forKey: .type)
        guard type == "cancel" else { throw MessageError("control message of unknown type '\(type)'") }
        self.init(runID: try c.decode(String.self, forKey: .run), attempts: try c.decode([TaskRef].self, forKey: .attempts))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(WireFormat.version, forKey: .v)
        try c.encode("cancel", forKey: .type)
        try c.encode(runID, forKey: .run)
        try c.encode(attempts, forKey: .attempts)
    }

    public func encoded() -> [UInt8] { WireFormat.encode(self) }

    public init(decoding bytes: [UInt8]) throws { self = try WireFormat.decode(Self.self, from: bytes, what: "control message") }
}
