import Baton
import Foundation
import Testing

/// Each bad form of `group`, `map` and their references is refused with one clear line naming node and field.
@Suite("GraphDecoder: groups and maps")
struct CompositionDecodingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let graph: String
        let node: String?
        let field: String
        let message: String
        var testDescription: String { "\(node ?? "-") \(field): \(message)" }
    }

    @Test(
        "bad forms",
        arguments: [
            Case(graph: #"{"nodes": {"g": {"group": []}}}"#, node: "g", field: "group", message: "must be an object like"),
            Case(graph: #"{"nodes": {"g": {"group": {}}}}"#, node: "g", field: "group/nodes", message: "is required"),
            Case(
                graph: #"{"nodes": {"g": {"group": {"nodes": {}}}}}"#, node: "g", field: "group/nodes",
                message: "at least one node, found an empty object"),
            Case(
                graph: #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p"}}, "outputs": 1}}}}"#, node: "g", field: "group/outputs",
                message: "unknown field"),
            Case(
                graph: #"{"nodes": {"g": {"input": {}, "group": {"nodes": {"a": {"procedure": "p"}}}}}}"#, node: "g", field: "input",
                message: "a group node has no input"),
            Case(
                graph: #"{"nodes": {"g": {"procedure": "p", "group": {"nodes": {"a": {"procedure": "p"}}}}}}"#, node: "g", field: "group",
                message: "not both procedure and group"),
            Case(
                graph: #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p", "input": {"$from": "g"}}}}}}}"#, node: "g/a",
                field: "input/$from", message: "a group this node is in"),
            Case(
                graph: #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p", "input": {"$from": "zz"}}}}}}}"#, node: "g/a",
                field: "input/$from", message: "refers to missing node 'zz'"),
            Case(
                graph: #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p", "after": ["b"]}, "b": {"procedure": "p", "after": ["a"]}}}}}}"#,
                node: "g/a", field: "", message: "dependency cycle"),
            Case(
                graph: #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p"}}}}, "x": {"procedure": "p", "input": {"$from": "a"}}}}"#,
                node: "x", field: "input/$from", message: "refers to missing node 'a'"),
            Case(
                graph:
                    #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p", "input": {"$from": "x"}}}}}, "x": {"procedure": "p", "after": ["g"]}}}"#,
                node: "g", field: "", message: "dependency cycle"),
            Case(graph: #"{"nodes": {"m": {"map": 1}}}"#, node: "m", field: "map", message: "must be an object like"),
            Case(graph: #"{"nodes": {"m": {"map": {"procedure": "p"}}}}"#, node: "m", field: "map/over", message: "is required"),
            Case(graph: #"{"nodes": {"m": {"map": {"over": [1]}}}}"#, node: "m", field: "map/procedure", message: "is required"),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": {"a": 1}, "procedure": "p"}}}}"#, node: "m", field: "map/over",
                message: "must be an array or a $from reference to one, found object"),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": [1], "procedure": "p", "concurrency": 0}}}}"#, node: "m", field: "map/concurrency",
                message: "must be an integer from 1 to 100000, found 0"),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": [1], "procedure": "p", "failure": "stop"}}}}"#, node: "m", field: "map/failure",
                message: #"must be "fail-fast" or "collect", found "stop""#),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": [1], "procedure": "p", "extra": 1}}}}"#, node: "m", field: "map/extra",
                message: "unknown field"),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": [1], "procedure": "baton.delay"}}}}"#, node: "m", field: "map/procedure",
                message: "baton.delay cannot be mapped"),
            Case(
                graph: #"{"nodes": {"m": {"repeat": {"until": {"equals": 1}}, "map": {"over": [1], "procedure": "p"}}}}"#, node: "m", field: "repeat",
                message: "a map node has no repeat"),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": [1], "procedure": "p", "input": {"$item": 3}}}}}"#, node: "m", field: "map/input/$item",
                message: "must be a JSON pointer string"),
            Case(
                graph: #"{"nodes": {"m": {"map": {"over": [1], "procedure": "p", "input": {"$index": 1}}}}}"#, node: "m", field: "map/input/$index",
                message: #"must be written {"$index": true}"#),
            Case(
                graph: #"{"nodes": {"a": {"procedure": "p", "input": {"$item": ""}}}}"#, node: "a", field: "input/$item",
                message: "only meaningful in a map's input"),
        ])
    func badForm(_ c: Case) {
        let found = problems(c.graph)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.node == c.node)
        #expect(found.first?.field == c.field)
        #expect(found.first?.message.contains(c.message) == true, "\(found.first?.message ?? "accepted")")
    }

    @Test func childrenCountTowardTheNodeLimitAtSubmit() {
        let found = problems(
            #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}}}}"#, limits: GraphLimits(maxNodes: 2))
        #expect(found.map(\.message) == ["has 3 nodes counting those in groups, more than the limit of 2"])
    }

    @Test func groupsNestOnlyAsDeepAsTheDepthLimit() {
        var text = #"{"procedure": "p"}"#
        for _ in 0..<5 { text = #"{"group": {"nodes": {"g": \#(text)}}}"# }
        let found = problems(#"{"nodes": {"g": \#(text)}}"#, limits: GraphLimits(maxDepth: 40))
        #expect(found.isEmpty)
        // A spawned graph starts a new document, so the depth of keys is what bounds spawning.
        let fragment: JSON = ["nodes": ["a": ["procedure": "p"]]]
        #expect(throws: Never.self) { try GraphDecoder(limits: GraphLimits(maxDepth: 4)).decodeFragment(fragment, parent: "f/a/a") }
        #expect {
            try GraphDecoder(limits: GraphLimits(maxDepth: 4)).decodeFragment(fragment, parent: "f/a/a/a")
        } throws: { error in
            (error as? GraphValidationError)?.problems.first?.message == "would nest 5 levels deep, more than the limit of 4"
        }
    }

    @Test func aPlanWithGroupsAndMapsRoundTripsThroughItsStoredForm() throws {
        let g = try graph(CompositionTests.group)
        let m = try graph(CompositionTests.map)
        for original in [g, m] {
            let decoded = try WireFormat.decode(Graph.self, from: WireFormat.encode(original), what: "plan")
            #expect(decoded.nodes == original.nodes)
            #expect(decoded.order == original.order)
        }
    }
}

@Suite("stored plans")
struct StoredPlanTests {
    @Test func everyExampleRoundTripsThroughTheCompactPlan() throws {
        let directory = ExampleGraphTests.directory
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".json") && name != "invalid.json" {
            let original = try GraphDecoder().decode(Array(try Data(contentsOf: directory.appendingPathComponent(name))))
            let decoded = try WireFormat.decode(Graph.self, from: WireFormat.encode(original), what: "plan")
            #expect(decoded.nodes == original.nodes, "\(name)")
        }
    }

    @Test func aMapElementThatLooksLikeAReferenceStaysALiteral() throws {
        // A map child's input holds its element as a literal; data shaped like a reference must not become one.
        var h = Harness(try graph(#"{"nodes": {"list": {"procedure": "p"}, "m": {"map": {"over": {"$from": "list"}, "procedure": "q"}}}}"#))
        h.start()
        let children = h.succeed("list", [["$from": "x"], ["$index": true]]).dispatches
        #expect(children.map(\.input) == [["$from": "x"], ["$index": true]])
        var fragment: GroupSpec?
        for command in h.log { if case let .expand(_, f, _) = command { fragment = f } }
        let stored = try WireFormat.decode(GroupSpec.self, from: WireFormat.encode(try #require(fragment)), what: "fragment")
        #expect(stored == fragment)
    }

    @Test func aVersionOnePlanIsStillRead() throws {
        let v1 =
            #"{"v": 1, "name": "old", "order": ["a"], "nodes": {"a": {"key": "a", "procedure": "p", "input": {"literal": {"_0": {"x": 1}}}, "after": [], "pool": "default", "priority": 0, "policies": {"dependencies": "all-succeeded", "onFailure": "fail"}, "dependencies": []}}}"#
        let graph = try WireFormat.decode(Graph.self, from: Array(v1.utf8), what: "plan")
        #expect(graph.nodes["a"]?.input == .literal(["x": 1]))
    }
}
