/// Graph-wide `defaults` for every node that does not set the field itself.
public struct GraphDefaults: Sendable {
    public var pool: String?
    public var priority: Int?
    public var retry: RetryPolicy?
    public var timeout: Duration?
    public var dependencies: DependencyRule?
    public var onFailure: FailurePolicy?
    public var mutex: [String] = []
    public var cacheTTL: Duration?
    /// The fair-share key and weight of every node and map child that sets none (its key may not use `$from`).
    public var fair: FairOption?
    /// Fields written as given, over the typed ones (see `NodeOptions.raw`).
    public var raw: [(field: String, value: GraphValue<JSON>)] = []

    public init(
        pool: String? = nil, priority: Int? = nil, retry: RetryPolicy? = nil, timeout: Duration? = nil,
        dependencies: DependencyRule? = nil, onFailure: FailurePolicy? = nil, mutex: [String] = [], cacheTTL: Duration? = nil
    ) {
        self.pool = pool
        self.priority = priority
        self.retry = retry
        self.timeout = timeout
        self.dependencies = dependencies
        self.onFailure = onFailure
        self.mutex = mutex
        self.cacheTTL = cacheTTL
    }

    var isEmpty: Bool { fileJSON.objectValue?.isEmpty ?? true }

    var fileJSON: JSON {
        let options = NodeOptions(
            pool: pool, priority: priority, retry: retry, timeout: timeout, dependencies: dependencies,
            onFailure: onFailure, mutex: mutex, cacheTTL: cacheTTL, raw: raw, fair: fair)
        return .object(JSONObject(options.members()))
    }
}
