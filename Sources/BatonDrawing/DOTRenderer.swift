/// Graphviz DOT text of a drawing: groups and map children as `cluster_` subgraphs, `after` edges dashed,
/// nodes filled by state in a run. Every name is a quoted DOT string.
public struct DOTRenderer: Sendable {
    public init() {}

    public func render(_ drawing: GraphDrawing) -> String {
        var out = "digraph \(Self.quote(drawing.title)) {\n"
        out += "  graph [rankdir=TB, compound=true, fontname=\"Helvetica\", label=\(Self.quote(drawing.title)), labelloc=t];\n"
        out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
        out += "  edge [color=\"#475569\"];\n"
        var clusterNumber = 0
        var clusterIDs: [String: String] = [:]
        func emit(_ parent: String?, indent: String) {
            for key in drawing.children(of: parent) {
                let node = drawing.node(key)!
                let style = StatusStyle.of(node.status)
                if drawing.isCluster(key) {
                    let id = "cluster_\(clusterNumber)"
                    clusterNumber += 1
                    clusterIDs[key] = id
                    out += "\(indent)subgraph \(id) {\n"
                    out += "\(indent)  label=\(Self.quote(NodeCaption.lines(node).joined(separator: "\n")));\n"
                    out += "\(indent)  style=\"rounded\"; color=\(Self.quote(style.stroke));\n"
                    emit(key, indent: indent + "  ")
                    out += "\(indent)}\n"
                } else {
                    out += "\(indent)\(Self.quote(key)) [label=\(Self.quote(NodeCaption.lines(node).joined(separator: "\n"))), "
                    out += "fillcolor=\(Self.quote(style.fill)), color=\(Self.quote(style.stroke))"
                    out += node.kind == .map ? ", peripheries=2];\n" : "];\n"
                }
            }
        }
        emit(nil, indent: "  ")
        // An edge to or from a cluster is drawn to its first leaf and clipped at the cluster's border.
        func anchor(_ key: String) -> String {
            var key = key
            while drawing.isCluster(key), let first = drawing.children(of: key).first { key = first }
            return key
        }
        for edge in drawing.edges {
            var attributes: [String] = []
            if edge.kind == .after { attributes.append("style=dashed") }
            if let id = clusterIDs[edge.from] { attributes.append("ltail=\(id)") }
            if let id = clusterIDs[edge.to] { attributes.append("lhead=\(id)") }
            let list = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            out += "  \(Self.quote(anchor(edge.from))) -> \(Self.quote(anchor(edge.to)))\(list);\n"
        }
        if drawing.isRun {
            out += "  subgraph cluster_legend {\n    label=\"legend\"; style=\"rounded\"; color=\"#cbd5e1\";\n"
            var previous: String?
            for status in StatusStyle.legend {
                let style = StatusStyle.of(status)
                let id = Self.quote("legend " + status.rawValue)
                out += "    \(id) [label=\(Self.quote(status.rawValue)), fillcolor=\(Self.quote(style.fill)), color=\(Self.quote(style.stroke))];\n"
                if let previous { out += "    \(previous) -> \(id) [style=invis];\n" }
                previous = id
            }
            out += "  }\n"
        }
        out += "}\n"
        return out
    }

    /// A DOT quoted string: backslashes and quotes escaped, line breaks as `\n`.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": break
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
