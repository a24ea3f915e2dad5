import Baton
import Testing

@Suite("JSONParser: valid documents")
struct JSONParserValidTests {
    @Test(
        "integers stay integers, anything with a fraction or exponent is a double",
        arguments: [
            ("0", "int", 0.0), ("-0", "int", 0.0), ("42", "int", 42.0), ("-17", "int", -17.0),
            ("1.0", "double", 1.0), ("-0.5", "double", -0.5), ("1e2", "double", 100.0),
            ("1E-2", "double", 0.01), ("2.5e+3", "double", 2500.0), ("0.125", "double", 0.125),
        ])
    func numberKinds(text: String, kind: String, value: Double) throws {
        let parsed = try JSONParser.parse(text)
        #expect(representation(parsed) == kind)
        #expect(parsed.numberValue == value)
    }

    @Test func int64IsExact() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        // 2^53 + 1 has no exact Double; it must not be rounded to 2^53.
        let big = try JSONParser.parse("9007199254740993")
        guard case let .int(i) = big else { Issue.record("expected an int, got \(big)"); return }
        #expect(i == (Int64(1) << 53) + 1)
        #expect(big != .int(Int64(1) << 53))
    }

    @Test func integersBeyondInt64BecomeDoubles() throws {
        let parsed = try JSONParser.parse("9223372036854775808")
        #expect(representation(parsed) == "double")
        #expect(parsed.numberValue == 9223372036854775808.0)
    }

    @Test(
        "escapes",
        arguments: [
            (#""\"""#, "\""), (#""\\""#, "\\"), (#""\/""#, "/"), (#""\b""#, "\u{8}"), (#""\f""#, "\u{C}"),
            (#""\n""#, "\n"), (#""\r""#, "\r"), (#""\t""#, "\t"), (#""a\u0041b""#, "aAb"),
            (#""\u00e9""#, "\u{E9}"), (#""\u20AC""#, "\u{20AC}"), (#""\u0000""#, "\u{0}"),
        ])
    func escapes(text: String, expected: String) throws {
        #expect(try JSONParser.parse(text) == .string(expected))
    }

    @Test func surrogatePairsBecomeOneScalar() throws {
        let parsed = try JSONParser.parse(#""\ud83d\ude00 \uD834\uDD1E""#)
        let expected = String(Unicode.Scalar(0x1F600)!) + " " + String(Unicode.Scalar(0x1D11E)!)
        #expect(parsed == .string(expected))
        #expect(parsed.stringValue?.unicodeScalars.count == 3)
    }

    @Test func rawUTF8IsKept() throws {
        #expect(try JSONParser.parse("\"日本語 ✓ 😀\"") == .string("日本語 ✓ 😀"))
    }

    @Test func memberOrderIsPreserved() throws {
        let parsed = try JSONParser.parse(#"{"z": 1, "a": 2, "m": {"y": 0, "b": 1}}"#)
        #expect(parsed.objectValue?.keys == ["z", "a", "m"])
        #expect(parsed["m"]?.objectValue?.keys == ["y", "b"])
    }

    @Test func objectEqualityIgnoresOrder() throws {
        #expect(try JSONParser.parse(#"{"a": 1, "b": [true, null]}"#) == JSONParser.parse(#"{"b": [true, null], "a": 1}"#))
        #expect(try JSONParser.parse(#"{"a": 1, "b": 2}"#) != JSONParser.parse(#"{"a": 1, "b": 3}"#))
        #expect(try JSONParser.parse(#"{"a": 1}"#) != JSONParser.parse(#"{"a": 1, "b": 2}"#))
    }

    @Test func nestedDocument() throws {
        let parsed = try JSONParser.parse(" \n\t{ \"a\" : [ 1 , 2.5 , \"x\" , true , false , null , { } , [ ] ] } \r\n")
        let expected: JSON = ["a": [1, 2.5, "x", true, false, nil, [:], []]]
        #expect(parsed == expected)
    }

    @Test func byteOrderMarkIsAccepted() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8)) == ["a": 1])
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = 5
        let text = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        var expected: JSON = 1
        for _ in 0..<depth { expected = [expected] }
        #expect(try JSONParser.parse(text, maxDepth: depth) == expected)
        // The default limit allows 256 levels.
        let deep = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(parseError(deep) == nil)
    }
}

@Suite("JSONParser: errors")
struct JSONParserErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let line: Int
        let column: Int
        let reason: String
        var testDescription: String { text.debugDescription }
    }

    @Test(
        "errors name line, column and reason",
        arguments: [
            Case(text: "", line: 1, column: 1, reason: "unexpected end of input, expected a value"),
            Case(text: "   ", line: 1, column: 4, reason: "unexpected end of input, expected a value"),
            Case(text: #"{"a": 1"#, line: 1, column: 8, reason: "unexpected end of input inside an object"),
            Case(text: #"{"a": "#, line: 1, column: 7, reason: "unexpected end of input, expected a value"),
            Case(text: #"{"a": "x"#, line: 1, column: 7, reason: "unterminated string"),
            Case(text: "[1, 2", line: 1, column: 6, reason: "unexpected end of input inside an array"),
            Case(text: #""abc"#, line: 1, column: 1, reason: "unterminated string"),
            Case(text: "[1, 2,]", line: 1, column: 7, reason: "unexpected ']', expected a value"),
            Case(text: #"{"a": 1,}"#, line: 1, column: 9, reason: "expected a member name in double quotes"),
            Case(text: #"{"a": 1, "b": 2, "a": 3}"#, line: 1, column: 18, reason: #"duplicate member name "a""#),
            Case(text: "01", line: 1, column: 2, reason: "leading zero"),
            Case(text: "[-012]", line: 1, column: 4, reason: "leading zero"),
            Case(text: "\"a\u{1}b\"", line: 1, column: 3, reason: "control character in string"),
            Case(text: "\"tab\there\"", line: 1, column: 5, reason: "control character in string"),
            Case(text: #"["ok", "\x"]"#, line: 1, column: 9, reason: #"invalid escape '\x'"#),
            Case(text: #""\u12G4""#, line: 1, column: 6, reason: "invalid hex digit"),
            Case(text: #""\u12""#, line: 1, column: 4, reason: "truncated"),
            Case(text: #""\ud800""#, line: 1, column: 8, reason: "unpaired UTF-16 surrogate"),
            Case(text: #""\udc00""#, line: 1, column: 8, reason: "unpaired UTF-16 surrogate"),
            Case(text: #""\ud800\u0041""#, line: 1, column: 14, reason: "invalid UTF-16 surrogate pair"),
            Case(text: "[1] x", line: 1, column: 5, reason: "unexpected text after the JSON value"),
            Case(text: "{} {}", line: 1, column: 4, reason: "unexpected text after the JSON value"),
            Case(text: "{\n  \"a\": tru\n}", line: 2, column: 8, reason: "invalid literal, expected 'true'"),
            Case(text: "[\n1,\n\n  nul]", line: 4, column: 3, reason: "expected 'null'"),
            Case(text: "[\"é\", x]", line: 1, column: 7, reason: "unexpected 'x', expected a value"),
            Case(text: "{\"a\" 1}", line: 1, column: 6, reason: "expected ':' after member name"),
            Case(text: "[1 2]", line: 1, column: 4, reason: "expected ',' or ']'"),
            Case(text: "{\"a\": 1 \"b\": 2}", line: 1, column: 9, reason: "expected ',' or '}'"),
            Case(text: "{a: 1}", line: 1, column: 2, reason: "expected a member name in double quotes"),
            Case(text: "-", line: 1, column: 2, reason: "expected a digit"),
            Case(text: "1.", line: 1, column: 3, reason: "expected a digit after '.'"),
            Case(text: "1e+", line: 1, column: 4, reason: "expected a digit in the exponent"),
            Case(text: "[1e400]", line: 1, column: 2, reason: "number out of range"),
            Case(text: "+1", line: 1, column: 1, reason: "unexpected '+', expected a value"),
            Case(text: "'a'", line: 1, column: 1, reason: "expected a value"),
        ])
    func reportsPosition(_ c: Case) throws {
        let error = try #require(parseError(c.text))
        #expect(error.line == c.line)
        #expect(error.column == c.column)
        #expect(error.reason.contains(c.reason), "reason was: \(error.reason)")
        #expect(error.description == "invalid JSON at line \(c.line), column \(c.column): \(error.reason)")
    }

    @Test func invalidUTF8IsRejected() throws {
        let error = try #require(parseError([0x22, 0x61, 0xFF, 0x22]))
        #expect(error.reason.contains("invalid UTF-8"))
        let escaped = try #require(parseError([0x22, 0x5C, 0x6E, 0xC3, 0x22]))  // "\n" then a truncated sequence
        #expect(escaped.reason.contains("invalid UTF-8"))
    }

    @Test func depthLimit() throws {
        let error = try #require(parseError("[[[[1]]]]", maxDepth: 3))
        #expect(error.reason == "nesting deeper than 3 levels")
        #expect(error.column == 4)  // the fourth '['
        let objects = try #require(parseError(#"{"a": {"b": {"c": {}}}}"#, maxDepth: 3))
        #expect(objects.reason == "nesting deeper than 3 levels")
        #expect(parseError(#"{"a": {"b": {"c": 1}}}"#, maxDepth: 3) == nil)
        let tooDeepForDefault = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        #expect(parseError(tooDeepForDefault)?.reason == "nesting deeper than 256 levels")
    }

    @Test func hugeNestingFailsCleanly() throws {
        // Far beyond any stack: must be refused by the depth limit, not crash.
        let error = try #require(parseError(String(repeating: "[", count: 200_000)))
        #expect(error.reason.contains("nesting deeper"))
    }

    @Test func errorsAreReportedOnlyOnce() throws {
        // The first problem wins: the duplicate key comes before the trailing comma.
        let error = try #require(parseError(#"{"a": 1, "a": [1,]}"#))
        #expect(error.reason.contains("duplicate"))
    }
}
