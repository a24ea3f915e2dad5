import Baton

/// What a picture of a graph or a run shows, independent of the format: nodes (each child after
/// its parent), the clusters they form, and the edges between them. Renderers turn it into text.
public struct GraphDrawing: Sendable, Equatable {
    /// The graph's name, or for a run a line naming the run.
    public var title: String
    /// Nodes in drawing order: each cluster's children follow it.
    public private(set) var nodes: [DrawingNode]
    public private(set) var edges: [DrawingEdge]
    /// True when the nodes carry states (a run), so renderers color them and show the state legend.
    public let isRun: Bool
    private var index: [String: Int]
    private var parents: Set<String> = []

    /// A drawing of arbitrary nodes and edges; edges naming a missing node are dropped, and a node
    /// whose parent is missing is drawn at the top.
    public init(title: String, nodes: [DrawingNode], edges: [DrawingEdge], isRun: Bool) {
        self.title = title
        self.isRun = isRun
        self.nodes = []
        self.edges = []
        self.index = [:]
        for node in nodes where index[node.key] == nil {
            let parent = node.parent.flatMap { index[$0] != nil ? $0 : nil }
            index[node.key] = self.nodes.count
            if let parent { parents.insert(parent) }
            self.nodes.append(
                DrawingNode(
                    key: node.key, procedure: node.procedure, kind: node.kind, parent: parent, status: node.status,
                    attempts: node.attempts))
        }
        var seen = Set<String>()
        for edge in edges where index[edge.from] != nil && index[edge.to] != nil && edge.from != edge.to {
            if seen.insert(edge.from + "\u{0}" + edge.to).inserted { self.edges.append(edge) }
        }
    }

    /// A graph as a file defines it: groups are clusters of their children, a map is one node.
    public init(graph: Graph) {
        self.init(title: graph.name, nodes: Self.staticNodes(graph), edges: Self.edges(graph), isRun: false)
    }

    /// A run: its graph's nodes with their states, plus the children its maps and spawning
    /// procedures made (`states` in tree order, as `Store.nodes(ofRun:)` lists them), inside their
    /// parents' clusters. A node without a state row is drawn `pending`.
    public init(run graph: Graph, states: [NodeRunState], title: String? = nil) {
        var nodes = Self.staticNodes(graph)
        var byKey: [String: NodeRunState] = [:]
        for state in states { byKey[state.key] = state }
        let known = Set(nodes.map(\.key))
        for i in nodes.indices {
            nodes[i].status = byKey[nodes[i].key]?.status ?? .pending
            nodes[i].attempts = byKey[nodes[i].key]?.attempts ?? 0
        }
        for state in states where !known.contains(state.key) {
            nodes.append(
                DrawingNode(
                    key: state.key, procedure: state.procedure, parent: RunState.parent(of: state.key), status: state.status,
                    attempts: state.attempts))
        }
        self.init(title: title ?? graph.name, nodes: nodes, edges: Self.edges(graph), isRun: true)
    }

    /// The node with `key`, if drawn.
    public func node(_ key: String) -> DrawingNode? { index[key].map { nodes[$0] } }

    /// The keys of the nodes directly inside `parent`'s cluster (nil: the top level), in order.
    public func children(of parent: String?) -> [String] { nodes.filter { $0.parent == parent }.map(\.key) }

    /// True when `key` is drawn as a cluster: a node with children (a group; in a run, also a map or a
    /// spawning procedure once it has made them).
    public func isCluster(_ key: String) -> Bool { parents.contains(key) }

    private static func staticNodes(_ graph: Graph) -> [DrawingNode] {
        graph.staticNodes.map { node in
            let kind: DrawingNodeKind
            switch node.kind {
            case .procedure, .signal: kind = .procedure  // a signal shows as baton.signal
            case .group: kind = .group
            case .map: kind = .map
            }
            return DrawingNode(key: node.key, procedure: node.procedure, kind: kind, parent: RunState.parent(of: node.key))
        }
    }

    /// Each node's own references (not those its children make out of a group, which the children draw) and `after`.
    private static func edges(_ graph: Graph) -> [DrawingEdge] {
        var edges: [DrawingEdge] = []
        for node in graph.staticNodes {
            let p = node.policies
            var referenced = node.input.references + (p.when?.references ?? []) + (p.condition?.input.references ?? [])
            referenced += p.concurrency?.key.references ?? []
            if case let .map(spec) = node.kind { referenced += spec.over.references + spec.input.references }
            var seen = Set<String>()
            for key in referenced.map(\.node) where seen.insert(key).inserted {
                edges.append(DrawingEdge(from: key, to: node.key, kind: .input))
            }
            for key in node.after where seen.insert(key).inserted {
                edges.append(DrawingEdge(from: key, to: node.key, kind: .after))
            }
        }
        return edges
    }
}
