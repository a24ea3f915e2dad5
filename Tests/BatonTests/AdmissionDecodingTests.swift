import Baton
import Testing

@Suite("GraphDecoder: mutex, concurrency and cache")
struct AdmissionDecodingTests {
    static func node(_ fields: String, procedure: String = "p") -> String {
        #"{"nodes": {"a": {"procedure": "p"}, "n": {"procedure": "\#(procedure)", \#(fields)}}}"#
    }

    @Test func validFieldsDecode() throws {
        let g = try graph(
            Self.node(
                #""mutex": ["db", "files"], "concurrency": {"key": {"$from": "a", "select": "/customer"}, "limit": 2}, "cache": {"ttl": "1h"}"#))
        let p = try #require(g.nodes["n"]?.policies)
        #expect(p.mutex == ["db", "files"])
        #expect(p.concurrency?.limit == 2)
        #expect(p.concurrency?.key.references.map(\.node) == ["a"])
        #expect(p.cache == CachePolicy(ttl: 3600))
        #expect(g.nodes["n"]?.dependencies == ["a"])
    }

    @Test func mutexAndCacheMayBeDefaultsButNotOnDelay() throws {
        let g = try graph(
            #"""
            {"defaults": {"mutex": ["db"], "cache": {"ttl": "5m"}},
             "nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "mutex": ["other"]},
                       "d": {"procedure": "baton.delay", "input": {"seconds": 1}}}}
            """#)
        #expect(g.nodes["a"]?.policies.mutex == ["db"])
        #expect(g.nodes["a"]?.policies.cache == CachePolicy(ttl: 300))
        #expect(g.nodes["b"]?.policies.mutex == ["other"], "a node's own mutex replaces the default")
        #expect(g.nodes["d"]?.policies.needsAdmission == false, "defaults do not apply to baton.delay")
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let fields: String
        let field: String
        let message: String
        var procedure = "p"
        var testDescription: String { fields }
    }

    @Test(
        "each bad form is one clear problem",
        arguments: [
            Bad(fields: #""mutex": "db""#, field: "mutex", message: #"must be an array of mutex names like ["db"], found string"#),
            Bad(fields: #""mutex": []"#, field: "mutex", message: "must name at least one mutex"),
            Bad(fields: #""mutex": ["db", 3]"#, field: "mutex/1", message: "must be a mutex name string, found number"),
            Bad(fields: #""mutex": ["Big Name"]"#, field: "mutex/0", message: "invalid mutex name 'Big Name'"),
            Bad(fields: #""mutex": ["db", "db"]"#, field: "mutex/1", message: "names mutex 'db' twice"),
            Bad(fields: #""concurrency": 2"#, field: "concurrency", message: "must be an object like"),
            Bad(fields: #""concurrency": {"limit": 2}"#, field: "concurrency/key", message: "is required: a string or a $from reference"),
            Bad(fields: #""concurrency": {"key": "k"}"#, field: "concurrency/limit", message: "is required: a positive integer"),
            Bad(
                fields: #""concurrency": {"key": "k", "limit": 0}"#, field: "concurrency/limit",
                message: "must be an integer from 1 to 1000000, found 0"),
            Bad(
                fields: #""concurrency": {"key": "k", "limit": 1.5}"#, field: "concurrency/limit",
                message: "must be an integer from 1 to 1000000, found 1.5"),
            Bad(
                fields: #""concurrency": {"key": "k", "limit": 1, "per": "x"}"#, field: "concurrency/per",
                message: "unknown field (expected one of: key, limit)"),
            Bad(
                fields: #""concurrency": {"key": [1], "limit": 1}"#, field: "concurrency/key",
                message: "must be a string, number or boolean, found array"),
            Bad(
                fields: #""concurrency": {"key": {"$from": "ghost"}, "limit": 1}"#, field: "concurrency/key/$from",
                message: "refers to missing node 'ghost'"),
            Bad(fields: #""cache": "1h""#, field: "cache", message: #"must be an object like {"ttl": "1h"}, found string"#),
            Bad(fields: #""cache": {}"#, field: "cache/ttl", message: "is required: how long an output may be reused"),
            Bad(fields: #""cache": {"ttl": "soon"}"#, field: "cache/ttl", message: "'soon' is not a duration"),
            Bad(fields: #""cache": {"ttl": "0s"}"#, field: "cache/ttl", message: "must be longer than 0"),
            Bad(fields: #""cache": {"ttl": "1h", "size": 3}"#, field: "cache/size", message: "unknown field (expected: ttl)"),
            Bad(
                fields: #""cache": {"ttl": "1h"}, "repeat": {"until": {"equals": true}}"#, field: "cache",
                message: "cannot be combined with repeat"),
            Bad(
                fields: #""input": {"seconds": 1}, "mutex": ["db"]"#, field: "mutex",
                message: "cannot be used with baton.delay", procedure: "baton.delay"),
        ])
    func badForm(_ bad: Bad) {
        let found = problems(Self.node(bad.fields, procedure: bad.procedure))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.node == "n")
        #expect(found.first?.field == bad.field)
        #expect(found.first?.message.hasPrefix(bad.message) == true, "\(found.first?.message ?? "")")
    }

    @Test func concurrencyIsPerNodeOnly() {
        let found = problems(#"{"defaults": {"concurrency": {"key": "k", "limit": 1}}, "nodes": {"a": {"procedure": "p"}}}"#)
        #expect(found.map(\.field) == ["defaults/concurrency"])
    }
}
