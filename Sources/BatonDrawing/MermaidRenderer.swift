/// Mermaid flowchart text of a drawing: clusters as subgraphs, `after` edges dotted, nodes classed
/// by state in a run. Node ids are generated (`n0`, `n1`, …); every label is quoted, with each
/// character that Mermaid or HTML would read written as an entity code (`#60;`).
public struct MermaidRenderer: Sendable {
    public init() {}

    public func render(_ drawing: GraphDrawing) -> String {
        var ids: [String: String] = [:]
        for (i, node) in drawing.nodes.enumerated() { ids[node.key] = "n\(i)" }
        var out = "flowchart TB\n"
        var classes: [String: [String]] = [:]
        func emit(_ parent: String?, indent: String) {
            for key in drawing.children(of: parent) {
                let node = drawing.node(key)!
                let label = NodeCaption.lines(node).map(Self.text).joined(separator: "<br/>")
                if drawing.isCluster(key) {
                    out += "\(indent)subgraph \(ids[key]!) [\"\(label)\"]\n"
                    out += "\(indent)  direction TB\n"
                    emit(key, indent: indent + "  ")
                    out += "\(indent)end\n"
                } else {
                    out += node.kind == .map ? "\(indent)\(ids[key]!)[[\"\(label)\"]]\n" : "\(indent)\(ids[key]!)[\"\(label)\"]\n"
                }
                if let status = node.status { classes[status.rawValue, default: []].append(ids[key]!) }
            }
        }
        emit(nil, indent: "  ")
        for edge in drawing.edges {
            out += "  \(ids[edge.from]!) \(edge.kind == .after ? "-.->" : "-->") \(ids[edge.to]!)\n"
        }
        if drawing.isRun {
            for status in StatusStyle.legend + [.ready] {
                let style = StatusStyle.of(status)
                out += "  classDef \(status.rawValue) fill:\(style.fill),stroke:\(style.stroke),color:\(style.text)\n"
            }
            for status in StatusStyle.legend + [.ready] {
                if let members = classes[status.rawValue] { out += "  class \(members.joined(separator: ",")) \(status.rawValue)\n" }
            }
        }
        return out
    }

    /// Text safe inside a quoted Mermaid label: letters, digits and a few plain punctuation marks
    /// as they are, everything else as `#code;`.
    static func text(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let plain =
                (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
                || " _-./:·,()".unicodeScalars.contains(scalar)
            if plain { out.unicodeScalars.append(scalar) } else { out += "#\(scalar.value);" }
        }
        return out
    }
}
