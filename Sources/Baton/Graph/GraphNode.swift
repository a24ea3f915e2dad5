/// One node of a graph. Its fields live out of line in one shared, immutable box: a run's graph keeps
/// a node in several tables (the graph's, a fragment's), and a dictionary of 100,000 nodes then holds
/// 8 bytes a node instead of about 130 (times its spare capacity).
public struct GraphNode: Sendable, Equatable, Codable {
    private final class Storage: Sendable {
        let key: String
        let procedure: String
        let kind: NodeKind
        let input: Template
        let after: [String]
        let pool: String
        let priority: Int
        let policies: PoliciesStorage
        let dependencies: [String]

        init(
            key: String, procedure: String, kind: NodeKind, input: Template, after: [String], pool: String, priority: Int,
            policies: PoliciesStorage, dependencies: [String]
        ) {
            self.key = key
            self.procedure = procedure
            self.kind = kind
            self.input = input
            self.after = after
            self.pool = pool
            self.priority = priority
            self.policies = policies
            self.dependencies = dependencies
        }
    }

    private var storage: Storage

    public var key: String { storage.key }
    /// The procedure a worker runs; for a map, the procedure of each child; for a group, `baton.group`.
    public var procedure: String { storage.procedure }
    public var kind: NodeKind { storage.kind }
    public var input: Template { storage.input }
    /// Ordering-only dependencies.
    public var after: [String] { storage.after }
    /// The pool (queue) whose workers can run this node.
    public var pool: String { storage.pool }
    /// 0 (lowest) to 9.
    public var priority: Int { storage.priority }
    /// Kept out of line, with one shared instance for the defaults: most nodes have them.
    public var policies: NodePolicies {
        get { storage.policies.value }
        set {
            let s = storage
            storage = Storage(
                key: s.key, procedure: s.procedure, kind: s.kind, input: s.input, after: s.after, pool: s.pool, priority: s.priority,
                policies: PoliciesStorage.of(newValue), dependencies: s.dependencies)
        }
    }

    /// Every node this one waits for: `$from` references (in the input, `when` and
    /// `condition`; for a map its `over`; for a group every reference its children make
    /// out of it), then `after`, without repeats.
    public var dependencies: [String] { storage.dependencies }

    public init(
        key: String, procedure: String, input: Template, after: [String] = [], pool: String = "default", priority: Int = 0,
        policies: NodePolicies = NodePolicies(), kind: NodeKind = .procedure, outside: [String] = []
    ) {
        var seen = Set<String>()
        var deps: [String] = []
        var referenced =
            input.references + (policies.when?.references ?? []) + (policies.condition?.input.references ?? [])
            + (policies.concurrency?.key.references ?? []) + (policies.rate?.key.references ?? [])
            + (policies.fair?.key.references ?? [])
        if case let .map(spec) = kind {
            referenced +=
                spec.over.references + spec.input.references + (spec.rate?.key.references ?? [])
                + (spec.fair?.key.references ?? [])
        }
        for d in referenced.map(\.node) + outside + after where seen.insert(d).inserted { deps.append(d) }
        self.init(
            key: key, procedure: procedure, input: input, after: after, pool: pool, priority: priority, policies: policies, kind: kind,
            dependencies: deps)
    }

    /// A node as stored, with its dependencies as computed when it was decoded.
    init(
        key: String, procedure: String, input: Template, after: [String], pool: String, priority: Int,
        policies: NodePolicies, kind: NodeKind, dependencies: [String]
    ) {
        storage = Storage(
            key: key, procedure: procedure, kind: kind, input: input, after: after, pool: pool, priority: priority,
            policies: PoliciesStorage.of(policies), dependencies: dependencies)
    }

    public static func == (lhs: GraphNode, rhs: GraphNode) -> Bool {
        let l = lhs.storage, r = rhs.storage
        return l === r
            || (l.key == r.key && l.procedure == r.procedure && l.kind == r.kind && l.input == r.input && l.after == r.after
                && l.pool == r.pool && l.priority == r.priority && l.policies == r.policies && l.dependencies == r.dependencies)
    }
}

extension GraphNode {
    enum CodingKeys: String, CodingKey { case key, procedure, kind, input, template, after, pool, priority, policies, dependencies }

    /// Plans stored before groups and maps have no `kind`: their nodes are procedures. Version 1 plans
    /// have the input template in its synthesized form (`input`), version 2 as written, in JSON text (`template`).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            key: try c.decode(String.self, forKey: .key), procedure: try c.decode(String.self, forKey: .procedure),
            input: try c.decodeIfPresent(String.self, forKey: .template).map { Template(written: try JSONParser.parse($0, maxDepth: 1024)) }
                ?? c.decode(Template.self, forKey: .input),
            after: try c.decode([String].self, forKey: .after),
            pool: try c.decode(String.self, forKey: .pool), priority: try c.decode(Int.self, forKey: .priority),
            policies: try c.decode(NodePolicies.self, forKey: .policies),
            kind: try c.decodeIfPresent(NodeKind.self, forKey: .kind) ?? .procedure,
            dependencies: try c.decode([String].self, forKey: .dependencies))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key, forKey: .key)
        try c.encode(procedure, forKey: .procedure)
        if kind != .procedure { try c.encode(kind, forKey: .kind) }
        if input.writtenReadsBack {
            // Compact: the template as a graph file writes it, as JSON text (so no encoder or jsonb reorders its members).
            try c.encode(input.written.serialized(), forKey: .template)
        } else {
            try c.encode(input, forKey: .input)
        }
        try c.encode(after, forKey: .after)
        try c.encode(pool, forKey: .pool)
        try c.encode(priority, forKey: .priority)
        try c.encode(policies, forKey: .policies)
        try c.encode(dependencies, forKey: .dependencies)
    }
}

/// A node's policies out of line (immutable, so sharing one is safe).
final class PoliciesStorage: Sendable, Equatable {
    let value: NodePolicies
    private init(_ value: NodePolicies) { self.value = value }

    static let defaults = PoliciesStorage(NodePolicies())

    /// The shared instance for the defaults, else a new one.
    static func of(_ value: NodePolicies) -> PoliciesStorage { value == defaults.value ? defaults : PoliciesStorage(value) }

    static func == (lhs: PoliciesStorage, rhs: PoliciesStorage) -> Bool { lhs === rhs || lhs.value == rhs.value }
}
