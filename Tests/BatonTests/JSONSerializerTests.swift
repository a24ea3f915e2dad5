import Baton
import Testing

@Suite("JSON serialization and round trips")
struct JSONSerializerTests {
    static let samples: [JSON] = [
        nil, true, false, 0, -1, .int(Int64.max), .int(Int64.min), .int((1 << 53) + 1),
        1.5, -0.25, 1.0, 3.0, 1e300, .double(.leastNonzeroMagnitude), 1.5e-7, 0.1, 123456789.125,
        "", "plain", "quote \" backslash \\ slash /", "line\nfeed\rreturn\ttab", "\u{0}\u{1}\u{1F}\u{7F}",
        "é 日本 😀 \u{2028}", [], [:], [1, "a", [nil, [true]]],
        ["z": 1, "a": ["nested": [1.5, "x"], "empty": [:]], "": "empty key", "k\"ey": "v"],
    ]

    @Test("parse(serialized()) gives the same value and kind", arguments: samples)
    func roundTrip(value: JSON) throws {
        for sorted in [false, true] {
            let back = try JSONParser.parse(value.serialized(sortedKeys: sorted))
            #expect(back == value)
            #expect(representation(back) == representation(value))
            #expect(try JSONParser.parse(value.serializedBytes(sortedKeys: sorted)) == value)
        }
        #expect(try JSONParser.parse(value.prettyPrinted()) == value)
    }

    @Test func roundTripKeepsMemberOrder() throws {
        let value: JSON = ["z": 1, "a": ["y": 2, "b": 3], "m": nil]
        let back = try JSONParser.parse(value.serialized())
        #expect(back.objectValue?.keys == ["z", "a", "m"])
        #expect(back["a"]?.objectValue?.keys == ["y", "b"])
    }

    @Test func compactText() {
        let value: JSON = ["b": 1, "a": [true, nil, "x"], "c": [:]]
        #expect(value.serialized() == #"{"b":1,"a":[true,null,"x"],"c":{}}"#)
        #expect(value.description == value.serialized())
        #expect(JSON.array([]).serialized() == "[]")
        #expect(JSON.int(-42).serialized() == "-42")
    }

    @Test func sortedKeysIsCanonical() throws {
        let a = try JSONParser.parse(#"{"b": {"y": 1, "x": [ {"q": 1, "p": 2} ]}, "a": 0}"#)
        let b = try JSONParser.parse(#"{"a": 0, "b": {"x": [{"p": 2, "q": 1}], "y": 1}}"#)
        #expect(a.serialized() != b.serialized())
        #expect(a.serialized(sortedKeys: true) == b.serialized(sortedKeys: true))
        #expect(a.serialized(sortedKeys: true) == #"{"a":0,"b":{"x":[{"p":2,"q":1}],"y":1}}"#)
        // Array order is data, never sorted.
        #expect(JSON.array(["b", "a"]).serialized(sortedKeys: true) == #"["b","a"]"#)
    }

    @Test(
        "string escaping",
        arguments: [
            ("a\"b", #""a\"b""#), ("a\\b", #""a\\b""#), ("\n\r\t", #""\n\r\t""#),
            ("\u{1}", #""\u0001""#), ("\u{1F}", #""\u001f""#), ("\u{8}\u{C}", #""\u0008\u000c""#),
            ("/", #""/""#), ("é", "\"é\""),
        ])
    func escaping(raw: String, text: String) {
        #expect(JSON.string(raw).serialized() == text)
    }

    @Test func doublesStayDoublesAfterARoundTrip() throws {
        for d in [1.0, -2.0, 0.0, 1e15, 1e16, 1e20, 4503599627370496.0] {
            let back = try JSONParser.parse(JSON.double(d).serialized())
            #expect(representation(back) == "double", "\(d) came back as \(back)")
            #expect(back.numberValue == d)
        }
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSON.double(.nan).serialized() == "null")
        #expect(JSON.double(.infinity).serialized() == "null")
    }

    @Test func prettyPrintedIndentsByTwoSpaces() {
        let value: JSON = ["a": [1, 2], "b": [:]]
        #expect(value.prettyPrinted() == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }
}
