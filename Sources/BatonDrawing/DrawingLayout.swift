/// A laid-out drawing: a box for every node (clusters included) and a route for every edge, in
/// pixels from the top left of the graph's area (renderers add margins, title and legend).
public struct DrawingLayout: Sendable {
    public let width: Double
    public let height: Double
    /// Every node's box, by key; a cluster's box holds its children's.
    public let boxes: [String: DrawingRect]
    public let routes: [DrawingRoute]
}
