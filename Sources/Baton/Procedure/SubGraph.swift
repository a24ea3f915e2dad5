/// A graph a procedure returns to run in its place: nodes keyed by local names, whose `$from`
/// references name each other, and the output template that becomes the spawning node's output.
/// On the wire it is `{"nodes": {...}, "output": TEMPLATE}`, the same form as a group.
public struct SubGraph: Sendable, Equatable {
    /// The graph document: `{"nodes": {...}, "output": ...}`.
    public let document: JSON

    /// `nodes` in order; `output` is a template over them, e.g. `.from("sum")`.
    public init(_ nodes: KeyValuePairs<String, Node>, output: JSON) {
        self.document = [
            "nodes": .object(JSONObject(nodes.map { ($0.key, $0.value.fields) })),
            "output": output,
        ]
    }

    /// A graph given as a document (validated when the coordinator receives it).
    public init(document: JSON) { self.document = document }

    /// A `$from` reference to a sibling's output (or the part `select` names), for inputs and the output.
    public static func from(_ node: String, select: String? = nil) -> JSON {
        guard let select else { return ["$from": .string(node)] }
        return ["$from": .string(node), "select": .string(select)]
    }

    /// One node of a sub-graph.
    public struct Node: Sendable, Equatable {
        /// The node as written in a graph file.
        public private(set) var fields: JSON

        /// Runs `P` with a literal input of its own type.
        public static func run<P: Procedure>(_ procedure: P.Type, _ input: P.Input) throws -> Node {
            Node(fields: ["procedure": .string(P.name), "input": try JSON(encoding: input)])
        }

        /// Runs the spawning procedure `P` with a literal input of its own type.
        public static func run<P: SpawningProcedure>(_ procedure: P.Type, _ input: P.Input) throws -> Node {
            Node(fields: ["procedure": .string(P.name), "input": try JSON(encoding: input)])
        }

        /// Runs `P` with an input template: JSON in which `SubGraph.from(...)` references stand for siblings' outputs.
        public static func run<P: Procedure>(_ procedure: P.Type, template: JSON) -> Node {
            Node(fields: ["procedure": .string(P.name), "input": template])
        }

        /// The same node with another field of the graph format set (`retry`, `timeout`, `after`, `when`, ...).
        public func with(_ field: String, _ value: JSON) -> Node {
            var copy = self
            if case var .object(o) = fields {
                o[field] = value
                copy.fields = .object(o)
            }
            return copy
        }
    }
}
