import Baton
import BatonDrawing
import Testing

@Suite("LayeredLayout")
struct LayoutTests {
    /// Every promise a layout makes, checked on one drawing.
    static func check(_ drawing: GraphDrawing, sourceLocation: SourceLocation = #_sourceLocation) -> DrawingLayout {
        let layout = LayeredLayout().layout(drawing)
        #expect(layout.boxes.count == drawing.nodes.count, sourceLocation: sourceLocation)
        #expect(layout.routes.count == drawing.edges.count, sourceLocation: sourceLocation)
        // Edges go downward, to a later layer.
        for route in layout.routes {
            #expect(route.toLayer > route.fromLayer, "\(route.edge)", sourceLocation: sourceLocation)
            let first = route.points.first!, last = route.points.last!
            #expect(last.y > first.y, "\(route.edge) goes from y \(first.y) to \(last.y)", sourceLocation: sourceLocation)
            #expect(first.y == layout.boxes[route.edge.from]!.maxY, sourceLocation: sourceLocation)
            #expect(route.points.allSatisfy { $0.x >= -30 && $0.x <= layout.width + 30 }, sourceLocation: sourceLocation)
        }
        // Each cluster holds its children; no two boxes overlap unless one holds the other.
        func ancestors(_ key: String) -> Set<String> {
            var result = Set<String>()
            var current = drawing.node(key)?.parent
            while let parent = current {
                result.insert(parent)
                current = drawing.node(parent)?.parent
            }
            return result
        }
        for node in drawing.nodes {
            let box = layout.boxes[node.key]!
            #expect(box.x >= 0 && box.y >= 0 && box.maxX <= layout.width + 0.01 && box.maxY <= layout.height + 0.01, sourceLocation: sourceLocation)
            if let parent = node.parent {
                #expect(layout.boxes[parent]!.contains(box), "\(parent) does not hold \(node.key)", sourceLocation: sourceLocation)
            }
        }
        let keys = drawing.nodes.map(\.key)
        let lineage = Dictionary(uniqueKeysWithValues: keys.map { ($0, ancestors($0)) })
        for (i, a) in keys.enumerated() {
            for b in keys[(i + 1)...] where !lineage[a]!.contains(b) && !lineage[b]!.contains(a) {
                #expect(!layout.boxes[a]!.overlaps(layout.boxes[b]!), "\(a) overlaps \(b)", sourceLocation: sourceLocation)
            }
        }
        return layout
    }

    @Test func oneNode() {
        let layout = Self.check(GraphDrawing(title: "one", nodes: [DrawingNode(key: "a", procedure: "baton.echo")], edges: [], isRun: false))
        #expect(layout.width > 0 && layout.width < 300 && layout.height < 100)
    }

    @Test func groupsAndMapsFromAFile() throws {
        let drawing = GraphDrawing(graph: try DrawingFixtures.graph(DrawingFixtures.nested))
        let layout = Self.check(drawing)
        // The edge from `base` into the group is laid out at the top, between `base` and `stats`.
        let into = try #require(layout.routes.first { $0.edge.from == "base" && $0.edge.to == "stats/double" })
        #expect(into.toLayer == into.fromLayer + 1)
        #expect(layout.boxes["stats"]!.contains(layout.boxes["stats/inner/sum"]!))
    }

    @Test func aWideFanOutWrapsIntoRowsOfBoundedWidth() {
        let layout = Self.check(DrawingFixtures.fanOut(500))
        #expect(layout.width <= 1900, "width \(layout.width)")
        #expect(layout.height <= 4500, "height \(layout.height)")
        // Far from a single row: many rows, and wider than tall is not required, but not a sliver either.
        #expect(layout.width >= 1000)
    }

    @Test func aLongChainIsOneColumn() {
        let layout = Self.check(DrawingFixtures.chain(500))
        #expect(layout.width <= 300)
        #expect(layout.height <= 500 * 120)
    }

    @Test(arguments: [1, 2, 3]) func randomGraphsOf500Nodes(seed: UInt64) {
        let layout = Self.check(DrawingFixtures.randomDAG(500, seed: seed))
        #expect(layout.width <= 3000, "width \(layout.width)")
    }

    @Test func aRunsMapChildrenSitInsideTheMapsCluster() throws {
        let graph = try DrawingFixtures.graph(DrawingFixtures.nested)
        var states = (0..<40).map { NodeRunState(key: "each/\($0)", procedure: "baton.echo", status: .succeeded, attempts: 1) }
        states.append(NodeRunState(key: "each", procedure: "baton.echo", status: .succeeded, attempts: 1))
        let drawing = GraphDrawing(run: graph, states: states)
        #expect(drawing.isCluster("each"))
        let layout = Self.check(drawing)
        for i in 0..<40 { #expect(layout.boxes["each"]!.contains(layout.boxes["each/\(i)"]!)) }
    }

    @Test func barycenterOrderingRemovesAvoidableCrossings() {
        // a1 feeds b2 and a2 feeds b1, listed crosswise: the sweeps uncross them.
        let nodes = ["a1", "a2", "b1", "b2"].map { DrawingNode(key: $0, procedure: "p") }
        let edges = [DrawingEdge(from: "a1", to: "b2", kind: .input), DrawingEdge(from: "a2", to: "b1", kind: .input)]
        let layout = Self.check(GraphDrawing(title: "x", nodes: nodes, edges: edges, isRun: false))
        let b = layout.boxes
        #expect((b["a1"]!.x < b["a2"]!.x) == (b["b2"]!.x < b["b1"]!.x))
    }
}
