/// One attempt of a node (or of its condition), ready for a worker: the input is already resolved.
/// On the wire: the members `TaskDispatch.members` lists (TaskDispatch+Wire.swift).
public struct TaskDispatch: Sendable, Equatable {
    public internal(set) var runID: String
    public internal(set) var key: String
    public internal(set) var attempt: Int
    public internal(set) var procedure: String
    public internal(set) var input: JSON
    public internal(set) var pool: String
    public internal(set) var priority: Int
    public var phase: TaskPhase
    /// Seconds the worker lets the attempt run before cancelling it.
    public var timeout: Double?
    /// For `repeat`: the output of the previous run.
    public var previousOutput: JSON?
    /// The run's partition (`RunPartition`), set by the coordinator when it publishes: the worker
    /// routes its reports with it, to the coordinator that owns the run. Absent from tasks of
    /// coordinators from before partitions.
    public var partition: Int?
    /// The W3C trace context of the coordinator's span of this attempt (`--otlp-endpoint`). Not in
    /// the body: the coordinator sends it, and the worker reads it, as the message's `traceparent` header.
    public var traceparent: String?
    /// The attempt's token (`AttemptToken.text`): the worker echoes it in every report of the attempt.
    /// Absent from tasks of coordinators from before tokens, and from the in-process engine's.
    public var attemptToken: String?

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
