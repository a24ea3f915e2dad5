/// Everything about how a node runs besides what it runs: the control-flow fields of a graph node.
public struct NodePolicies: Sendable, Equatable, Codable {
    public var dependencies: DependencyRule = .allSucceeded
    /// Runs only if this is JSON `true`; otherwise the node is skipped.
    public var when: Template?
    public var condition: ConditionSpec?
    public var onFailure: FailurePolicy = .fail
    public var retry: RetryPolicy?
    public var repeatPolicy: RepeatPolicy?
    /// Seconds an attempt may run.
    public var timeout: Double?
    /// Mutex categories the node holds while queued or running (all or none).
    public var mutex: [String]?
    public var concurrency: ConcurrencyPolicy?
    public var cache: CachePolicy?
    public var rate: RatePolicy?
    public var fair: FairPolicy?

    /// Whether the node must be admitted (`.acquire`) before it is queued.
    public var needsAdmission: Bool { mutex != nil || concurrency != nil || cache != nil || rate != nil || fair != nil }

    public init() {}
}
