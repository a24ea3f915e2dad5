import Baton
import BatonDrawing

/// Graphs and drawings the drawing tests share.
enum DrawingFixtures {
    /// A graph decoded from a graph file's text.
    static func graph(_ text: String) throws -> Graph { try GraphDecoder().decode(Array(text.utf8)) }

    /// `source` feeding `count` nodes, all feeding `sink`.
    static func fanOut(_ count: Int) -> GraphDrawing {
        var nodes = [DrawingNode(key: "source", procedure: "baton.echo")]
        var edges: [DrawingEdge] = []
        for i in 0..<count {
            nodes.append(DrawingNode(key: "worker-\(i)", procedure: "baton.echo"))
            edges.append(DrawingEdge(from: "source", to: "worker-\(i)", kind: .input))
            edges.append(DrawingEdge(from: "worker-\(i)", to: "sink", kind: i % 2 == 0 ? .input : .after))
        }
        nodes.append(DrawingNode(key: "sink", procedure: "baton.add"))
        return GraphDrawing(title: "fan-out", nodes: nodes, edges: edges, isRun: false)
    }

    /// A chain of `count` nodes.
    static func chain(_ count: Int) -> GraphDrawing {
        let nodes = (0..<count).map { DrawingNode(key: "step-\($0)", procedure: "baton.echo") }
        let edges = (1..<count).map { DrawingEdge(from: "step-\($0 - 1)", to: "step-\($0)", kind: .input) }
        return GraphDrawing(title: "chain", nodes: nodes, edges: edges, isRun: false)
    }

    /// `count` nodes, each depending on up to three random earlier ones (deterministic).
    static func randomDAG(_ count: Int, seed: UInt64) -> GraphDrawing {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let nodes = (0..<count).map { DrawingNode(key: "n\($0)", procedure: "p\($0 % 7)") }
        var edges: [DrawingEdge] = []
        for i in 1..<count {
            for _ in 0..<(1 + next(3)) {
                let j = max(0, i - 1 - next(min(i, 40)))
                edges.append(DrawingEdge(from: "n\(j)", to: "n\(i)", kind: next(4) == 0 ? .after : .input))
            }
        }
        return GraphDrawing(title: "random", nodes: nodes, edges: edges, isRun: false)
    }

    /// Groups in groups, with edges into, out of and across them.
    static let nested = """
        {"name": "nested", "nodes": {
          "base": {"procedure": "baton.echo", "input": {"value": 7}},
          "stats": {"group": {"nodes": {
              "double": {"procedure": "baton.echo", "input": {"v": {"$from": "base"}}},
              "square": {"procedure": "baton.echo", "input": {"v": {"$from": "base"}}, "after": ["double"]},
              "inner": {"group": {"nodes": {"sum": {"procedure": "baton.add", "input": {"values": [{"$from": "double"}, {"$from": "square"}]}}}}}
          }}},
          "side": {"procedure": "baton.echo", "input": {}, "after": ["base"]},
          "each": {"map": {"over": {"$from": "base", "select": "/value"}, "procedure": "baton.echo"}},
          "report": {"procedure": "baton.echo", "input": {"s": {"$from": "stats"}, "e": {"$from": "each"}}, "after": ["side"]}
        }}
        """
}
