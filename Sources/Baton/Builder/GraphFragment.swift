/// A sub-graph for a procedure to spawn at run time, `{"nodes": {...}, "output": TEMPLATE}`;
/// `Output` is the type of its output template.
public struct GraphFragment<Output>: Sendable {
    public let json: JSON
    /// Problems the builder found (a fragment is validated again when it is spawned).
    public let problems: [GraphProblem]
}

extension GraphFragment {
    /// The fragment as a spawning procedure returns it.
    public var subGraph: SubGraph { SubGraph(document: json) }
}

extension Spawnable {
    /// Ends by spawning a fragment built with a `GraphBuilder`, whose output has this procedure's
    /// output type: `return try .graph(builder.fragment(output: sum.output))`. A fragment with
    /// problems the builder found throws them, as a permanent failure of the node.
    public static func graph(_ fragment: GraphFragment<Output>) throws(ProcedureFailure) -> Spawnable<Output> {
        guard fragment.problems.isEmpty else {
            throw ProcedureFailure(
                "the spawned graph is invalid: " + fragment.problems.map(\.description).joined(separator: "; "), permanent: true)
        }
        return .spawn(fragment.subGraph)
    }
}
