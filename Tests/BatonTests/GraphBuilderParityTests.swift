import Baton
import Testing

/// What the builder gained so that it can say what a file says: a map's `rate` and `select` by pointer.
@Suite struct GraphBuilderParityTests {
    struct Host: Codable { var host: String }

    @Test func mapRateKeyFromTheElement() throws {
        var g = GraphBuilder(name: "hosts")
        let hosts = g.add("hosts", procedure: "baton.echo", input: .literal([["host": "a"], ["host": "b"]]))
        g.map(
            "ping", over: hosts.output.unchecked(as: [Host].self), procedure: "baton.echo",
            rate: { RateOption(key: $0.item(\.host), limit: 5, per: .seconds(1)) }
        ) { $0.item.json }
        let map = try #require(g.json()["nodes"]?["ping"]?["map"])
        #expect(map["rate"] == ["key": ["$item": "/host"], "limit": 5, "per": "1s"])
        let graph = try g.build()
        #expect(graph.nodes["ping"] != nil)
    }

    @Test func itemOutsideAMapRateIsAProblem() {
        var g = GraphBuilder(name: "bad")
        let list = g.add("list", procedure: "baton.echo", input: .literal([1, 2]))
        var leaked: GraphValue<Int>?
        g.map("m", over: list.output.unchecked(as: [Int].self), procedure: "baton.echo") { item in
            leaked = item.index
            return item.item.json
        }
        g.add("after", procedure: "baton.echo", options: NodeOptions(rate: RateOption(key: leaked!, limit: 1, per: .seconds(1))))
        #expect(g.problems.map(\.message) == ["$item and $index are only meaningful in a map's input template"])
    }

    @Test func selectByPointer() throws {
        var g = GraphBuilder(name: "select")
        let rows = g.add("rows", procedure: "baton.echo", input: .literal(["rows": [[1, 2]]]))
        g.add("first", procedure: "baton.echo", input: rows.output.select("/rows/0/1"))
        #expect(g.json()["nodes"]?["first"]?["input"] == ["$from": "rows", "select": "/rows/0/1"])
        _ = try g.build()
        var bad = GraphBuilder(name: "bad")
        let other = bad.add("rows", procedure: "baton.echo")
        bad.add("first", procedure: "baton.echo", input: other.output.select("rows"))
        #expect(bad.problems.count == 1 && bad.problems.first?.message.hasPrefix("'rows' is not a JSON pointer") == true, "\(bad.problems)")
    }
}
