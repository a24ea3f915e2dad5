import Baton
import Foundation
import Testing

/// The plan a run stores (`baton.runs.plan`) written and read without Foundation's coders: the same
/// document `Codable` gives, read back to the same graph, and version 1 plans still read.
@Suite("plan format")
struct PlanFormatTests {
    /// Every policy, a group, a map and a literal that looks like a reference.
    static let rich = #"""
        {"name": "rich", "defaults": {"retry": {"attempts": 3, "wait": {"exponential": {"initial": "1s", "max": "1m"}}}},
         "nodes": {"a": {"procedure": "baton.echo", "input": {"x": [1, 2.5, {"$from": "b", "select": "/y/0"}], "s": "q\"\n\u0001é"},
                         "timeout": "5s", "when": {"$from": "b"}, "priority": 3, "pool": "gpu", "on_failure": "ignore",
                         "mutex": ["db"], "cache": {"ttl": "1h"}},
                   "b": {"procedure": "baton.add", "input": {"values": [1]},
                         "condition": {"procedure": "baton.echo", "input": true, "negate": true},
                         "repeat": {"until": {"select": "", "equals": {"k": [1, null]}}, "wait": {"random": {"min": "1s", "max": "2s"}}, "max": 3}},
                   "c": {"procedure": "baton.echo", "input": {}, "after": ["a"], "dependencies": "all-finished",
                         "concurrency": {"key": {"$from": "b", "select": "/k"}, "limit": 2},
                         "retry": {"attempts": 2, "wait": {"fibonacci": {"period": "1s"}}, "jitter": true}},
                   "d": {"procedure": "baton.echo", "input": 1, "retry": {"attempts": 2, "wait": {"incrementing": {"initial": "1s", "increment": "250ms"}}}},
                   "e": {"procedure": "baton.echo", "input": [], "retry": {"attempts": 2, "wait": {"constant": "2s"}}}}}
        """#

    static func graphs() throws -> [(String, Graph)] {
        var result: [(String, Graph)] = [
            ("rich", try graph(rich)), ("group", try graph(CompositionTests.group)), ("map", try graph(CompositionTests.map)),
        ]
        let directory = ExampleGraphTests.directory
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        where name.hasSuffix(".json") && name != "invalid.json" {
            result.append((name, try GraphDecoder().decode(Array(try Data(contentsOf: directory.appendingPathComponent(name))))))
        }
        return result
    }

    @Test func theWrittenPlanIsTheDocumentCodableWrites() throws {
        for (name, g) in try Self.graphs() {
            #expect(try JSONParser.parse(g.planBytes(), maxDepth: 1024) == JSONParser.parse(WireFormat.encode(g), maxDepth: 1024), "\(name)")
        }
    }

    @Test func aPlanReadsBackAsTheGraphThroughEitherReader() throws {
        for (name, g) in try Self.graphs() {
            let direct = try Graph(plan: g.planBytes())
            #expect(direct.name == g.name && direct.order == g.order && direct.nodes == g.nodes, "\(name)")
            let codable = try WireFormat.decode(Graph.self, from: g.planBytes(), what: "plan")
            #expect(codable.nodes == g.nodes, "\(name)")
            // And plans written through Codable (stored by earlier builds) read the same.
            #expect(try Graph(plan: WireFormat.encode(g)).nodes == g.nodes, "\(name)")
        }
    }

    @Test func aLiteralThatLooksLikeAReferenceStaysALiteral() throws {
        // Such a literal (a map element taken from an output) is stored in its full form, never as written text.
        let text =
            #"{"v": 2, "name": "n", "order": ["a"], "nodes": {"a": {"key": "a", "procedure": "p", "input": {"literal": {"_0": {"$from": "x"}}}, "after": [], "pool": "default", "priority": 0, "policies": {"dependencies": "all-succeeded", "onFailure": "fail"}, "dependencies": []}}}"#
        let g = try Graph(plan: Array(text.utf8))
        #expect(g.nodes["a"]?.input == .literal(["$from": "x"]))
        let written = g.planBytes()
        #expect(try JSONParser.parse(written)["nodes"]?["a"]?["template"] == nil)
        #expect(try Graph(plan: written).nodes == g.nodes)
        #expect(try JSONParser.parse(written) == JSONParser.parse(WireFormat.encode(g)))
    }

    @Test func aVersionOnePlanIsStillRead() throws {
        let v1 =
            #"{"v": 1, "name": "old", "order": ["a"], "nodes": {"a": {"key": "a", "procedure": "p", "input": {"object": {"_0": [{"key": "x", "value": {"reference": {"_0": {"node": "b", "select": {"tokens": ["y"]}}}}}]}}, "after": [], "pool": "default", "priority": 0, "policies": {"dependencies": "all-succeeded", "onFailure": "fail"}, "dependencies": ["b"]}}}"#
        let g = try Graph(plan: Array(v1.utf8))
        #expect(g.name == "old" && g.order == ["a"])
        #expect(g.nodes == (try WireFormat.decode(Graph.self, from: Array(v1.utf8), what: "plan")).nodes)
        #expect(g.nodes["a"]?.input.references == [Reference(node: "b", select: JSONPointer(tokens: ["y"]))])
        #expect(g.nodes["a"]?.dependencies == ["b"])
    }

    @Test(arguments: [
        (#"{"v": 3, "name": "n", "order": [], "nodes": {}}"#, "stored plan has version 3, not 1 or 2"),
        (#"{"v": 1, "name": 3}"#, "stored plan is malformed: '/name': expected a string, found number"),
        (#"{"v": 2, "name": "n", "order": ["a"]}"#, "stored plan is malformed: '/nodes': required field is missing"),
        (
            #"{"v": 2, "name": "n", "order": ["a"], "nodes": {"a": {"key": "a", "procedure": "p", "template": "{", "after": [], "pool": "default", "priority": 0, "policies": {"dependencies": "all-succeeded", "onFailure": "fail"}, "dependencies": []}}}"#,
            "stored plan is malformed: '/nodes/a/template': invalid JSON at line 1, column 2: unexpected end of input inside an object"
        ),
        (
            #"{"v": 2, "name": "n", "order": ["a"], "nodes": {"a": {"key": "a", "procedure": "p", "template": "{}", "after": [], "pool": "default", "priority": 0, "policies": {"dependencies": "sometimes", "onFailure": "fail"}, "dependencies": []}}}"#,
            "stored plan is malformed: '/nodes/a/policies/dependencies': unknown value 'sometimes'"
        ),
        ("[1", "stored plan is malformed: invalid JSON at line 1, column 1: unexpected '[', expected an object"),
        (#"{"v": 2, "name": "n", "order": [], "nodes": {"a": 1"#, "stored plan is malformed: '/nodes/a': expected an object, found number"),
        (
            #"{"v": 2, "name": "n", "order": [], "nodes": {}} x"#,
            "stored plan is malformed: invalid JSON at line 1, column 49: unexpected text after the JSON value"
        ),
        (
            #"{"v": 2, "name": "n", "order": [], "nodes": {"#,
            "stored plan is malformed: invalid JSON at line 1, column 46: unexpected end of input, expected a member name in double quotes"
        ),
    ])
    func aMalformedPlanNamesWhatIsWrong(text: String, message: String) {
        #expect {
            try Graph(plan: Array(text.utf8))
        } throws: { error in
            "\(error)" == message
        }
    }
}
