/// What a node is: a procedure that a worker runs, a group of nodes that acts as one node,
/// a map that runs a procedure once per element of an array known at run time, or a signal
/// that waits for a value from outside the run (`baton signal`).
public enum NodeKind: Sendable, Equatable, Codable {
    case procedure
    case group(GroupSpec)
    case map(MapSpec)
    case signal(SignalSpec)

    /// True for a group or a map: the node ends when its children have.
    public var isComposite: Bool {
        switch self {
        case .procedure, .signal: return false
        case .group, .map: return true
        }
    }
}

/// A sub-graph that acts as one node (`group` in a graph file). Keys and references are absolute:
/// a child `x` of group `g` is `g/x`, and its `$from` references name the nodes they resolved to.
public struct GroupSpec: Sendable, Equatable, Codable {
    /// The procedure name a group's own row shows (nothing runs it).
    public static let procedureName = "baton.group"
    /// The children's keys, in the order the file lists them.
    public let order: [String]
    public let nodes: [String: GraphNode]
    /// The group's output over its children; nil gives an object of every child's output by its local key.
    public let output: Template?

    public init(order: [String], nodes: [String: GraphNode], output: Template?) {
        self.order = order
        self.nodes = nodes
        self.output = output
    }
}

/// One child per element of an array (`map` in a graph file).
public struct MapSpec: Sendable, Equatable, Codable {
    /// What yields the array: a reference, normally.
    public let over: Template
    /// Each child's input; `$item` and `$index` stand for the element and its index.
    public let input: Template
    /// At most this many children queued or running at once (nil: no bound).
    public let concurrency: Int?
    public let failure: MapFailure
    /// Each child's `rate` (its key may use `$item` and `$index`).
    public let rate: RatePolicy?
    /// Each child's `fair` (its key may use `$item` and `$index`).
    public let fair: FairPolicy?

    public init(over: Template, input: Template, concurrency: Int?, failure: MapFailure, rate: RatePolicy? = nil, fair: FairPolicy? = nil) {
        self.over = over
        self.input = input
        self.concurrency = concurrency
        self.failure = failure
        self.rate = rate
        self.fair = fair
    }
}

/// What a failed map child does to its map.
public enum MapFailure: String, Sendable, Codable, CaseIterable {
    /// The first failure fails the map and cancels the other children.
    case failFast = "fail-fast"
    /// The map succeeds with `{"ok": output}` or `{"error": message}` per element.
    case collect
}
