/// The text formats a drawing renders to.
public enum DrawingFormat: String, Sendable, CaseIterable, Codable {
    /// Graphviz DOT.
    case dot
    /// A Mermaid flowchart.
    case mermaid
    /// SVG, laid out by Baton itself.
    case svg

    /// The drawing in this format.
    public func render(_ drawing: GraphDrawing) -> String {
        switch self {
        case .dot: return DOTRenderer().render(drawing)
        case .mermaid: return MermaidRenderer().render(drawing)
        case .svg: return SVGRenderer().render(drawing)
        }
    }
}
