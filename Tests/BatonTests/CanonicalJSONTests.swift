import Baton
import Testing

@Suite("CanonicalJSON")
struct CanonicalJSONTests {
    @Test func keysSortedAndNumbersNormalized() throws {
        let a = try json(#"{"b": [1.0, {"y": 2, "x": -0.0}], "a": 2.5}"#)
        let b = try json(#"{"a": 2.5, "b": [1, {"x": 0, "y": 2.0}]}"#)
        #expect(CanonicalJSON.text(a) == #"{"a":2.5,"b":[1,{"x":0,"y":2}]}"#)
        #expect(CanonicalJSON.text(a) == CanonicalJSON.text(b))
        #expect(CanonicalJSON.text(try json(#"{"v": "1"}"#)) != CanonicalJSON.text(try json(#"{"v": 1}"#)))
    }
}
