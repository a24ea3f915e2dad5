import Baton
import Testing

/// One expected problem: where, and words the message must contain.
struct ExpectedProblem: Sendable, CustomTestStringConvertible {
    let graph: String
    let node: String?
    let field: String
    let message: String
    var testDescription: String { "\(node ?? "-") \(field): \(message)" }
}

/// Checks that `graph` is rejected with exactly one problem matching `expected`.
func expectSingleProblem(
    _ expected: ExpectedProblem, knownProcedures: Set<String>? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let found = problems(expected.graph, knownProcedures: knownProcedures)
    #expect(found.count == 1, "problems: \(found)", sourceLocation: sourceLocation)
    guard let p = found.first else { return }
    #expect(p.node == expected.node, sourceLocation: sourceLocation)
    #expect(p.field == expected.field, sourceLocation: sourceLocation)
    #expect(p.message.contains(expected.message), "message was: \(p.message)", sourceLocation: sourceLocation)
}

/// A graph of one node `a` with the given extra node fields (JSON members text).
func oneNode(_ fields: String) -> String { #"{"nodes": {"a": {"procedure": "p"\#(fields.isEmpty ? "" : ", " + fields)}}}"# }

@Suite("GraphDecoder: problems")
struct GraphProblemTests {
    @Test(
        "graph-level problems",
        arguments: [
            ExpectedProblem(graph: "[]", node: nil, field: "", message: "a graph must be a JSON object, found array"),
            ExpectedProblem(graph: #""nodes""#, node: nil, field: "", message: "found string"),
            ExpectedProblem(graph: #"{"name": "x"}"#, node: nil, field: "nodes", message: "is required"),
            ExpectedProblem(
                graph: #"{"nodes": []}"#, node: nil, field: "nodes", message: "must be an object mapping node keys to nodes, found array"),
            ExpectedProblem(graph: #"{"nodes": {}}"#, node: nil, field: "nodes", message: "must have at least one node"),
            ExpectedProblem(graph: #"{"nodes": {"a": {"procedure": "p"}}, "extra": 1}"#, node: nil, field: "extra", message: "unknown field"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "p"}}, "name": 5}"#, node: nil, field: "name", message: "must be a non-empty string"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "p"}}, "name": ""}"#, node: nil, field: "name", message: "must be a non-empty string"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "p"}}, "defaults": []}"#, node: nil, field: "defaults",
                message: "must be an object, found array"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "p"}}, "defaults": {"colour": 1}}"#, node: nil, field: "defaults/colour",
                message: "unknown field"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "p"}}, "defaults": {"pool": "Big Pool"}}"#, node: nil, field: "defaults/pool",
                message: "invalid pool name 'Big Pool'"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "p"}}, "defaults": {"priority": 10}}"#, node: nil, field: "defaults/priority",
                message: "must be an integer from 0 to 9, found 10"),
        ])
    func graphLevel(_ expected: ExpectedProblem) {
        expectSingleProblem(expected)
    }

    @Test(
        "node field problems",
        arguments: [
            ExpectedProblem(graph: #"{"nodes": {"a": 5}}"#, node: "a", field: "", message: "a node must be an object, found number"),
            ExpectedProblem(
                graph: oneNode(#""colour": "red""#), node: "a", field: "colour",
                message:
                    "unknown field (expected one of: after, cache, concurrency, condition, dependencies, fair, group, input, map, mutex, on_failure, pool, priority, procedure, rate, repeat, retry, signal, timeout, when)"
            ),
            ExpectedProblem(graph: #"{"nodes": {"a": {"input": 1}}}"#, node: "a", field: "procedure", message: "is required"),
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": 42}}}"#, node: "a", field: "procedure", message: "must be a non-empty string, found number"),
            ExpectedProblem(graph: #"{"nodes": {"a": {"procedure": ""}}}"#, node: "a", field: "procedure", message: "must be a non-empty string"),
            ExpectedProblem(graph: oneNode(#""after": "b""#), node: "a", field: "after", message: "must be an array of node keys, found string"),
            ExpectedProblem(graph: oneNode(#""after": [1]"#), node: "a", field: "after/0", message: "must be a node key string, found number"),
            ExpectedProblem(graph: oneNode(#""after": ["ghost"]"#), node: "a", field: "after/0", message: "refers to missing node 'ghost'"),
            ExpectedProblem(graph: oneNode(#""after": ["a"]"#), node: "a", field: "after/0", message: "a node cannot come after itself"),
            ExpectedProblem(graph: oneNode(#""pool": 5"#), node: "a", field: "pool", message: "must be a string, found number"),
            ExpectedProblem(graph: oneNode(#""pool": "GPU""#), node: "a", field: "pool", message: "invalid pool name 'GPU'"),
            ExpectedProblem(graph: oneNode(#""pool": "-x""#), node: "a", field: "pool", message: "invalid pool name '-x'"),
            ExpectedProblem(graph: oneNode(#""pool": """#), node: "a", field: "pool", message: "must not be empty"),
            ExpectedProblem(graph: oneNode(#""priority": 10"#), node: "a", field: "priority", message: "must be an integer from 0 to 9, found 10"),
            ExpectedProblem(graph: oneNode(#""priority": -1"#), node: "a", field: "priority", message: "must be an integer from 0 to 9, found -1"),
            ExpectedProblem(graph: oneNode(#""priority": 1.5"#), node: "a", field: "priority", message: "must be an integer from 0 to 9, found 1.5"),
            ExpectedProblem(graph: oneNode(#""priority": "3""#), node: "a", field: "priority", message: "must be an integer from 0 to 9"),
            ExpectedProblem(graph: oneNode(#""priority": true"#), node: "a", field: "priority", message: "must be an integer from 0 to 9"),
        ])
    func nodeFields(_ expected: ExpectedProblem) {
        expectSingleProblem(expected)
    }

    @Test(
        "input reference problems",
        arguments: [
            ExpectedProblem(
                graph: oneNode(#""input": {"x": {"$from": "ghost"}}"#), node: "a", field: "input/x/$from", message: "refers to missing node 'ghost'"),
            ExpectedProblem(
                graph: oneNode(#""input": {"$from": "a"}"#), node: "a", field: "input/$from", message: "a node cannot refer to its own output"),
            ExpectedProblem(
                graph: oneNode(#""input": {"list": [0, {"$from": "a", "select": "/x"}]}"#), node: "a", field: "input/list/1/$from",
                message: "cannot refer to its own output"),
            ExpectedProblem(
                graph: oneNode(#""input": {"x": {"$from": 7}}"#), node: "a", field: "input/x/$from",
                message: "must be a node key string, found number"),
            ExpectedProblem(
                graph: oneNode(#""input": {"a/b": {"m~n": {"$from": "zz"}}}"#), node: "a", field: "input/a~1b/m~0n/$from",
                message: "refers to missing node 'zz'"),
            ExpectedProblem(
                graph: #"{"nodes": {"b": {"procedure": "p"}, "a": {"procedure": "p", "input": {"x": {"$from": "b", "select": "bytes"}}}}}"#,
                node: "a", field: "input/x/select", message: "invalid JSON pointer 'bytes': must be empty or start with '/'"),
            ExpectedProblem(
                graph: #"{"nodes": {"b": {"procedure": "p"}, "a": {"procedure": "p", "input": {"x": {"$from": "b", "select": "/a~2"}}}}}"#,
                node: "a", field: "input/x/select", message: "invalid JSON pointer '/a~2': '~' must be followed by 0 or 1"),
            ExpectedProblem(
                graph: #"{"nodes": {"b": {"procedure": "p"}, "a": {"procedure": "p", "input": {"x": {"$from": "b", "select": 3}}}}}"#,
                node: "a", field: "input/x/select", message: "must be a JSON pointer string"),
            ExpectedProblem(
                graph: #"{"nodes": {"b": {"procedure": "p"}, "a": {"procedure": "p", "input": {"x": {"$from": "b", "selct": "/y"}}}}}"#,
                node: "a", field: "input/x/selct", message: "unknown field in a reference"),
            ExpectedProblem(
                graph: #"{"nodes": {"b": {"procedure": "p"}, "a": {"procedure": "p", "input": [{"$from": "b", "default": 0}]}}}"#,
                node: "a", field: "input/0/default", message: "unknown field in a reference"),
        ])
    func references(_ expected: ExpectedProblem) {
        expectSingleProblem(expected)
    }

    @Test func unknownProcedureWithKnownProcedures() {
        expectSingleProblem(
            ExpectedProblem(
                graph: #"{"nodes": {"a": {"procedure": "baton.echo"}, "b": {"procedure": "demo.nope"}}}"#,
                node: "b", field: "procedure", message: "unknown procedure 'demo.nope'"),
            knownProcedures: ["baton.echo"])
        // Without a list of known procedures, any name is accepted.
        #expect(problems(#"{"nodes": {"b": {"procedure": "demo.nope"}}}"#).isEmpty)
    }

    @Test(
        "invalid node keys",
        arguments: [
            ("Upper", "must start with a lowercase letter or digit"),
            ("aB", "may only contain lowercase letters, digits, '_', '.' and '-'"),
            ("", "must not be empty"),
            ("-lead", "must start with a lowercase letter or digit"),
            ("_lead", "must start with a lowercase letter or digit"),
            (".lead", "must start with a lowercase letter or digit"),
            ("naïve", "may only contain"),
            ("日本", "must start with a lowercase letter or digit"),
            ("a b", "may only contain"),
            ("a/b", "may only contain"),
            (String(repeating: "k", count: 129), "is longer than 128 characters"),
        ])
    func invalidKeys(key: String, why: String) {
        expectSingleProblem(
            ExpectedProblem(
                graph: #"{"nodes": {\#(quoted(key)): {"procedure": "p"}}}"#,
                node: key, field: "", message: "invalid node key: \(why)"))
        #expect(NodeKey.problem(with: key) == why || NodeKey.problem(with: key)?.hasPrefix(why) == true)
    }

    @Test("valid node keys", arguments: ["a", "0", "9lives", "a_b.c-d", "x--y__z..", String(repeating: "k", count: 128)])
    func validKeys(key: String) throws {
        #expect(NodeKey.problem(with: key) == nil)
        let g = try graph(#"{"nodes": {\#(quoted(key)): {"procedure": "p", "pool": \#(quoted(key))}}}"#)
        #expect(g.order == [key])
        #expect(g.nodes[key]?.pool == key)
    }

    @Test func problemDescriptions() {
        #expect(GraphProblem(node: "a", field: "input/x", message: "bad").description == "node 'a', field 'input/x': bad")
        #expect(GraphProblem(node: "a", field: "", message: "bad").description == "node 'a': bad")
        #expect(GraphProblem(node: nil, field: "nodes", message: "bad").description == "field 'nodes': bad")
        #expect(GraphProblem(node: nil, field: "", message: "bad").description == "bad")
        let one = GraphValidationError(problems: [GraphProblem(node: nil, field: "", message: "x")])
        #expect(one.description == "invalid graph (1 problem):\n  - x")
    }

    @Test func invalidJSONBytesAreOneProblem() throws {
        let found = problems(#"{"nodes": {"a": {"procedure": "p",}}}"#)
        let p = try #require(found.first)
        #expect(found.count == 1)
        #expect(p.node == nil)
        #expect(p.message.hasPrefix("invalid JSON at line 1, column 35:"))
    }

    @Test func limits() throws {
        let text = #"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p", "input": [[[1]]]}}}"#
        let tooBig = problems(text, limits: GraphLimits(maxGraphBytes: 10))
        #expect(tooBig.count == 1)
        #expect(tooBig.first?.message == "graph file is \(text.utf8.count) bytes, more than the limit of 10")

        let tooMany = problems(text, limits: GraphLimits(maxNodes: 2))
        #expect(tooMany.count == 1)
        #expect(tooMany.first?.field == "nodes")
        #expect(tooMany.first?.message == "has 3 nodes, more than the limit of 2")

        let tooDeep = problems(text, limits: GraphLimits(maxDepth: 5))
        #expect(tooDeep.count == 1)
        #expect(tooDeep.first?.message.contains("nesting deeper than 5 levels") == true)
        #expect(problems(text, limits: GraphLimits(maxNodes: 3, maxGraphBytes: text.utf8.count, maxDepth: 6)).isEmpty)
    }

    @Test func aStaticInputOverTheInputLimitIsRefusedNamingNodeAndField() throws {
        let big = String(repeating: "x", count: 200)
        let text = #"{"nodes": {"a": {"procedure": "p"}, "big": {"procedure": "p", "input": {"text": "\#(big)", "a": {"$from": "a"}}}}}"#
        let found = problems(text, limits: GraphLimits(maxInputBytes: 100))
        // Measured as written: the reference counts as the object it is, not as what it injects later.
        let size = JSON(["text": .string(big), "a": ["$from": "a"]]).serializedBytes().count
        #expect(
            found == [
                GraphProblem(
                    node: "big", field: "input",
                    message: "is \(size) bytes as written, more than the limit of 100 (BATON_MAX_INPUT_BYTES)")
            ])
        #expect(problems(text, limits: GraphLimits(maxInputBytes: size)).isEmpty, "exactly at the limit is fine")
    }

    @Test func aStoredGraphIsNotMeasuredAgainstTodaysInputLimit() throws {
        // What was accepted at submit (perhaps under a larger BATON_MAX_INPUT_BYTES) must still load.
        let document = try json(#"{"nodes": {"big": {"procedure": "p", "input": {"text": "\#(String(repeating: "x", count: 200))"}}}}"#)
        #expect(throws: Never.self) { try GraphDecoder(limits: GraphLimits(maxInputBytes: 100)).decode(document) }
    }
}
