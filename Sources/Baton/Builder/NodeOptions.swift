/// How a node runs besides what it runs: every per-node field of the graph file. Unset fields
/// are left out of the file (so `defaults` apply).
public struct NodeOptions: Sendable {
    /// Ordering-only dependencies.
    public var after: [any NodeReference] = []
    public var pool: String?
    /// 0 (lowest) to 9.
    public var priority: Int?
    public var retry: RetryPolicy?
    public var timeout: Duration?
    public var dependencies: DependencyRule?
    /// The node runs only if this is `true`.
    public var when: GraphValue<Bool>?
    public var condition: ConditionOption?
    public var onFailure: FailurePolicy?
    public var repeatUntil: RepeatOption?
    /// Mutual-exclusion categories (`mutex`).
    public var mutex: [String] = []
    public var concurrency: ConcurrencyOption?
    /// `cache: {"ttl": ...}`.
    public var cacheTTL: Duration?
    public var rate: RateOption?
    public var fair: FairOption?
    /// Fields written as given, over the typed ones: for a value the typed fields cannot hold, such
    /// as a pool read from the run input (`raw: [("pool", input.value(\.pool).json)]`).
    public var raw: [(field: String, value: GraphValue<JSON>)] = []

    public init(
        after: [any NodeReference] = [], pool: String? = nil, priority: Int? = nil, retry: RetryPolicy? = nil,
        timeout: Duration? = nil, dependencies: DependencyRule? = nil, when: GraphValue<Bool>? = nil,
        condition: ConditionOption? = nil, onFailure: FailurePolicy? = nil, repeatUntil: RepeatOption? = nil,
        mutex: [String] = [], concurrency: ConcurrencyOption? = nil, cacheTTL: Duration? = nil, rate: RateOption? = nil,
        raw: [(field: String, value: GraphValue<JSON>)] = [], fair: FairOption? = nil
    ) {
        self.after = after
        self.pool = pool
        self.priority = priority
        self.retry = retry
        self.timeout = timeout
        self.dependencies = dependencies
        self.when = when
        self.condition = condition
        self.onFailure = onFailure
        self.repeatUntil = repeatUntil
        self.mutex = mutex
        self.concurrency = concurrency
        self.cacheTTL = cacheTTL
        self.rate = rate
        self.fair = fair
        self.raw = raw
    }

    /// The node's fields after `procedure`/`map`/`group` and `input`, in the file's usual order.
    func members() -> [(key: String, value: JSON)] {
        var m: [(key: String, value: JSON)] = []
        if !after.isEmpty { m.append(("after", .array(after.map { .string($0.key) }))) }
        if let pool { m.append(("pool", .string(pool))) }
        if let priority { m.append(("priority", .int(Int64(priority)))) }
        if let retry { m.append(("retry", retry.fileJSON)) }
        if let timeout { m.append(("timeout", .string(DurationText.format(file: timeout)))) }
        if let dependencies { m.append(("dependencies", .string(dependencies.rawValue))) }
        if let when { m.append(("when", when.template)) }
        if let condition { m.append(("condition", condition.fileJSON)) }
        if let onFailure { m.append(("on_failure", .string(onFailure.rawValue))) }
        if let repeatUntil { m.append(("repeat", repeatUntil.fileJSON)) }
        if !mutex.isEmpty { m.append(("mutex", .array(mutex.map { .string($0) }))) }
        if let concurrency {
            m.append(("concurrency", ["key": concurrency.key.template, "limit": .int(Int64(concurrency.limit))]))
        }
        if let cacheTTL { m.append(("cache", ["ttl": .string(DurationText.format(file: cacheTTL))])) }
        if let rate { m.append(("rate", rate.fileJSON)) }
        if let fair { m.append(("fair", fair.fileJSON)) }
        for (field, value) in raw {
            if let i = m.firstIndex(where: { $0.key == field }) { m[i].value = value.template } else { m.append((field, value.template)) }
        }
        return m
    }
}

/// `condition`: a procedure returning `true` or `false`, run before the node.
public struct ConditionOption: Sendable {
    public let procedure: String
    let input: GraphValue<JSON>
    public let negate: Bool

    /// A typed condition procedure (its output must be `Bool`).
    public init<P: Procedure>(_ procedure: P.Type, input: GraphValue<P.Input>, negate: Bool = false) where P.Output == Bool {
        self.procedure = P.name
        self.input = input.json
        self.negate = negate
    }

    /// A condition procedure by name, for one whose Swift type is not at hand (its output must be a JSON boolean).
    public init(named procedure: String, input: GraphValue<JSON> = .literal([:]), negate: Bool = false) {
        self.procedure = procedure
        self.input = input
        self.negate = negate
    }

    var fileJSON: JSON {
        var m: [(key: String, value: JSON)] = [("procedure", .string(procedure)), ("input", input.template)]
        if negate { m.append(("negate", true)) }
        return .object(JSONObject(m))
    }
}

/// `repeat`: run again until the output (or the part `select` names) equals a value.
public struct RepeatOption: Sendable {
    public private(set) var select: JSONPointer
    public private(set) var equals: JSON
    /// Why the key path or value given to `until` cannot be written (reported by `build()`).
    var problems: [String] = []
    public var wait: WaitStrategy?
    public var max: Int?

    /// Repeat until the output's field at `keyPath` equals `value`: `.until(\Poll.Output.done, equals: true)`.
    public static func until<Output, V: Encodable>(
        _ keyPath: KeyPath<Output, V>, equals value: V, wait: WaitStrategy? = nil, max: Int? = nil
    ) -> RepeatOption {
        var option = RepeatOption(select: JSONPointer(tokens: []), equals: .null, wait: wait, max: max)
        switch FieldPath.tokens(of: keyPath) {
        case let .success(tokens): option.select = JSONPointer(tokens: tokens)
        case let .failure(error): option.problems.append(error.message)
        }
        do { option.equals = try JSON(encoding: value) } catch { option.problems.append("could not encode \(value): \(error)") }
        return option
    }

    public init(select: JSONPointer, equals: JSON, wait: WaitStrategy? = nil, max: Int? = nil) {
        self.select = select
        self.equals = equals
        self.wait = wait
        self.max = max
    }

    var fileJSON: JSON {
        var m: [(key: String, value: JSON)] = [("until", ["select": .string(select.description), "equals": equals])]
        if let wait { m.append(("wait", wait.fileJSON)) }
        if let max { m.append(("max", .int(Int64(max)))) }
        return .object(JSONObject(m))
    }
}

/// `concurrency`: at most `limit` nodes with the same evaluated `key` run at once.
public struct ConcurrencyOption: Sendable {
    let key: GraphValue<JSON>
    public let limit: Int

    public init<K>(key: GraphValue<K>, limit: Int) {
        self.key = key.json
        self.limit = limit
    }
}
