/// A task on the wire: the members below, in wire order, are its one description. The coordinator
/// writes one and a worker reads one per node, directly (through Foundation's coders that cost
/// several microseconds each).
extension TaskDispatch: WireMessage, Codable {
    static let what = "task message"

    static func blank<C: WireCoder>(_ coder: inout C) throws -> TaskDispatch {
        TaskDispatch(runID: "", key: "", attempt: 0, procedure: "", input: .null, pool: "", priority: 0)
    }

    static func members<C: WireCoder>(_ c: inout C, _ m: inout TaskDispatch) throws {
        try c.required("attempt", &m.attempt)
        try c.required("input", &m.input, absent: .null)
        try c.required("node", &m.key)
        try c.optional("partition", &m.partition)  // routes the reports (absent from tasks of coordinators before partitions)
        try c.defaulted("phase", &m.phase, standard: .run)  // absent for a node's own run, "condition" for its condition
        try c.required("pool", &m.pool)
        try c.optional("previous_output", &m.previousOutput)  // for `repeat`, from the second run on
        try c.required("priority", &m.priority)
        try c.required("procedure", &m.procedure)
        try c.required("run", &m.runID)
        try c.optional("timeout", &m.timeout)  // seconds
        try c.optional("token", &m.attemptToken)  // the attempt's token, echoed in its reports (absent before tokens)
        try c.version()
    }

    public init(from decoder: Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Encoder) throws { try encodeMembers(to: encoder) }

    /// The message body.
    public func encoded() -> [UInt8] { written(capacity: 256) }

    public init(decoding bytes: [UInt8]) throws { self = try Self.decoded(from: bytes) }
}
