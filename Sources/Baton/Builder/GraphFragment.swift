/// A sub-graph for a procedure to spawn at run time, `{"nodes": {...}, "output": TEMPLATE}`;
/// `Output` is the type of its output template.
public struct GraphFragment<Output>: Sendable {
    public let json: JSON
    /// Problems the builder found (a fragment is validated again when it is spawned).
    public let problems: [GraphProblem]
}
