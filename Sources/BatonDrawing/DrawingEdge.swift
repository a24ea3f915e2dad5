/// An edge of a drawing: `to` waits for `from`.
public struct DrawingEdge: Sendable, Equatable, Codable {
    public let from: String
    public let to: String
    public let kind: DrawingEdgeKind

    public init(from: String, to: String, kind: DrawingEdgeKind) {
        self.from = from
        self.to = to
        self.kind = kind
    }
}
