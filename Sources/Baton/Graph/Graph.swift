/// A validated graph: every reference names a node of the graph, there is no
/// cycle, and every field has the right shape.
public struct Graph: Sendable {
    /// Free text; several runs may share it.
    public let name: String
    /// Node keys in the order the file lists them (in a run's state, children follow as they are added).
    public internal(set) var order: [String]
    public internal(set) var nodes: [String: GraphNode]
    /// The graph as submitted, stored with the run.
    public let source: JSON

    /// For each node, the nodes that depend on it, in graph order.
    public func dependents() -> [String: [String]] {
        var result: [String: [String]] = [:]
        for key in order {
            for dependency in nodes[key]!.dependencies { result[dependency, default: []].append(key) }
        }
        return result
    }
}

/// The decoded graph as a run stores it (`baton.runs.plan`), so loading a run neither parses
/// the file format nor validates again. `source` is not part of it: it is `baton.runs.graph`.
extension Graph: Codable {
    enum CodingKeys: String, CodingKey { case v, name, order, nodes }

    /// The version of the stored form. Version 2 stores each node's input template as written
    /// (`GraphNode` key `template`), a third the size of version 1's synthesized form; both are read.
    public static let planVersion = 2

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let v = try c.decode(Int.self, forKey: .v)
        guard v == 1 || v == Self.planVersion else { throw MessageError("stored plan has version \(v), not 1 or \(Self.planVersion)") }
        self.init(
            name: try c.decode(String.self, forKey: .name), order: try c.decode([String].self, forKey: .order),
            nodes: try c.decode([String: GraphNode].self, forKey: .nodes), source: .null)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.planVersion, forKey: .v)
        try c.encode(name, forKey: .name)
        try c.encode(order, forKey: .order)
        try c.encode(nodes, forKey: .nodes)
    }
}

extension Graph {
    /// The same graph with its nodes listed in `order` (used when the stored
    /// document lost the original order, as jsonb does). Keys not in `order` keep their place at the end.
    public func reordered(_ order: [String]) -> Graph {
        let known = Set(order).intersection(nodes.keys)
        let ordered = order.filter { known.contains($0) } + self.order.filter { !known.contains($0) }
        return Graph(name: name, order: ordered, nodes: nodes, source: source)
    }
}

extension Graph {
    /// Every node known before the run starts: the graph's own, in order, each group followed by its
    /// children at any depth. (Map children and spawned nodes exist only once they start.)
    public var staticNodes: [GraphNode] { GroupSpec.flatten(order, nodes) }
}

extension GroupSpec {
    /// The group's children in order, each inner group followed by its own children.
    public var staticNodes: [GraphNode] { Self.flatten(order, nodes) }

    static func flatten(_ order: [String], _ nodes: [String: GraphNode]) -> [GraphNode] {
        var result: [GraphNode] = []
        result.reserveCapacity(order.count)
        func add(_ node: GraphNode) {
            result.append(node)
            if case let .group(spec) = node.kind { for child in spec.order { add(spec.nodes[child]!) } }
        }
        for key in order { add(nodes[key]!) }
        return result
    }
}
