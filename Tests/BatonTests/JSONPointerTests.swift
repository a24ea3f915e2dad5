import Baton
import Testing

@Suite("JSONPointer (RFC 6901)")
struct JSONPointerTests {
    /// The example document of RFC 6901, section 5.
    static let rfcDocument = #"""
        {
          "foo": ["bar", "baz"],
          "": 0,
          "a/b": 1,
          "c%d": 2,
          "e^f": 3,
          "g|h": 4,
          "i\\j": 5,
          "k\"l": 6,
          " ": 7,
          "m~n": 8
        }
        """#

    @Test(
        "RFC 6901 section 5 examples",
        arguments: [
            ("/foo", #"["bar", "baz"]"#), ("/foo/0", #""bar""#), ("/foo/1", #""baz""#), ("/", "0"),
            ("/a~1b", "1"), ("/c%d", "2"), ("/e^f", "3"), ("/g|h", "4"), (#"/i\j"#, "5"),
            (#"/k"l"#, "6"), ("/ ", "7"), ("/m~0n", "8"),
        ])
    func rfcExamples(pointer: String, expected: String) throws {
        let document = try JSONParser.parse(Self.rfcDocument)
        let resolved = try JSONPointer(parsing: pointer).resolve(in: document)
        #expect(resolved == (try JSONParser.parse(expected)))
    }

    @Test func emptyPointerIsTheWholeDocument() throws {
        let document = try JSONParser.parse(Self.rfcDocument)
        let pointer = try JSONPointer(parsing: "")
        #expect(pointer.tokens.isEmpty)
        #expect(try pointer.resolve(in: document) == document)
        #expect(try pointer.resolve(in: 42) == 42)
        #expect(pointer.description == "")
    }

    @Test(
        "tokens are unescaped ~1 then ~0",
        arguments: [
            ("/a~01", ["a~1"]), ("/a~10", ["a/0"]), ("/~0~1", ["~/"]), ("//", ["", ""]),
            ("/a/b/", ["a", "b", ""]), ("/0/-", ["0", "-"]),
        ])
    func unescaping(text: String, tokens: [String]) throws {
        let pointer = try JSONPointer(parsing: text)
        #expect(pointer.tokens == tokens)
        #expect(pointer.description == text)
    }

    @Test func descriptionEscapesTokens() throws {
        let pointer = JSONPointer(tokens: ["a/b", "m~n", "~1"])
        #expect(pointer.description == "/a~1b/m~0n/~01")
        #expect(try JSONPointer(parsing: pointer.description) == pointer)
    }

    @Test(
        "malformed pointers are refused",
        arguments: [
            ("foo", "must be empty or start with '/'"), ("foo/0", "must be empty or start with '/'"),
            ("/a~", "'~' must be followed by 0 or 1"), ("/a~2", "'~' must be followed by 0 or 1"),
            ("/~x/b", "'~' must be followed by 0 or 1"),
        ])
    func malformed(text: String, reason: String) {
        do {
            let pointer = try JSONPointer(parsing: text)
            Issue.record("accepted \(text) as \(pointer.tokens)")
        } catch {
            #expect(error.pointer == text)
            #expect(error.reason == reason)
            #expect(error.description == "pointer '\(text)': \(reason)")
        }
    }

    @Test(
        "missing targets say which step is missing",
        arguments: [
            ("/nope", #"no member "nope" at ''"#),
            ("/foo/2", #"no element "2" at '/foo' (array of 2)"#),
            ("/foo/01", #"no element "01" at '/foo' (array of 2)"#),
            ("/foo/-", #"no element "-" at '/foo' (array of 2)"#),
            ("/foo/-1", #"no element "-1" at '/foo' (array of 2)"#),
            ("/foo/+1", #"no element "+1" at '/foo' (array of 2)"#),
            ("/foo/0/x", "'/foo/0' is a string, not an object or array"),
            ("/a~1b/c", "'/a~1b' is a number, not an object or array"),
            ("/m~0n/z", "'/m~0n' is a number, not an object or array"),
        ])
    func missingTargets(text: String, reason: String) throws {
        let document = try JSONParser.parse(Self.rfcDocument)
        do {
            let found = try JSONPointer(parsing: text).resolve(in: document)
            Issue.record("\(text) resolved to \(found)")
        } catch {
            #expect(error.pointer == text)
            #expect(error.reason == reason)
        }
    }

    @Test func deepPaths() throws {
        let document: JSON = ["a": ["b": [["c": [10, 20, ["d": nil]]]]]]
        #expect(try JSONPointer(parsing: "/a/b/0/c/1").resolve(in: document) == 20)
        #expect(try JSONPointer(parsing: "/a/b/0/c/2/d").resolve(in: document) == nil)
        do {
            _ = try JSONPointer(parsing: "/a/b/0/c/2/d/e").resolve(in: document)
            Issue.record("resolved through null")
        } catch {
            #expect(error.reason == "'/a/b/0/c/2/d' is a null, not an object or array")
        }
        do {
            _ = try JSONPointer(parsing: "/a/x/y").resolve(in: document)
            Issue.record("resolved a missing member")
        } catch {
            #expect(error.reason == #"no member "x" at '/a'"#)
        }
    }
}
