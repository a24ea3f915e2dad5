import Baton
import Foundation
import Testing

@Suite("JSON values")
struct JSONValueTests {
    @Test func numbersCompareByValue() {
        #expect(JSON.int(1) == JSON.double(1.0))
        #expect(JSON.int(1) != JSON.double(1.5))
        #expect(JSON.int(1) != JSON.string("1"))
        #expect(JSON.bool(true) != JSON.int(1))
        #expect(JSON.null != JSON.bool(false))
        #expect(Set<JSON>([.int(2), .double(2.0), .int(3)]).count == 2)
    }

    @Test func objectsHashTheSameInAnyOrder() throws {
        let a = try JSONParser.parse(#"{"x": 1, "y": [1, 2]}"#)
        let b = try JSONParser.parse(#"{"y": [1, 2], "x": 1}"#)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test func objectSubscriptSetsReplacesAndRemoves() {
        var o = JSONObject()
        o["b"] = 1
        o["a"] = 2
        o["b"] = 3
        #expect(o.keys == ["b", "a"])
        #expect(o["b"] == 3)
        o["b"] = nil
        #expect(o.keys == ["a"])
        #expect(o["missing"] == nil)
        o["missing"] = nil
        #expect(o.count == 1)
    }

    @Test func accessors() {
        let value: JSON = ["s": "x", "i": 7, "d": 2.0, "f": 2.5, "b": false, "n": nil, "a": [1]]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.intValue == 7)
        #expect(value["d"]?.intValue == 2)
        #expect(value["f"]?.intValue == nil)
        #expect(value["f"]?.numberValue == 2.5)
        #expect(value["b"]?.boolValue == false)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["s"]?["x"] == nil)
        #expect(value.kindName == "object")
        #expect(JSON.array([]).kindName == "array")
        #expect(JSON.double(1).kindName == "number")
    }

    struct Point: Codable, Equatable { let x: Int; let label: String; let tags: [String] }

    @Test func codableBridge() throws {
        let point = Point(x: 3, label: "p", tags: ["a", "b"])
        let encoded = try JSON(encoding: point)
        #expect(encoded == ["x": 3, "label": "p", "tags": ["a", "b"]])
        #expect(try encoded.decode(as: Point.self) == point)
        let literal: JSON = ["anything": [1, 2]]
        #expect(try JSON(encoding: literal) == literal)
        #expect(try literal.decode(as: JSON.self) == literal)
    }

    @Test func decodingErrorsNameTheField() throws {
        func message(_ value: JSON) -> String {
            do { _ = try value.decode(as: Point.self); return "" } catch { return describeDecodingError(error) }
        }
        #expect(message(["label": "p", "tags": []]) == "'/x': required field is missing")
        #expect(message(["x": "three", "label": "p", "tags": []]) == "'/x': expected an integer")
        #expect(message(["x": 1, "label": "p", "tags": ["a", 2]]) == "'/tags[1]': expected a string")
        #expect(message(["x": 1, "label": nil, "tags": []]).hasPrefix("'/label': expected a string"))
        #expect(message(["x": 1, "label": "p", "tags": "a"]) == "'/tags': expected an array")
    }
}
