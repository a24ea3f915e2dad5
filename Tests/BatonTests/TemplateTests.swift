import Baton
import Testing

@Suite("Template resolution")
struct TemplateTests {
    /// The template of node `t` in a graph where nodes `x`, `y` and `z` exist.
    static func template(_ input: String) throws -> Template {
        let g = try graph(
            #"""
            {"nodes": {"x": {"procedure": "p"}, "y": {"procedure": "p"}, "z": {"procedure": "p"},
                       "t": {"procedure": "p", "input": \#(input)}}}
            """#)
        return try #require(g.nodes["t"]).input
    }

    static let outputs: [String: JSON] = [
        "x": ["k": [10, 20, ["deep": ["v": "found"]]], "name": "ex", "a/b": ["m~n": 99]],
        "y": [true, nil, 2.5],
        "z": "plain",
    ]

    static func resolve(_ template: Template) throws(TemplateError) -> JSON {
        try template.resolve { outputs[$0] ?? .null }
    }

    @Test func nestedReferencesAnywhere() throws {
        let t = try Self.template(
            #"""
            {"a": [1, {"b": {"$from": "x", "select": "/k/0"}}, [{"$from": "z"}]],
             "c": {"$from": "y"},
             "d": "literal",
             "e": {"f": {"g": {"$from": "x", "select": "/k/2/deep/v"}}}}
            """#)
        let resolved = try Self.resolve(t)
        let expected: JSON = ["a": [1, ["b": 10], ["plain"]], "c": [true, nil, 2.5], "d": "literal", "e": ["f": ["g": "found"]]]
        #expect(resolved == expected)
        #expect(resolved.objectValue?.keys == ["a", "c", "d", "e"])
        #expect(
            t.references == [
                Reference(node: "x", select: JSONPointer(tokens: ["k", "0"])),
                Reference(node: "z"),
                Reference(node: "y"),
                Reference(node: "x", select: JSONPointer(tokens: ["k", "2", "deep", "v"])),
            ])
    }

    @Test func severalReferencesInOneInput() throws {
        let t = try Self.template(
            #"""
            {"sum": [{"$from": "x", "select": "/k/0"}, {"$from": "x", "select": "/k/1"}, {"$from": "y", "select": "/2"}],
             "name": {"$from": "x", "select": "/name"}, "escaped": {"$from": "x", "select": "/a~1b/m~0n"}}
            """#)
        #expect(try Self.resolve(t) == ["sum": [10, 20, 2.5], "name": "ex", "escaped": 99])
    }

    @Test func wholeInputCanBeAReference() throws {
        let t = try Self.template(#"{"$from": "x", "select": "/k"}"#)
        #expect(t == .reference(Reference(node: "x", select: JSONPointer(tokens: ["k"]))))
        #expect(try Self.resolve(t) == [10, 20, ["deep": ["v": "found"]]])
        #expect(try Self.resolve(Self.template(#"{"$from": "y"}"#)) == [true, nil, 2.5])
        #expect(try Self.resolve(Self.template(#"{"$from": "y", "select": ""}"#)) == [true, nil, 2.5])
    }

    @Test func literalFastPath() throws {
        let input = #"{"a": [1, {"b": null}], "select": "/x", "nested": {"from": "x"}}"#
        let t = try Self.template(input)
        #expect(t == .literal(try JSONParser.parse(input)))
        var asked: [String] = []
        let resolved = try t.resolve {
            asked.append($0); return .null
        }
        #expect(resolved == (try JSONParser.parse(input)))
        #expect(asked.isEmpty)
    }

    @Test func onlyReferencedOutputsAreRead() throws {
        let t = try Self.template(#"{"one": {"$from": "z"}, "lit": [1, 2], "two": [{"$from": "y", "select": "/0"}]}"#)
        var asked: [String] = []
        let resolved = try t.resolve {
            asked.append($0); return Self.outputs[$0] ?? .null
        }
        #expect(asked == ["z", "y"])
        #expect(resolved == ["one": "plain", "lit": [1, 2], "two": [true]])
    }

    @Test(
        "a missing target names the node and the pointer",
        arguments: [
            (#"{"v": {"$from": "x", "select": "/k/5"}}"#, "x", "/k/5", #"no element "5" at '/k' (array of 3)"#),
            (#"[{"$from": "x", "select": "/nope"}]"#, "x", "/nope", #"no member "nope" at ''"#),
            (#"{"v": {"w": {"$from": "z", "select": "/0"}}}"#, "z", "/0", "'' is a string, not an object or array"),
            (#"{"$from": "x", "select": "/a~1b/zz"}"#, "x", "/a~1b/zz", #"no member "zz" at '/a~1b'"#),
        ])
    func missingTarget(input: String, node: String, pointer: String, reason: String) throws {
        let t = try Self.template(input)
        do {
            let resolved = try Self.resolve(t)
            Issue.record("resolved to \(resolved)")
        } catch {
            #expect(error.reference?.node == node)
            #expect(error.reference?.select.description == pointer)
            #expect(error.reason == reason)
            #expect(error.description == "input reference to '\(node)' select '\(pointer)': \(reason)")
        }
    }

    @Test func selectIntoANodeWithoutOutputFails() throws {
        let t = try Self.template(#"{"v": {"$from": "x", "select": "/k"}}"#)
        do {
            _ = try t.resolve { _ in .null }
            Issue.record("resolved through a missing output")
        } catch {
            #expect(error.reference?.node == "x")
            #expect(error.description.contains("'x'"))
            #expect(error.description.contains("null"))
        }
        // Without select, a missing output is injected as null.
        #expect(try Self.template(#"{"v": {"$from": "x"}}"#).resolve { _ in .null } == ["v": nil])
    }
}
