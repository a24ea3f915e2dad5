import Baton
import BatonDemo
import Foundation
import Testing

@Suite("Type checking graphs against procedure schemas")
struct TypeCheckerTests {
    let checker = TypeChecker(schemas: ProcedureRegistry.demo.checkedSchemas)

    func typeProblems(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        checker.check(try graph(text, sourceLocation: sourceLocation)).map(\.description)
    }

    @Test func aStringWhereAnArrayIsExpected() throws {
        #expect(
            try typeProblems(#"{"nodes": {"sum": {"procedure": "baton.add", "input": {"values": "abc"}}}}"#)
                == [#"node 'sum', field 'input/values': expected array of number, found string "abc""#])
    }

    @Test func anInjectedObjectNamesTheMemberItLacksAndTheMembersItHas() throws {
        let text = #"""
            {"nodes": {
              "cd": {"procedure": "demo.countdown", "input": {"from": 2}},
              "st": {"procedure": "demo.steps", "input": {"$from": "cd"}}
            }}
            """#
        #expect(try typeProblems(text) == ["node 'st', field 'input': missing member 'seconds' (output of 'cd' has 'remaining')"])
    }

    @Test func wrongElementsAreEachReported() throws {
        #expect(
            try typeProblems(#"{"nodes": {"sum": {"procedure": "baton.add", "input": {"values": [1, "two", 3.5, true, null]}}}}"#)
                == [
                    #"node 'sum', field 'input/values/1': expected number, found string "two""#,
                    "node 'sum', field 'input/values/3': expected number, found boolean",
                    "node 'sum', field 'input/values/4': expected number, found null",
                ])
    }

    @Test func missingRequiredMembers() throws {
        #expect(
            try typeProblems(#"{"nodes": {"nap": {"procedure": "baton.sleep", "input": {}}, "f": {"procedure": "baton.fail", "input": {}}}}"#)
                == [
                    "node 'nap', field 'input/seconds': expected number, found nothing",
                    "node 'f', field 'input/message': expected string, found nothing",
                ])
    }

    @Test func theWholeInputOfTheWrongKind() throws {
        #expect(
            try typeProblems(#"{"nodes": {"nap": {"procedure": "baton.sleep", "input": [1]}}}"#)
                == ["node 'nap', field 'input': expected object, found array"])
    }

    @Test func integersWholeNumbersOptionalsAndExtraMembersAreFine() throws {
        let text = #"""
            {"nodes": {
              "a": {"procedure": "baton.fail", "input": {"message": "m", "succeed_on_attempt": 2.0, "permanent": null, "extra": [1]}},
              "b": {"procedure": "demo.countdown", "input": {"from": 3}},
              "c": {"procedure": "baton.echo", "input": {"anything": "goes"}},
              "d": {"procedure": "not.known", "input": {"values": "abc"}},
              "e": {"procedure": "baton.delay", "input": {"seconds": 1}}
            }}
            """#
        #expect(try typeProblems(text) == [])
    }

    @Test func wrongScalarsAndEnums() throws {
        let text = #"""
            {"nodes": {
              "a": {"procedure": "baton.fail", "input": {"message": 5, "succeed_on_attempt": 1.5, "permanent": "yes"}}
            }}
            """#
        #expect(
            try typeProblems(text) == [
                "node 'a', field 'input/message': expected string, found integer",
                "node 'a', field 'input/permanent': expected boolean, found string \"yes\"",
                "node 'a', field 'input/succeed_on_attempt': expected integer, found number",
            ])
        let enumChecker = TypeChecker(schemas: [
            "x.paint": ProcedureSchema(input: .object([SchemaProperty("colour", .string(values: ["red", "green"]))]), output: .any)
        ])
        let g = try graph(#"{"nodes": {"p": {"procedure": "x.paint", "input": {"colour": "blue"}}}}"#)
        #expect(
            enumChecker.check(g).map(\.description)
                == [#"node 'p', field 'input/colour': expected string (one of "red", "green"), found string "blue""#])
    }

    @Test func referencesAreCheckedByTheOutputTheySelect() throws {
        let text = #"""
            {"nodes": {
              "nap": {"procedure": "baton.sleep", "input": {"seconds": 0}},
              "count": {"procedure": "demo.count-words", "input": {"text": "a b"}},
              "good": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "nap", "select": "/slept"}}},
              "whole": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "nap"}}},
              "counts": {"procedure": "demo.top-words", "input": {"counts": {"$from": "count", "select": "/total"}, "n": {"$from": "count", "select": "/total"}}},
              "merge": {"procedure": "demo.merge-counts", "input": {"counts": [{"$from": "count", "select": "/counts"}, {"$from": "nap"}, {"$from": "count", "select": "/total"}]}},
              "words": {"procedure": "demo.merge-counts", "input": {"counts": [{"$from": "top", "select": "/0"}]}},
              "top": {"procedure": "demo.top-words", "input": {"counts": {"a": 1}, "n": 1}},
              "text": {"procedure": "demo.count-words", "input": {"text": {"$from": "nap", "select": "/nothing/there"}}}
            }}
            """#
        let found = try typeProblems(text)
        #expect(
            found == [
                "node 'whole', field 'input/seconds': expected number, found object (output of 'nap')",
                "node 'counts', field 'input/counts': expected object of integer, found integer (output of 'count' at '/total')",
                "node 'merge', field 'input/counts/2': expected object of integer, found integer (output of 'count' at '/total')",
                "node 'words', field 'input/counts/0': member 'word': expected integer, found string (output of 'top' at '/0')",
            ])
    }

    @Test func referencesToUnknownOrAnyOutputsAreNotErrors() throws {
        let text = #"""
            {"nodes": {
              "sum": {"procedure": "baton.add", "input": {"values": [1, 2]}},
              "echo": {"procedure": "baton.echo", "input": {"x": 1}},
              "other": {"procedure": "not.known", "input": {}},
              "a": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "sum"}}},
              "b": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "echo", "select": "/x"}}},
              "c": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "other", "select": "/y"}}},
              "d": {"procedure": "demo.format", "input": {"template": "{t}", "values": {"t": {"$from": "sum"}}}},
              "e": {"procedure": "baton.add", "input": {"values": [{"$from": "sum"}, {"$from": "a", "select": "/slept"}]}}
            }}
            """#
        #expect(try typeProblems(text) == [])
    }

    @Test func whatAnEchoInjectsIsItsInput() throws {
        let text = #"""
            {"nodes": {
              "seed": {"procedure": "baton.echo", "input": {"value": 7, "name": "x", "list": [1, 2.5], "nap": {"$from": "nap"}}},
              "nap": {"procedure": "baton.sleep", "input": {"seconds": 0}},
              "again": {"procedure": "baton.echo", "input": {"$from": "seed"}},
              "good": {"procedure": "baton.add", "input": {"values": [{"$from": "again", "select": "/value"}, {"$from": "seed", "select": "/nap/slept"}]}},
              "list": {"procedure": "baton.add", "input": {"values": {"$from": "seed", "select": "/list"}}},
              "bad": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "again", "select": "/name"}}},
              "worse": {"procedure": "demo.count-words", "input": {"text": {"$from": "seed", "select": "/nap"}}}
            }}
            """#
        #expect(
            try typeProblems(text) == [
                "node 'bad', field 'input/seconds': expected number, found string (output of 'again' at '/name')",
                "node 'worse', field 'input/text': expected string, found object (output of 'seed' at '/nap')",
            ])
        #expect(TypeSchema.common([.integer, .number, .null]) == .nullable(.number))
        // Echoes that inject each other many times over stay quick: past a size, the shape is `any`.
        var nodes = [#""e0": {"procedure": "baton.echo", "input": {"n": 1}}"#]
        for i in 1...40 {
            let refs = (0..<8).map { _ in #"{"$from": "e\#(i - 1)"}"# }.joined(separator: ", ")
            nodes.append(#""e\#(i)": {"procedure": "baton.echo", "input": [\#(refs)]}"#)
        }
        nodes.append(#""last": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "e40"}}}"#)
        let start = Date()
        let found = try typeProblems(#"{"nodes": {"# + nodes.joined(separator: ", ") + "}}")
        #expect(found == ["node 'last', field 'input/seconds': expected number, found array of array (output of 'e40')"])
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(TypeSchema.common([.integer, .string]) == .any)
    }

    @Test func mapChildInputsAreCheckedWithItemAndIndex() throws {
        let text = #"""
            {"nodes": {
              "chunk": {"procedure": "demo.chunk-text", "input": {"text": "a b c", "parts": 2}},
              "count": {"map": {"over": {"$from": "chunk", "select": "/chunks"}, "procedure": "demo.count-words", "input": {"text": {"$item": ""}}}},
              "merge": {"procedure": "demo.merge-counts", "input": {"counts": {"$from": "count"}}},
              "wrong": {"map": {"over": {"$from": "chunk", "select": "/chunks"}, "procedure": "baton.sleep", "input": {"seconds": {"$item": ""}}}},
              "index": {"map": {"over": {"$from": "chunk", "select": "/chunks"}, "procedure": "demo.count-words", "input": {"text": {"$index": true}}}},
              "scalar": {"map": {"over": {"$from": "merge", "select": "/total"}, "procedure": "baton.echo", "input": {}}},
              "literal": {"map": {"over": [1, 2], "procedure": "baton.fail", "input": {"message": {"$item": ""}}}},
              "counts": {"procedure": "demo.merge-counts", "input": {"counts": {"$from": "count", "select": "/0/total"}}}
            }}
            """#
        let found = try typeProblems(text)
        #expect(
            found == [
                // Each element of the map's output is {counts, total}, not a counts object: a real mistake.
                "node 'merge', field 'input/counts': each item: member 'counts': expected integer, found object of integer (output of 'count')",
                "node 'wrong', field 'map/input/seconds': expected number, found string ($item)",
                "node 'index', field 'map/input/text': expected string, found integer ($index)",
                "node 'scalar', field 'map/over': expected array, found integer (output of 'merge' at '/total')",
                "node 'literal', field 'map/input/message': expected string, found integer ($item)",
                "node 'counts', field 'input/counts': expected array of object of integer, found integer (output of 'count' at '/0/total')",
            ])
    }

    @Test func groupChildrenAreCheckedAndGroupOutputsKnown() throws {
        let text = #"""
            {"nodes": {
              "g": {"group": {"nodes": {
                "s": {"procedure": "baton.add", "input": {"values": "abc"}},
                "t": {"procedure": "baton.sleep", "input": {"seconds": 1}}
              }}},
              "h": {"group": {"nodes": {"n": {"procedure": "baton.sleep", "input": {"seconds": 1}}}, "output": {"$from": "n", "select": "/slept"}}},
              "a": {"procedure": "demo.count-words", "input": {"text": {"$from": "g", "select": "/t/slept"}}},
              "b": {"procedure": "demo.count-words", "input": {"text": {"$from": "h"}}},
              "c": {"procedure": "baton.sleep", "input": {"seconds": {"$from": "g", "select": "/s"}}}
            }}
            """#
        #expect(
            try typeProblems(text) == [
                #"node 'g/s', field 'input/values': expected array of number, found string "abc""#,
                "node 'a', field 'input/text': expected string, found number (output of 'g' at '/t/slept')",
                "node 'b', field 'input/text': expected string, found number (output of 'h')",
            ])
    }

    @Test func conditionInputsAreChecked() throws {
        let text = #"""
            {"nodes": {"n": {"procedure": "baton.echo", "input": {},
              "condition": {"procedure": "baton.sleep", "input": {"seconds": "soon"}}}}}
            """#
        #expect(try typeProblems(text) == [#"node 'n', field 'condition/input/seconds': expected number, found string "soon""#])
    }

    @Test func everyMismatchOfEveryNodeIsReported() throws {
        let text = #"""
            {"nodes": {
              "a": {"procedure": "baton.add", "input": {"values": "abc"}},
              "b": {"procedure": "demo.chunk-text", "input": {"text": 1, "parts": "two"}},
              "c": {"procedure": "demo.divide", "input": {"dividend": 1}}
            }}
            """#
        #expect(try typeProblems(text).count == 4)
    }

    @Test func oneTemplateAgainstOneSchema() {
        let problems = checker.check(
            .literal(["a/b": 1]),
            against: .object([SchemaProperty("a/b", .string)]), node: "n", field: "input", found: { _ in nil })
        #expect(problems.map(\.description) == ["node 'n', field 'input/a~1b': expected string, found integer"])
    }

    @Test func theExampleGraphsTypeCheck() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".json") && name != "invalid.json" {
            let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
            let g = try GraphDecoder().decode(bytes)
            #expect(checker.check(g).isEmpty, "\(name): \(checker.check(g))")
        }
    }
}
