import Baton
import BatonDemo
import BatonTesting
import Testing

@Suite("run input: defaults, --input and $input")
struct RunInputTests {
    static let resize = #"""
        {
          "input": { "width": 100, "size": { "w": 1, "h": 2 } },
          "nodes": {
            "read": { "procedure": "baton.echo", "input": { "path": "a.png" } },
            "resize": { "procedure": "baton.echo", "input": { "width": { "$input": "/width" }, "image": { "$from": "read" } } }
          }
        }
        """#

    func decode(_ text: String, input: String? = nil) throws -> Graph {
        try GraphDecoder().decode(Array(text.utf8), input: try input.map { try json($0) })
    }

    func problems(_ text: String, input: String? = nil) throws -> [String] {
        do {
            _ = try decode(text, input: input)
            return []
        } catch let error as GraphValidationError {
            return error.problems.map(\.description)
        }
    }

    @Test func defaultsFillInputReferences() throws {
        let g = try decode(Self.resize)
        #expect(g.nodes["resize"]?.input.references.map(\.node) == ["read"])
        #expect(g.source["nodes"]?["resize"]?["input"]?["width"] == 100)
        #expect(g.input == ["width": 100, "size": ["w": 1, "h": 2]])
    }

    @Test func givenInputMergesDeeplyOverDefaults() throws {
        let g = try decode(Self.resize, input: #"{"size": {"h": 5, "d": 3}, "extra": [1]}"#)
        #expect(g.input == ["width": 100, "size": ["w": 1, "h": 5, "d": 3], "extra": [1]])
        #expect(g.input.objectValue?.keys == ["width", "size", "extra"], "defaults keep their order; new members come last")
        #expect(g.input["size"]?.objectValue?.keys == ["w", "h", "d"])
        #expect(g.source["input"] == g.input, "the stored graph carries the merged input")
    }

    @Test func mergeReplacesAnythingButTwoObjects() {
        #expect(RunInput.merge(["a": [1, 2]], ["a": [3]]) == ["a": [3]])
        #expect(RunInput.merge(["a": ["x": 1]], ["a": 5]) == ["a": 5])
        #expect(RunInput.merge(["a": 5], ["a": ["x": 1]]) == ["a": ["x": 1]])
        #expect(RunInput.merge(["a": 1], ["a": nil]) == ["a": nil], "null replaces too: it is a value")
        #expect(RunInput.merge([:], ["b": 2]) == ["b": 2])
    }

    @Test func wholeInputWithTheEmptyPointer() throws {
        let g = try decode(#"{"input": {"x": 1}, "nodes": {"a": {"procedure": "baton.echo", "input": {"$input": ""}}}}"#, input: #"{"y": 2}"#)
        #expect(g.nodes["a"]?.input == .literal(["x": 1, "y": 2]))
    }

    @Test func inputWithoutDefaults() throws {
        let g = try decode(#"{"nodes": {"a": {"procedure": "baton.echo", "input": {"v": {"$input": "/v"}}}}}"#, input: #"{"v": "hi"}"#)
        #expect(g.nodes["a"]?.input == .literal(["v": "hi"]))
        #expect(g.input == ["v": "hi"])
        let plain = try decode(#"{"nodes": {"a": {"procedure": "baton.echo"}}}"#)
        #expect(plain.input == [:])
        #expect(plain.source["input"] == nil, "a graph without input stores none")
    }

    @Test func inputWorksInEveryTemplateCarryingField() throws {
        let text = #"""
            {
              "input": { "go": true, "pool": "gpu", "attempts": 3, "neg": false, "src": "read" },
              "defaults": { "timeout": { "$input": "/t" } },
              "nodes": {
                "read": { "procedure": "baton.echo" },
                "a": { "procedure": "baton.echo", "when": { "$input": "/go" }, "pool": { "$input": "/pool" },
                       "retry": { "attempts": { "$input": "/attempts" } },
                       "condition": { "procedure": "baton.echo", "input": { "$input": "/go" }, "negate": { "$input": "/neg" } },
                       "input": { "x": { "$from": { "$input": "/src" } } } }
              }
            }
            """#
        let g = try decode(text, input: #"{"t": "5m"}"#)
        let a = try #require(g.nodes["a"])
        #expect(a.pool == "gpu")
        #expect(a.dependencies.contains("read"), "a $from whose node comes from the input is a real reference")
        #expect(g.source["nodes"]?["a"]?["when"] == true)
        #expect(g.source["nodes"]?["a"]?["condition"]?["input"] == true)
        #expect(g.source["defaults"]?["timeout"] == "5m")
    }

    @Test func missingPointerNamesNodeAndField() throws {
        #expect(
            try problems(Self.resize.replacingOccurrences(of: #""/width""#, with: #""/height""#)) == [
                "node 'resize', field 'input/width': $input pointer '/height' has no value in the run input"
            ])
    }

    @Test func everyProblemIsListedWithTheDecodersOwn() throws {
        let text = #"""
            {
              "input": { "n": 1 },
              "nodes": {
                "a": { "procedure": "baton.echo", "input": { "x": { "$input": "/missing" }, "y": { "$input": 5 } },
                       "pool": { "$input": "/nope" } },
                "b": { "procedure": "baton.echo", "when": { "$input": "no-slash" }, "after": ["ghost"] },
                "c": { "procedure": "baton.echo", "input": { "$input": "/n", "select": "/x" } }
              }
            }
            """#
        let found = try problems(text)
        #expect(
            found == [
                "node 'a', field 'input/x': $input pointer '/missing' has no value in the run input",
                #"node 'a', field 'input/y/$input': must be a JSON pointer string such as "/width" ("" for the whole input), found number"#,
                "node 'a', field 'pool': $input pointer '/nope' has no value in the run input",
                "node 'b', field 'when/$input': invalid JSON pointer 'no-slash': must be empty or start with '/'",
                "node 'c', field 'input': a $input reference has only the member '$input', found also 'select'",
                "node 'b', field 'after/0': refers to missing node 'ghost'",
            ], "the pool's own 'must be a string' and the when's shape are not reported twice")
    }

    @Test func aProblemInAPlacedValueNamesItsPointer() throws {
        let text = #"""
            {"input": {"pool": 5, "p": 12}, "defaults": {"pool": {"$input": "/pool"}},
             "nodes": {"a": {"procedure": "baton.echo", "priority": {"$input": "/p"}}}}
            """#
        #expect(
            try problems(text) == [
                "field 'defaults/pool': must be a string, found number (the value of $input '/pool')",
                "node 'a', field 'priority': must be an integer from 0 to 9, found 12 (the value of $input '/p')",
            ])
    }

    @Test func aFailureInDefaultsKeepsTheNodesProblems() throws {
        let text = #"{"defaults": {"pool": {"$input": "/p"}}, "nodes": {"a": {"procedure": "baton.echo", "after": ["ghost"]}}}"#
        #expect(
            try problems(text) == [
                "field 'defaults/pool': $input pointer '/p' has no value in the run input",
                "node 'a', field 'after/0': refers to missing node 'ghost'",
            ])
        #expect(
            try problems(#"{"nodes": {"$input": "/nodes"}}"#) == ["field 'nodes': $input pointer '/nodes' has no value in the run input"],
            "nothing the decoder makes of an unreplaced nodes object")
        let placed = try decode(#"{"input": {"nodes": {"a": {"procedure": "baton.echo"}}}, "nodes": {"$input": "/nodes"}}"#)
        #expect(placed.order == ["a"])
    }

    @Test func badInputShapes() throws {
        #expect(
            try problems(#"{"input": [1], "nodes": {"a": {"procedure": "baton.echo"}}}"#) == [
                "field 'input': must be an object of default values, found array"
            ])
        #expect(
            try problems(#"{"nodes": {"a": {"procedure": "baton.echo"}}}"#, input: "[1]") == [
                "field 'input': the run input must be an object, found array"
            ])
    }

    @Test func inputValuesAreDataNotMoreInputReferences() throws {
        let text = #"{"input": {"v": {"$input": "/w"}, "w": 1}, "nodes": {"a": {"procedure": "baton.echo", "input": {"$input": "/v"}}}}"#
        #expect(
            try problems(text) == [
                "node 'a', field 'input': $input pointer '/v' names a value that holds a $input object itself; a run input is data"
            ])
        // The defaults themselves may hold anything, as long as nothing reads such a part.
        _ = try decode(#"{"input": {"v": {"$input": "/w"}}, "nodes": {"a": {"procedure": "baton.echo"}}}"#)
    }

    @Test func nestedNodeDocumentsAreNamedByTheirPath() {
        let document: JSON = [
            "input": [:],
            "nodes": ["g": ["group": ["nodes": ["c": ["procedure": "baton.echo", "input": ["v": ["$input": "/v"]]]]]]],
        ]
        let resolved = RunInput.resolve(document)
        #expect(resolved.problems.map(\.description) == ["node 'g/c', field 'input/v': $input pointer '/v' has no value in the run input"])
        let ok = RunInput.resolve(document, given: ["v": 7])
        #expect(ok.problems.isEmpty)
        #expect(ok.document["nodes"]?["g"]?["group"]?["nodes"]?["c"]?["input"]?["v"] == 7)
        let bare = RunInput.resolve(["nodes": ["g": ["nodes": ["c": ["procedure": ["$input": "/p"]]]]]])
        #expect(bare.problems.map(\.description) == ["node 'g/c', field 'procedure': $input pointer '/p' has no value in the run input"])
    }

    @Test func groupsAndMapsTakeInputAndListEveryProblem() throws {
        let text = #"""
            {
              "input": { "items": [1, 2, 3], "pool": "default" },
              "nodes": {
                "g": { "group": { "nodes": {
                         "a": { "procedure": "baton.add", "input": { "values": { "$input": "/items" } } },
                         "b": { "procedure": "baton.echo", "input": { "x": { "$input": "/nope" } }, "after": ["ghost"] } },
                       "output": { "sum": { "$from": "a" }, "n": { "$input": "/items/0" } } } },
                "m": { "map": { "over": { "$input": "/items" }, "procedure": "baton.echo", "input": { "$item": "" } } }
              }
            }
            """#
        #expect(
            try problems(text) == [
                "node 'g/b', field 'input/x': $input pointer '/nope' has no value in the run input",
                "node 'g/b', field 'after/0': refers to missing node 'ghost'",
            ])
        let g = try decode(text.replacingOccurrences(of: #"{ "$input": "/nope" }"#, with: "1").replacingOccurrences(of: #""ghost""#, with: #""a""#))
        #expect(g.source["nodes"]?["m"]?["map"]?["over"] == [1, 2, 3])
        #expect(g.source["nodes"]?["g"]?["group"]?["output"]?["n"] == 1)
    }

    @Test func fieldsWithSlashesAreEscapedAsTheDecoderDoes() {
        let resolved = RunInput.resolve(["nodes": ["a": ["procedure": "baton.echo", "input": ["a/b": ["$input": "/x"]]]]])
        #expect(resolved.problems.map(\.field) == ["input/a~1b"])
    }

    @Test func aStoredGraphDecodesAgainToTheSameGraph() throws {
        let g = try decode(Self.resize, input: #"{"width": 7}"#)
        let again = try GraphDecoder().decode(g.source)
        #expect(again.order == g.order)
        #expect(again.nodes["resize"]?.input == g.nodes["resize"]?.input)
        #expect(again.input == g.input)
    }

    @Test func runsWithTheGivenInput() async throws {
        let registry = ProcedureRegistry.demo
        let text = #"{"input": {"values": [1, 2]}, "nodes": {"sum": {"procedure": "baton.add", "input": {"values": {"$input": "/values"}}}}}"#
        let graph = try GraphDecoder(knownProcedures: Set(registry.names)).decode(Array(text.utf8), input: ["values": [10, 20, 30]])
        let state = await LocalEngine(registry: registry).run(graph)
        #expect(state.status == .succeeded)
        #expect(state.nodes["sum"]?.output == 60)
    }

    @Test func theRunInputExampleRunsWithItsDefaultsAndWithAnInput() async throws {
        let registry = ProcedureRegistry.demo
        let bytes = try ExampleGraphTests.load("run-input.json")
        let decoder = GraphDecoder(knownProcedures: Set(registry.names))
        let defaults = await LocalEngine(registry: registry).run(try decoder.decode(bytes))
        #expect(defaults.nodes["report"]?.output == ["text": "Totals: 6 in all, 60 scaled by 10"])
        let given = try decoder.decode(bytes, input: ["numbers": [4, 5, 6], "report": ["title": "Q3"], "with_report": true])
        #expect(given.input["report"] == ["title": "Q3", "pool": "default"], "a given object merges into the default one")
        let state = await LocalEngine(registry: registry).run(given)
        #expect(state.nodes["report"]?.output == ["text": "Q3: 15 in all, 150 scaled by 10"])
        let skipped = await LocalEngine(registry: registry).run(try decoder.decode(bytes, input: ["with_report": false]))
        #expect(skipped.nodes["report"]?.status == .skipped)
    }
}
