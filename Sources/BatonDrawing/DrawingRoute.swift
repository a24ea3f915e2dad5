/// Where an edge runs: a polyline from its source node to its target, ending at the target's border.
public struct DrawingRoute: Sendable, Equatable {
    public let edge: DrawingEdge
    public let points: [DrawingPoint]
    /// The layers, in the scope that holds both ends (the innermost cluster around both, or the
    /// top), of the source's and the target's side: an edge always goes to a later layer, except
    /// one of a cycle (only a hand-made drawing has those).
    public let fromLayer: Int
    public let toLayer: Int
}
