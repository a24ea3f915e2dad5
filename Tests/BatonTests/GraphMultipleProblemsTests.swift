import Baton
import Testing

@Suite("GraphDecoder: every problem is reported together")
struct GraphMultipleProblemsTests {
    @Test func allProblemsAreListedEachWithNodeAndField() {
        let text = #"""
            {
              "name": "many-problems",
              "colour": "blue",
              "defaults": {"retry": {"attempts": 3}, "pool": "Bad"},
              "nodes": {
                "ok":     {"procedure": "baton.echo"},
                "Bad-Key": {"procedure": "baton.echo"},
                "no-proc": {"input": {}},
                "unknown": {"procedure": "demo.nope"},
                "refs":   {"procedure": "baton.echo",
                           "input": {"a": {"$from": "ghost"}, "b": [{"$from": "ok", "select": "x"}],
                                     "c": {"$from": "refs"}, "d": {"$from": "ok", "select": 1, "extra": true}},
                           "after": ["refs", "phantom", 3]},
                "fields": {"procedure": "baton.echo", "timeout": "5s", "typo": 1, "pool": 7, "priority": 12}
              }
            }
            """#
        let found = problems(text, knownProcedures: ["baton.echo"])
        let places = found.map { "\($0.node ?? "-") \($0.field)" }
        let expected: [String] = [
            "- colour", "- defaults/pool",
            "Bad-Key ",
            "no-proc procedure",
            "unknown procedure",
            "refs input/a/$from", "refs input/b/0/select", "refs input/c/$from",
            "refs input/d/extra", "refs input/d/select",
            "refs after/0", "refs after/1", "refs after/2",
            "fields typo", "fields pool", "fields priority",
        ]
        #expect(Set(places) == Set(expected), "got \(places)")
        #expect(found.count == expected.count)

        func message(_ node: String?, _ field: String) -> String? {
            found.first { $0.node == node && $0.field == field }?.message
        }
        #expect(message(nil, "defaults/retry") == nil)  // {"attempts": 3} is a valid retry policy
        #expect(message("fields", "timeout") == nil)  // "5s" is a valid timeout
        #expect(message("fields", "typo")?.contains("unknown field") == true)
        #expect(message("unknown", "procedure")?.contains("demo.nope") == true)
        #expect(message("refs", "input/a/$from")?.contains("ghost") == true)
        #expect(message("refs", "after/1")?.contains("phantom") == true)
        #expect(message("fields", "priority")?.contains("12") == true)

        let description = GraphValidationError(problems: found).description
        #expect(description.hasPrefix("invalid graph (\(expected.count) problems):\n"))
        #expect(description.split(separator: "\n").count == expected.count + 1)
        #expect(description.contains("node 'refs', field 'input/a/$from': refers to missing node 'ghost'"))
    }

    @Test func problemsInEveryNodeAreCollected() {
        // 50 nodes, each with its own mistake: none may be dropped.
        let members = (0..<50).map { #""n\#($0)": {"procedure": "p", "input": {"v": {"$from": "missing-\#($0)"}}}"# }
        let found = problems(#"{"nodes": {\#(members.joined(separator: ","))}}"#)
        #expect(found.count == 50)
        #expect(Set(found.compactMap(\.node)) == Set((0..<50).map { "n\($0)" }))
        for p in found {
            let i = p.node!.dropFirst()
            #expect(p.field == "input/v/$from")
            #expect(p.message == "refers to missing node 'missing-\(i)'")
        }
    }
}
