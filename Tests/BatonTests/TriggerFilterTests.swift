import Baton
import Testing

/// Trigger filters: `POINTER=VALUE` and `{"pointer", "value"}` parsed or refused in one line, and
/// matched against an event's data.
@Suite("trigger filters")
struct TriggerFilterTests {
    @Test func theCLIFormReadsTheValueAsJSONWhenItCanAndAsTextOtherwise() throws {
        let cases: [(String, String, JSON)] = [
            ("/tier=gold", "/tier", "gold"), ("/count=3", "/count", 3), ("/vip=true", "/vip", true), (#"/tier="3""#, "/tier", "3"),
            ("/a/b~1c=x=y", "/a/b~1c", "x=y"), (#"/o={"k": [1]}"#, "/o", ["k": [1]]), ("/empty=", "/empty", ""),
        ]
        for (text, pointer, value) in cases {
            let filter = try TriggerFilter.parse(text).get()
            #expect(filter.pointer.description == pointer && filter.value == value, "\(text)")
        }
        #expect(try TriggerFilter.parse("/tier=gold").get().text == "/tier=gold")
        #expect(try TriggerFilter.parse(#"/tier="3""#).get().text == #"/tier="3""#, "a string that reads as JSON is shown quoted")
    }

    @Test func aFilterThatDoesNotParseIsOneLineNamingIt() {
        let cases: [(String, String)] = [
            ("tier=gold", "'tier=gold': pointer 'tier' must start with '/' (such as /tier)"),
            ("/tier", "'/tier' is not POINTER=VALUE (such as /order/tier=gold)"),
            ("=gold", "'=gold': the pointer is empty; name a member of the data, such as /tier"),
            ("/a~2=1", "'/a~2=1': pointer '/a~2': '~' must be followed by 0 or 1"),
        ]
        for (text, message) in cases {
            guard case let .failure(error) = TriggerFilter.parse(text) else {
                Issue.record("\(text) parsed")
                continue
            }
            #expect(error.description == message)
        }
        let objects: [(JSON, String)] = [
            (3, "a filter must be {\"pointer\", \"value\"}, not number"), (["value": 1], "a filter needs `pointer`, a JSON Pointer string"),
            (["pointer": "/a"], "filter '/a' needs `value`"),
            (["pointer": "/a", "value": 1, "x": 2], "unknown member 'x' in a filter (expected pointer, value)"),
            (["pointer": "a", "value": 1], "pointer 'a' must start with '/' (such as /a)"),
        ]
        for (json, message) in objects {
            guard case let .failure(error) = TriggerFilter.parse(json) else {
                Issue.record("\(json) parsed")
                continue
            }
            #expect(error.description == message)
        }
    }

    @Test func matchesTheValueAtThePointerNumbersByValue() throws {
        let data: JSON = ["tier": "gold", "order": ["total": 30, "items": ["a", "b"]], "vip": false]
        let matching = ["/tier=gold", "/order/total=30", "/order/total=30.0", "/order/items/1=b", "/vip=false", #"/order/items=["a","b"]"#]
        for text in matching { #expect(try TriggerFilter.parse(text).get().matches(data), "\(text)") }
        let failing = ["/tier=silver", "/tier=\"Gold\"", "/order/total=\"30\"", "/missing=1", "/order/items/5=a", "/vip=null", "/tier/x=1"]
        for text in failing { #expect(try !TriggerFilter.parse(text).get().matches(data), "\(text)") }
    }
}
