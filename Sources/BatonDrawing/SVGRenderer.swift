import Baton

/// An SVG picture of a drawing, laid out by `LayeredLayout` (no Graphviz). Self-contained: styles are
/// attributes (no `<style>` that would leak into a page embedding it), every text XML-escaped.
///
/// Stable hooks for pages and tests: each node is a `<g class="baton-node">` (clusters
/// `baton-cluster`) with `id="baton-node-KEY"`, `data-node` (its key), `data-kind`, `data-procedure`
/// and, in a run, `data-status` and `data-attempts`; each edge a `<path class="baton-edge">` with
/// `data-from`, `data-to` and `data-kind` (`input` or `after`).
public struct SVGRenderer: Sendable {
    public var layout = LayeredLayout()
    public var margin = 24.0
    public var monospace = "DejaVu Sans Mono, Menlo, Consolas, monospace"
    public var sansSerif = "DejaVu Sans, Helvetica, Arial, sans-serif"

    public init() {}

    public func render(_ drawing: GraphDrawing) -> String {
        render(drawing, layout: layout.layout(drawing))
    }

    /// Renders with a layout already made (from the same drawing).
    public func render(_ drawing: GraphDrawing, layout laid: DrawingLayout) -> String {
        let metrics = layout.metrics
        let titleHeight = 44.0
        let legend = legendItems(drawing)
        let contentWidth = max(laid.width, 420)
        let legendRows = legendLayout(legend, width: contentWidth)
        let legendHeight = Double(legendRows.rows) * 24 + 16
        let width = (contentWidth + 2 * margin).rounded(.up)
        let height = (margin + titleHeight + laid.height + 28 + legendHeight + margin).rounded(.up)
        let ox = margin + (contentWidth - laid.width) / 2
        let oy = margin + titleHeight
        func px(_ v: Double) -> String { Self.number(v) }

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" class="baton-graph" width="\(px(width))" height="\(px(height))" \
            viewBox="0 0 \(px(width)) \(px(height))" data-title="\(Self.xml(drawing.title))" data-run="\(drawing.isRun)" \
            font-family="\(monospace)">

            """
        out += "<title>\(Self.xml(drawing.title))</title>\n"
        out += "<defs>\n"
        for (kind, color) in [("input", Self.inputColor), ("after", Self.afterColor)] {
            out += """
                <marker id="baton-arrow-\(kind)" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" \
                orient="auto-start-reverse" markerUnits="userSpaceOnUse"><path d="M0,0 L10,5 L0,10 z" fill="\(color)"/></marker>

                """
        }
        out += "</defs>\n"
        out += "<rect class=\"baton-background\" x=\"0\" y=\"0\" width=\"\(px(width))\" height=\"\(px(height))\" fill=\"#ffffff\"/>\n"
        let title = metrics.fit(drawing.title, width: contentWidth, fontSize: 17 * 0.95)
        out += """
            <text class="baton-title" x="\(px(margin))" y="\(px(margin + 20))" font-family="\(sansSerif)" font-size="17" \
            font-weight="bold" fill="#0f172a">\(Self.xml(title))</text>

            """

        // Cluster fills first (outer before inner, as listed), then edges, then the clusters' borders
        // and labels (a halo keeps a label readable where an edge crosses it), then nodes on top.
        let clusters = drawing.nodes.filter { drawing.isCluster($0.key) && laid.boxes[$0.key] != nil }
        func clusterRect(_ node: DrawingNode) -> DrawingRect {
            let box = laid.boxes[node.key]!
            return DrawingRect(x: box.x + ox, y: box.y + oy, width: box.width, height: box.height)
        }
        func clusterFill(_ node: DrawingNode) -> String { node.status == nil ? "#f1f5f9" : Self.mix(StatusStyle.of(node.status).fill, 0.45) }
        out += "<g class=\"baton-cluster-fills\">\n"
        for node in clusters {
            let r = clusterRect(node)
            out += """
                <rect x="\(px(r.x))" y="\(px(r.y))" width="\(px(r.width))" height="\(px(r.height))" rx="12" \
                fill="\(clusterFill(node))" fill-opacity="0.85"/>

                """
        }
        out += "</g>\n<g class=\"baton-edges\" fill=\"none\">\n"
        for route in laid.routes {
            let points = route.points.map { DrawingPoint(x: $0.x + ox, y: $0.y + oy) }
            let kind = route.edge.kind.rawValue
            let color = route.edge.kind == .input ? Self.inputColor : Self.afterColor
            out += """
                <path class="baton-edge baton-edge-\(kind)" data-from="\(Self.xml(route.edge.from))" data-to="\(Self.xml(route.edge.to))" \
                data-kind="\(kind)" d="\(Self.path(points))" stroke="\(color)" stroke-width="1.4"\
                \(route.edge.kind == .after ? " stroke-dasharray=\"6 4\"" : "") marker-end="url(#baton-arrow-\(kind))"/>

                """
        }
        out += "</g>\n<g class=\"baton-clusters\" fill=\"none\">\n"
        for node in clusters {
            let r = clusterRect(node)
            let style = StatusStyle.of(node.status)
            let detail = NodeCaption.procedure(node) + (NodeCaption.state(node).map { " · " + $0 } ?? "")
            let textWidth = r.width - 2 * metrics.padding
            let halo = "stroke=\"\(clusterFill(node))\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\""
            out += "<g class=\"baton-cluster\"\(attributes(node))>"
            out += "<title>\(Self.xml(([node.key] + NodeCaption.lines(node).dropFirst()).joined(separator: "\n")))</title>"
            out += """
                <rect x="\(px(r.x))" y="\(px(r.y))" width="\(px(r.width))" height="\(px(r.height))" rx="12" fill="none" \
                stroke="\(style.stroke)" stroke-width="1.5"\(node.kind == .group ? "" : " stroke-dasharray=\"5 3\"")/>
                """
            out += """
                <text x="\(px(r.x + metrics.padding))" y="\(px(r.y + 18))" font-size="\(px(metrics.keyFontSize))" font-weight="bold" \
                fill="\(style.text)" \(halo)>\(Self.xml(metrics.fit(node.label, width: textWidth, fontSize: metrics.keyFontSize)))</text>
                """
            out += """
                <text x="\(px(r.x + metrics.padding))" y="\(px(r.y + 34))" font-size="\(px(metrics.detailFontSize))" \
                fill="#475569" \(halo)>\(Self.xml(metrics.fit(detail, width: textWidth, fontSize: metrics.detailFontSize)))</text>
                """
            out += "</g>\n"
        }
        out += "</g>\n<g class=\"baton-nodes\">\n"
        for node in drawing.nodes where !drawing.isCluster(node.key) {
            guard let box = laid.boxes[node.key] else { continue }
            let r = DrawingRect(x: box.x + ox, y: box.y + oy, width: box.width, height: box.height)
            let style = StatusStyle.of(node.status)
            let textWidth = r.width - 2 * metrics.padding + 4
            out += "<g class=\"baton-node\"\(attributes(node))>"
            out += "<title>\(Self.xml(([node.key] + NodeCaption.lines(node).dropFirst()).joined(separator: "\n")))</title>"
            if node.kind == .map {  // a stack of cards: one per element
                out += """
                    <rect x="\(px(r.x + 4))" y="\(px(r.y - 4))" width="\(px(r.width))" height="\(px(r.height))" rx="8" \
                    fill="\(style.fill)" stroke="\(style.stroke)" stroke-width="1.2"/>
                    """
            }
            out += """
                <rect x="\(px(r.x))" y="\(px(r.y))" width="\(px(r.width))" height="\(px(r.height))" rx="8" fill="\(style.fill)" \
                stroke="\(style.stroke)" stroke-width="1.5"/>
                """
            var lines: [(String, Double, String, String)] = [
                (node.label, metrics.keyFontSize, "bold", style.text), (NodeCaption.procedure(node), metrics.detailFontSize, "normal", "#334155"),
            ]
            if let state = NodeCaption.state(node) { lines.append((state, metrics.detailFontSize, "normal", style.text)) }
            var y = r.y + 7 + metrics.lineHeight - 3.5
            for (text, size, weight, color) in lines {
                out += """
                    <text x="\(px(r.midX))" y="\(px(y))" text-anchor="middle" font-size="\(px(size))" font-weight="\(weight)" \
                    fill="\(color)">\(Self.xml(metrics.fit(text, width: textWidth, fontSize: size)))</text>
                    """
                y += metrics.lineHeight
            }
            out += "</g>\n"
        }
        out += "</g>\n"

        // The legend: edge kinds, and for a run the states.
        out += "<g class=\"baton-legend\" font-family=\"\(sansSerif)\" font-size=\"12\" fill=\"#334155\">\n"
        let legendTop = oy + laid.height + 28
        for (i, item) in legend.enumerated() {
            let (column, row) = legendRows.positions[i]
            let x = margin + column
            let y = legendTop + Double(row) * 24
            switch item {
            case let .edge(kind):
                let color = kind == .input ? Self.inputColor : Self.afterColor
                out += """
                    <g class="baton-legend-item" data-kind="\(kind.rawValue)"><path d="M\(px(x)),\(px(y + 8)) L\(px(x + 30)),\(px(y + 8))" \
                    stroke="\(color)" stroke-width="1.4"\(kind == .after ? " stroke-dasharray=\"6 4\"" : "") \
                    marker-end="url(#baton-arrow-\(kind.rawValue))"/><text x="\(px(x + 38))" y="\(px(y + 12))">\(legendLabel(item))</text></g>

                    """
            case let .status(status):
                let style = StatusStyle.of(status)
                out += """
                    <g class="baton-legend-item" data-status="\(status.rawValue)"><rect x="\(px(x))" y="\(px(y))" width="16" height="16" \
                    rx="4" fill="\(style.fill)" stroke="\(style.stroke)" stroke-width="1.2"/><text x="\(px(x + 22))" \
                    y="\(px(y + 12))">\(legendLabel(item))</text></g>

                    """
            }
        }
        out += "</g>\n</svg>\n"
        return out
    }

    // MARK: legend

    private enum LegendItem {
        case edge(DrawingEdgeKind)
        case status(NodeStatus)

        var isEdge: Bool {
            if case .edge = self { return true }
            return false
        }
    }

    private func legendItems(_ drawing: GraphDrawing) -> [LegendItem] {
        [.edge(.input), .edge(.after)] + (drawing.isRun ? StatusStyle.legend.map { .status($0) } : [])
    }

    private func legendLabel(_ item: LegendItem) -> String {
        switch item {
        case .edge(.input): return "input ($from)"
        case .edge(.after): return "order only (after)"
        case let .status(status): return status.rawValue
        }
    }

    private func legendLayout(_ items: [LegendItem], width: Double) -> (positions: [(Double, Int)], rows: Int) {
        var positions: [(Double, Int)] = []
        var x = 0.0
        var row = 0
        for item in items {
            let label = legendLabel(item)
            let itemWidth = (item.isEdge ? 38 : 22) + Double(label.count) * 7 + 22
            if x > 0 && x + itemWidth > width {
                x = 0
                row += 1
            }
            positions.append((x, row))
            x += itemWidth
        }
        return (positions, row + 1)
    }

    // MARK: helpers

    static let inputColor = "#475569"
    static let afterColor = "#94a3b8"

    private func attributes(_ node: DrawingNode) -> String {
        var out = " id=\"baton-node-\(Self.xml(node.key))\" data-node=\"\(Self.xml(node.key))\" data-kind=\"\(node.kind.rawValue)\""
        out += " data-procedure=\"\(Self.xml(node.procedure))\""
        if let status = node.status { out += " data-status=\"\(status.rawValue)\"" }
        if let attempts = node.attempts, node.status != nil { out += " data-attempts=\"\(attempts)\"" }
        return out
    }

    /// `color` (`#rrggbb`) at `alpha` over white.
    static func mix(_ color: String, _ alpha: Double) -> String {
        guard color.count == 7, let value = Int(color.dropFirst(), radix: 16) else { return color }
        let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { c in
            Int((Double(c) * alpha + 255 * (1 - alpha)).rounded())
        }
        return "#" + channels.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Straight where a segment is vertical or horizontal (through layers, in channels), else a
    /// vertical S-curve.
    static func path(_ points: [DrawingPoint]) -> String {
        guard let first = points.first else { return "" }
        var d = "M\(number(first.x)),\(number(first.y))"
        for (a, b) in zip(points, points.dropFirst()) {
            if abs(a.x - b.x) < 0.5 || abs(a.y - b.y) < 0.5 {
                d += " L\(number(b.x)),\(number(b.y))"
            } else {
                let middle = (a.y + b.y) / 2
                d += " C\(number(a.x)),\(number(middle)) \(number(b.x)),\(number(middle)) \(number(b.x)),\(number(b.y))"
            }
        }
        return d
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// Text for XML content and attribute values: `& < > " '` and line breaks and tabs as entities, characters XML does not
    /// allow (control characters) as U+FFFD.
    public static func xml(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t": out += "&#9;"  // as character references, so attribute values keep them too
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
