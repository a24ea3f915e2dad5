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

    public init() {}
}

/// When a node whose dependencies have all ended may run.
public enum DependencyRule: String, Sendable, Equatable, Codable {
    /// Runs if all succeeded; cancelled if any failed or was cancelled; otherwise skipped.
    case allSucceeded = "all-succeeded"
    /// Runs unless a dependency failed or was cancelled (then cancelled).
    case noneFailed = "none-failed"
    /// Always runs: a "finally".
    case allFinished = "all-finished"
}

/// What a node's failure means for its dependents.
public enum FailurePolicy: String, Sendable, Equatable, Codable {
    /// Dependents see a failure (default).
    case fail
    /// The node ends `failed`, but dependents treat it as succeeded with a `null` output.
    case ignore
}

/// `retry`: how many attempts, and how long to wait between them.
public struct RetryPolicy: Sendable, Equatable, Codable {
    public let attempts: Int
    public let wait: WaitStrategy
    public let jitter: Bool

    public init(attempts: Int, wait: WaitStrategy = .immediate, jitter: Bool = false) {
        self.attempts = attempts
        self.wait = wait
        self.jitter = jitter
    }

    /// The wait after `failures` failed attempts; jitter spreads it over [½, 1½] of itself.
    public func delay(afterFailures failures: Int, random: Double, jitterRandom: Double) -> Double {
        let base = wait.delay(after: failures, random: random)
        return jitter ? base * (0.5 + jitterRandom) : base
    }
}

/// `repeat`: run again until the output matches.
public struct RepeatPolicy: Sendable, Equatable, Codable {
    public let select: JSONPointer
    public let equals: JSON
    public let wait: WaitStrategy
    /// Most runs in all, the first included.
    public let max: Int
}

/// `condition`: a procedure evaluated on a worker before the node.
public struct ConditionSpec: Sendable, Equatable, Codable {
    public let procedure: String
    public let input: Template
    public let negate: Bool
}
