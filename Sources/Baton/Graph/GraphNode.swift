/// One node of a graph.
public struct GraphNode: Sendable, Codable {
    public let key: String
    public let procedure: String
    public let input: Template
    /// Ordering-only dependencies.
    public let after: [String]
    /// The pool (queue) whose workers can run this node.
    public let pool: String
    /// 0 (lowest) to 9.
    public let priority: Int
    public var policies: NodePolicies

    /// Every node this one waits for: `$from` references (in the input, `when` and
    /// `condition`), then `after`, without repeats.
    public let dependencies: [String]

    public init(
        key: String, procedure: String, input: Template, after: [String] = [], pool: String = "default", priority: Int = 0,
        policies: NodePolicies = NodePolicies()
    ) {
        self.key = key
        self.procedure = procedure
        self.input = input
        self.after = after
        self.pool = pool
        self.priority = priority
        self.policies = policies
        var seen = Set<String>()
        var deps: [String] = []
        let referenced =
            input.references + (policies.when?.references ?? []) + (policies.condition?.input.references ?? [])
            + (policies.concurrency?.key.references ?? [])
        for d in referenced.map(\.node) + after where seen.insert(d).inserted { deps.append(d) }
        self.dependencies = deps
    }
}
