/// Sizes of the text and boxes the layout and the SVG renderer share, so a box always fits its
/// text. Node texts are set in a monospace font, whose width per character is known.
public struct LayoutMetrics: Sendable {
    public var keyFontSize = 12.5
    public var detailFontSize = 11.0
    /// Width of one character of the monospace font, per pixel of font size.
    public var characterWidth = 0.61
    public var padding = 12.0
    public var minNodeWidth = 110.0
    public var maxNodeWidth = 250.0
    public var lineHeight = 16.0
    public var clusterHeader = 44.0
    public var clusterPadding = 14.0

    public init() {}

    /// How wide `text` is at `fontSize`.
    public func width(_ text: String, fontSize: Double) -> Double { Double(text.count) * characterWidth * fontSize }

    /// `text` shortened with "…" so that it fits in `width` at `fontSize`.
    public func fit(_ text: String, width: Double, fontSize: Double) -> String {
        let maxCharacters = max(1, Int(width / (characterWidth * fontSize)))
        return text.count <= maxCharacters ? text : String(text.prefix(maxCharacters - 1)) + "…"
    }

    /// The size of a leaf node's box.
    func nodeSize(_ node: DrawingNode) -> (width: Double, height: Double) {
        var widest = width(node.label, fontSize: keyFontSize)
        widest = max(widest, width(NodeCaption.procedure(node), fontSize: detailFontSize))
        if let state = NodeCaption.state(node) { widest = max(widest, width(state, fontSize: detailFontSize)) }
        let lines = node.status == nil ? 2.0 : 3.0
        return (min(maxNodeWidth, max(minNodeWidth, widest + 2 * padding)), lines * lineHeight + 14)
    }

    /// The narrowest a cluster may be so that its header fits.
    func clusterHeaderWidth(_ node: DrawingNode) -> Double {
        let detail = NodeCaption.procedure(node) + (NodeCaption.state(node).map { " · " + $0 } ?? "")
        return min(maxNodeWidth * 1.6, max(width(node.label, fontSize: keyFontSize), width(detail, fontSize: detailFontSize))) + 2 * padding
    }
}
