import Baton
import BatonDrawing
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Renderers")
struct RendererTests {
    static let hostile = "a<b&\"c'>"

    /// A run whose title, keys and procedures hold every character that matters to some format.
    static var hostileDrawing: GraphDrawing {
        GraphDrawing(
            title: "<script>alert(1)</script> & \"x\"",
            nodes: [
                DrawingNode(key: hostile, procedure: "p<&\">", status: .succeeded, attempts: 1),
                DrawingNode(key: "g\\\n{x}", procedure: "baton.group", kind: .group, status: .failed, attempts: 2),
                DrawingNode(key: "g\\\n{x}/c;d", procedure: "q]\"[", parent: "g\\\n{x}", status: .running, attempts: 1),
                DrawingNode(key: "m", procedure: "m<p>", kind: .map, status: .pending, attempts: 0),
            ],
            edges: [
                DrawingEdge(from: hostile, to: "g\\\n{x}/c;d", kind: .input), DrawingEdge(from: hostile, to: "m", kind: .after),
            ],
            isRun: true)
    }

    /// The SVG's elements with their attributes and text, as an XML parser reads them.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var texts: [String] = []
        private var current = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            elements.append((name, attributes))
            current = ""
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" || name == "title" { texts.append(current) }
            current = ""
        }
    }

    @Test func svgIsWellFormedAndEveryNameStaysText() throws {
        let svg = SVGRenderer().render(Self.hostileDrawing)
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        // No element but the SVG's own: the title's <script> is text.
        let names = Set(collector.elements.map(\.name))
        #expect(names.isSubset(of: ["svg", "title", "defs", "marker", "path", "rect", "g", "text"]), "\(names)")
        #expect(collector.texts.contains("<script>alert(1)</script> & \"x\""))
        #expect(collector.texts.contains(Self.hostile))
        #expect(collector.texts.contains("p<&\">"))
        #expect(collector.texts.contains("map · m<p>"))
        // Stable hooks: one element per node with its key, kind and state.
        let nodes = collector.elements.filter { $0.attributes["data-node"] != nil }
        #expect(Set(nodes.map { $0.attributes["data-node"]! }) == Set(Self.hostileDrawing.nodes.map(\.key)))
        let first = try #require(nodes.first { $0.attributes["data-node"] == Self.hostile })
        #expect(first.attributes["data-status"] == "succeeded" && first.attributes["data-attempts"] == "1")
        #expect(first.attributes["class"] == "baton-node" && first.attributes["data-procedure"] == "p<&\">")
        let cluster = try #require(nodes.first { $0.attributes["data-node"] == "g\\\n{x}" })
        #expect(cluster.attributes["class"] == "baton-cluster" && cluster.attributes["data-status"] == "failed")
        let edges = collector.elements.filter { $0.name == "path" && $0.attributes["class"]?.hasPrefix("baton-edge ") == true }
        #expect(edges.map { $0.attributes["data-kind"] } == ["input", "after"])
        #expect(edges.first?.attributes["data-from"] == Self.hostile)
        #expect(edges.last?.attributes["stroke-dasharray"] == "6 4")
        // The legend names every state.
        let legend = collector.elements.compactMap { $0.attributes["data-status"] }
        for status in StatusStyle.legend { #expect(legend.contains(status.rawValue)) }
    }

    @Test func svgColorsNodesByState() {
        let svg = SVGRenderer().render(Self.hostileDrawing)
        #expect(svg.contains("fill=\"\(StatusStyle.of(.succeeded).fill)\""))
        #expect(svg.contains("fill=\"\(StatusStyle.of(.running).fill)\""))
        #expect(StatusStyle.of(.succeeded) != StatusStyle.of(.failed))
        #expect(StatusStyle.of(.queued) == StatusStyle.of(.waiting))
    }

    @Test func dotQuotesEveryName() {
        let dot = DOTRenderer().render(Self.hostileDrawing)
        #expect(dot.contains(#""a<b&\"c'>" [label="a<b&\"c'>\np<&\">\nsucceeded · 1 attempt""#), "\(dot)")
        #expect(dot.contains(#"label="{x}\nfailed"#) == false)  // the group's key is quoted whole, its line break escaped
        #expect(dot.contains(#"subgraph cluster_0 {"#))
        #expect(dot.contains(#"label="g\\\n{x}\ngroup\nfailed · 2 attempts";"#), "\(dot)")
        #expect(dot.contains(#""a<b&\"c'>" -> "m" [style=dashed];"#))
        #expect(dot.contains(#""a<b&\"c'>" -> "g\\\n{x}/c;d";"#))
        // Outside quoted strings there is nothing but DOT's own syntax.
        var outside = ""
        var quoted = false
        var escaped = false
        for c in dot {
            if quoted {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { quoted = false }
            } else if c == "\"" {
                quoted = true
            } else {
                outside.append(c)
            }
        }
        #expect(!quoted)
        #expect(!outside.contains("<") && !outside.contains("&") && !outside.contains("'"))
    }

    @Test func mermaidWritesEveryNameAsEntities() {
        let mermaid = MermaidRenderer().render(Self.hostileDrawing)
        #expect(mermaid.hasPrefix("flowchart TB\n"))
        #expect(mermaid.contains(#"n0["a#60;b#38;#34;c#39;#62;<br/>p#60;#38;#34;#62;<br/>succeeded · 1 attempt"]"#), "\(mermaid)")
        #expect(mermaid.contains("subgraph n1 ["))
        #expect(mermaid.contains("n0 --> n2") && mermaid.contains("n0 -.-> n3"))
        #expect(mermaid.contains("class n0 succeeded"))
        let structural = mermaid.replacingOccurrences(of: "<br/>", with: "").replacingOccurrences(of: "-.->", with: "")
            .replacingOccurrences(of: "-->", with: "")
        #expect(!structural.contains("<") && !structural.contains(">") && !structural.contains("&"))
        // Quotes only open and close labels: two per label line.
        for line in mermaid.split(separator: "\n") { #expect(line.filter { $0 == "\"" }.count % 2 == 0) }
    }

    @Test func aGraphFileDrawsGroupsMapsAndBothEdgeKinds() throws {
        let drawing = GraphDrawing(graph: try DrawingFixtures.graph(DrawingFixtures.nested))
        #expect(!drawing.isRun && drawing.title == "nested")
        #expect(drawing.node("each")?.kind == .map && drawing.node("each")?.procedure == "baton.echo")
        #expect(drawing.isCluster("stats") && drawing.isCluster("stats/inner") && !drawing.isCluster("each"))
        #expect(drawing.node("stats/inner/sum")?.parent == "stats/inner")
        #expect(drawing.edges.contains(DrawingEdge(from: "base", to: "side", kind: .after)))
        #expect(drawing.edges.contains(DrawingEdge(from: "stats/double", to: "stats/square", kind: .after)))
        #expect(drawing.edges.contains(DrawingEdge(from: "base", to: "each", kind: .input)))
        // The group itself waits for `base` only through its children: that edge is the children's.
        #expect(!drawing.edges.contains { $0.to == "stats" })
        for format in DrawingFormat.allCases { #expect(!format.render(drawing).isEmpty) }
    }
}
