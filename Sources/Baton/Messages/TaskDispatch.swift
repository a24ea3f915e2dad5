/// One attempt of a node (or of its condition), ready for a worker: the input is already resolved.
public struct TaskDispatch: Sendable, Equatable {
    public let runID: String
    public let key: String
    public let attempt: Int
    public let procedure: String
    public let input: JSON
    public let pool: String
    public let priority: Int
    public var phase: TaskPhase
    /// Seconds the worker lets the attempt run before cancelling it.
    public var timeout: Double?
    /// For `repeat`: the output of the previous run.
    public var previousOutput: JSON?

    public init(
        runID: String, key: String, attempt: Int, procedure: String, input: JSON, pool: String, priority: Int,
        phase: TaskPhase = .run, timeout: Double? = nil, previousOutput: JSON? = nil
    ) {
        self.runID = runID
        self.key = key
        self.attempt = attempt
        self.procedure = procedure
        self.input = input
        self.pool = pool
        self.priority = priority
        self.phase = phase
        self.timeout = timeout
        self.previousOutput = previousOutput
    }
}

/// On the wire: `{"v": 1, "run", "node", "attempt", "procedure", "input", "pool", "priority",
/// "phase"?, "timeout"?, "previous_output"?}`.
extension TaskDispatch: Codable {
    enum CodingKeys: String, CodingKey {
        case v, run, node, attempt, procedure, input, pool, priority, phase, timeout
        case previousOutput = "previous_output"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try WireFormat.checkVersion(c, key: .v, what: "task message")
        self.init(
            runID: try c.decode(String.self, forKey: .run), key: try c.decode(String.self, forKey: .node),
            attempt: try c.decode(Int.self, forKey: .attempt), procedure: try c.decode(String.self, forKey: .procedure),
            input: try c.decodeIfPresent(JSON.self, forKey: .input) ?? .null, pool: try c.decode(String.self, forKey: .pool),
            priority: try c.decode(Int.self, forKey: .priority),
            phase: try c.decodeIfPresent(TaskPhase.self, forKey: .phase) ?? .run,
            timeout: try c.decodeIfPresent(Double.self, forKey: .timeout),
            previousOutput: try c.decodeIfPresent(JSON.self, forKey: .previousOutput))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(WireFormat.version, forKey: .v)
        try c.encode(runID, forKey: .run)
        try c.encode(key, forKey: .node)
        try c.encode(attempt, forKey: .attempt)
        try c.encode(procedure, forKey: .procedure)
        try c.encode(input, forKey: .input)
        try c.encode(pool, forKey: .pool)
        try c.encode(priority, forKey: .priority)
        if phase != .run { try c.encode(phase, forKey: .phase) }
        try c.encodeIfPresent(timeout, forKey: .timeout)
        try c.encodeIfPresent(previousOutput, forKey: .previousOutput)
    }

    /// The message body.
    public func encoded() -> [UInt8] { written() }

    public init(decoding bytes: [UInt8]) throws {
        self = try Self.read(bytes) ?? WireFormat.decode(Self.self, from: bytes, what: "task message")
    }
}
