import Baton
import Foundation
import Testing

@Suite("GraphDecoder: control-flow fields")
struct PolicyDecodingTests {
    /// A one-node graph with `fields` added to node "n".
    static func node(_ fields: String) -> String {
        #"{"nodes": {"a": {"procedure": "p"}, "n": {"procedure": "p", \#(fields)}}}"#
    }

    // MARK: - Valid

    @Test func everyFieldDecodes() throws {
        let g = try graph(
            Self.node(
                #"""
                "dependencies": "none-failed", "on_failure": "ignore", "timeout": "1.5m",
                "retry": {"attempts": 4, "wait": {"exponential": {"initial": "250ms", "factor": 3, "max": "1h"}}, "jitter": true},
                "when": {"$from": "a", "select": "/ok"},
                "condition": {"procedure": "check", "input": {"v": {"$from": "a"}}, "negate": true},
                "repeat": {"until": {"select": "/state", "equals": "done"}, "wait": {"constant": "5s"}, "max": 7}
                """#))
        let p = try #require(g.nodes["n"]?.policies)
        #expect(p.dependencies == .noneFailed)
        #expect(p.onFailure == .ignore)
        #expect(p.timeout == 90)
        #expect(p.retry == RetryPolicy(attempts: 4, wait: .exponential(initial: 0.25, factor: 3, max: 3600), jitter: true))
        let ok = try JSONPointer(parsing: "/ok")
        #expect(p.when == .reference(Reference(node: "a", select: ok)))
        let condition = try #require(p.condition)
        #expect(condition.procedure == "check")
        #expect(condition.negate)
        #expect(condition.input.references.map(\.node) == ["a"])
        let r = try #require(p.repeatPolicy)
        let state = try JSONPointer(parsing: "/state")
        #expect(r.select == state)
        #expect(r.equals == "done")
        #expect(r.wait == .constant(5))
        #expect(r.max == 7)
        #expect(g.nodes["n"]?.dependencies == ["a"])
    }

    @Test func nothingSetGivesTheDefaults() throws {
        let p = try #require(try graph(Self.node(#""input": 1"#)).nodes["n"]?.policies)
        #expect(p == NodePolicies())
        #expect(p.dependencies == .allSucceeded)
        #expect(p.onFailure == .fail)
        #expect(p.retry == nil && p.timeout == nil && p.when == nil && p.condition == nil && p.repeatPolicy == nil)
    }

    @Test(
        "wait strategies decode",
        arguments: [
            (#""immediate""#, WaitStrategy.immediate),
            (#"{"constant": "2s"}"#, .constant(2)),
            (#"{"incrementing": {"initial": "1s", "increment": "500ms"}}"#, .incrementing(initial: 1, increment: 0.5)),
            (#"{"fibonacci": {"period": "1s", "max": "1m"}}"#, .fibonacci(period: 1, max: 60)),
            (#"{"fibonacci": {"period": "1s"}}"#, .fibonacci(period: 1, max: 3600)),
            (#"{"exponential": {"initial": "1s"}}"#, .exponential(initial: 1, factor: 2, max: 3600)),
            (#"{"random": {"min": "1s", "max": "5s"}}"#, .random(min: 1, max: 5)),
            (#"{"random": {"min": "2s", "max": "2s"}}"#, .random(min: 2, max: 2)),
        ])
    func waitStrategies(_ text: String, _ expected: WaitStrategy) throws {
        let g = try graph(Self.node(#""retry": {"attempts": 2, "wait": \#(text)}"#))
        #expect(g.nodes["n"]?.policies.retry?.wait == expected)
    }

    @Test("durations", arguments: [("250ms", 0.25), ("30s", 30.0), ("1.5m", 90.0), ("1h", 3600.0), ("0.5s", 0.5), ("8784h", 8784.0 * 3600)])
    func durations(_ text: String, _ seconds: Double) throws {
        #expect(try DurationText.parse(.string(text)).get() == seconds)
        let g = try graph(Self.node(#""timeout": "\#(text)""#))
        #expect(g.nodes["n"]?.policies.timeout == seconds)
    }

    @Test func defaultsApplyToEveryNodeAndNodesOverrideThem() throws {
        let g = try graph(
            #"""
            {"defaults": {"retry": {"attempts": 3, "wait": {"constant": "1s"}}, "timeout": "5m",
                          "dependencies": "none-failed", "on_failure": "ignore"},
             "nodes": {
              "plain": {"procedure": "p"},
              "own": {"procedure": "p", "retry": {"attempts": 9}, "timeout": "10s", "dependencies": "all-finished", "on_failure": "fail"},
              "partial": {"procedure": "p", "timeout": "1h"}}}
            """#)
        let plain = try #require(g.nodes["plain"]?.policies)
        #expect(plain.retry == RetryPolicy(attempts: 3, wait: .constant(1)))
        #expect(plain.timeout == 300)
        #expect(plain.dependencies == .noneFailed)
        #expect(plain.onFailure == .ignore)
        let own = try #require(g.nodes["own"]?.policies)
        #expect(own.retry == RetryPolicy(attempts: 9, wait: .immediate), "a node's retry replaces the default as a whole")
        #expect(own.timeout == 10)
        #expect(own.dependencies == .allFinished)
        #expect(own.onFailure == .fail)
        let partial = try #require(g.nodes["partial"]?.policies)
        #expect(partial.timeout == 3600)
        #expect(partial.retry == RetryPolicy(attempts: 3, wait: .constant(1)))

        // The scheduler uses them: plain gets three attempts a second apart.
        var h = Harness(g)
        let first = h.start()
        #expect(first.dispatches.map(\.timeout) == [300, 10, 3600])
        h.fail("plain", "1", permanent: false)
        #expect(h.dueIn("plain") == 1)
    }

    // MARK: - Refused

    struct Bad: Sendable, CustomTestStringConvertible {
        let fields: String
        let field: String
        let message: String
        var testDescription: String { fields }
    }

    static let bad: [Bad] = [
        // durations
        Bad(fields: #""timeout": "5 minutes""#, field: "timeout", message: "is not a duration"),
        Bad(fields: #""timeout": "-1s""#, field: "timeout", message: "'-1s' is negative"),
        Bad(fields: #""timeout": """#, field: "timeout", message: "is not a duration"),
        Bad(fields: #""timeout": 5"#, field: "timeout", message: "must be a duration string such as \"30s\", found number"),
        Bad(fields: #""timeout": "5""#, field: "timeout", message: "is not a duration"),
        Bad(fields: #""timeout": "5d""#, field: "timeout", message: "is not a duration"),
        Bad(fields: #""timeout": "1e3s""#, field: "timeout", message: "is not a duration"),
        Bad(fields: #""timeout": "+5s""#, field: "timeout", message: "is not a duration"),
        Bad(fields: #""timeout": "0s""#, field: "timeout", message: "must be longer than 0"),
        Bad(fields: #""timeout": "8785h""#, field: "timeout", message: "longer than a year"),
        Bad(fields: #""timeout": null"#, field: "timeout", message: "found null"),
        Bad(fields: #""retry": {"attempts": 2, "wait": {"constant": "5 minutes"}}"#, field: "retry/wait/constant", message: "is not a duration"),
        Bad(fields: #""retry": {"attempts": 2, "wait": {"constant": "-1s"}}"#, field: "retry/wait/constant", message: "is negative"),
        Bad(fields: #""retry": {"attempts": 2, "wait": {"constant": ""}}"#, field: "retry/wait/constant", message: "is not a duration"),
        Bad(fields: #""retry": {"attempts": 2, "wait": {"constant": 5}}"#, field: "retry/wait/constant", message: "found number"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"exponential": {"initial": "1 s"}}}"#, field: "retry/wait/exponential/initial",
            message: "is not a duration"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"random": {"min": "1s", "max": 5}}}"#, field: "retry/wait/random/max", message: "found number"
        ),
        Bad(fields: #""repeat": {"until": {"equals": true}, "wait": {"constant": "-1s"}}"#, field: "repeat/wait/constant", message: "is negative"),
        // wait strategies
        Bad(fields: #""retry": {"attempts": 2, "wait": {"linear": "1s"}}"#, field: "retry/wait/linear", message: "unknown wait strategy"),
        Bad(fields: #""retry": {"attempts": 2, "wait": "constant"}"#, field: "retry/wait", message: "must be \"immediate\" or an object"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"constant": "1s", "immediate": true}}"#, field: "retry/wait",
            message: "must be \"immediate\" or an object"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"incrementing": {"initial": "1s"}}}"#, field: "retry/wait/incrementing/increment",
            message: "is required"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"fibonacci": {"period": "1s", "cap": "1m"}}}"#, field: "retry/wait/fibonacci/cap",
            message: "unknown field"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"exponential": {"initial": "1s", "factor": 0.5}}}"#, field: "retry/wait/exponential/factor",
            message: "must be a number from 1 to 100"),
        Bad(
            fields: #""retry": {"attempts": 2, "wait": {"random": {"min": "5s", "max": "1s"}}}"#, field: "retry/wait/random",
            message: "min must not be greater than max"),
        Bad(fields: #""retry": {"attempts": 2, "wait": {"incrementing": "1s"}}"#, field: "retry/wait/incrementing", message: "must be an object"),
        // retry
        Bad(fields: #""retry": {"attempts": 0}"#, field: "retry/attempts", message: "must be an integer from 1 to 1000, found 0"),
        Bad(fields: #""retry": {"attempts": 1001}"#, field: "retry/attempts", message: "from 1 to 1000"),
        Bad(fields: #""retry": {"attempts": 2.5}"#, field: "retry/attempts", message: "from 1 to 1000"),
        Bad(fields: #""retry": {"attempts": "3"}"#, field: "retry/attempts", message: "from 1 to 1000"),
        Bad(fields: #""retry": {"wait": "immediate"}"#, field: "retry/attempts", message: "is required"),
        Bad(fields: #""retry": {"attempts": 2, "jitter": "yes"}"#, field: "retry/jitter", message: "must be true or false"),
        Bad(fields: #""retry": {"attempts": 2, "tries": 3}"#, field: "retry/tries", message: "unknown field"),
        Bad(fields: #""retry": 3"#, field: "retry", message: "must be an object"),
        // repeat
        Bad(fields: #""repeat": {"max": 3}"#, field: "repeat/until", message: "is required"),
        Bad(fields: #""repeat": {"until": {"select": "/done"}}"#, field: "repeat/until/equals", message: "is required"),
        Bad(fields: #""repeat": {"until": {"select": "done", "equals": true}}"#, field: "repeat/until/select", message: "invalid JSON pointer"),
        Bad(fields: #""repeat": {"until": {"equals": true}, "max": 0}"#, field: "repeat/max", message: "from 1 to 100000"),
        Bad(fields: #""repeat": {"until": {"equals": true, "is": 1}}"#, field: "repeat/until/is", message: "unknown field"),
        Bad(fields: #""repeat": true"#, field: "repeat", message: "must be an object"),
        // condition
        Bad(fields: #""condition": {"input": {}}"#, field: "condition/procedure", message: "is required"),
        Bad(fields: #""condition": {"procedure": ""}"#, field: "condition/procedure", message: "is required"),
        Bad(fields: #""condition": {"procedure": "check", "negate": "no"}"#, field: "condition/negate", message: "must be true or false"),
        Bad(fields: #""condition": {"procedure": "check", "if": 1}"#, field: "condition/if", message: "unknown field"),
        Bad(fields: #""condition": "check""#, field: "condition", message: "must be an object"),
        Bad(
            fields: #""condition": {"procedure": "check", "input": {"$from": "ghost"}}"#, field: "condition/input/$from",
            message: "refers to missing node 'ghost'"),
        // dependencies, on_failure, when
        Bad(
            fields: #""dependencies": "sometimes""#, field: "dependencies", message: "must be \"all-succeeded\", \"none-failed\" or \"all-finished\""),
        Bad(fields: #""dependencies": true"#, field: "dependencies", message: "must be"),
        Bad(fields: #""on_failure": "maybe""#, field: "on_failure", message: "must be \"fail\" or \"ignore\""),
        Bad(fields: #""when": 5"#, field: "when", message: "must be a boolean or a $from reference, found number"),
        Bad(fields: #""when": "true""#, field: "when", message: "found string"),
        Bad(fields: #""when": null"#, field: "when", message: "found null"),
        Bad(fields: #""when": {"go": true}"#, field: "when", message: "found object"),
        Bad(fields: #""when": {"$from": "ghost"}"#, field: "when/$from", message: "refers to missing node 'ghost'"),
        Bad(fields: #""when": {"$from": "n"}"#, field: "when/$from", message: "cannot refer to its own output"),
    ]

    @Test("refused", arguments: bad)
    func refused(_ b: Bad) {
        let found = problems(Self.node(b.fields))
        #expect(found.count == 1, "\(found)")
        let p = problem(found, node: "n", field: b.field)
        #expect(p != nil, "\(found)")
        #expect(p?.message.contains(b.message) == true, "\(p?.message ?? "none")")
    }

    @Test("per-node fields are refused in defaults", arguments: ["when", "condition", "repeat"])
    func notInDefaults(_ field: String) {
        let value = field == "when" ? "true" : field == "condition" ? #"{"procedure": "check"}"# : #"{"until": {"equals": true}}"#
        let found = problems(#"{"defaults": {"\#(field)": \#(value)}, "nodes": {"a": {"procedure": "p"}}}"#)
        #expect(found == [GraphProblem(node: nil, field: "defaults/\(field)", message: "must be set per node, not in defaults")])
    }

    @Test func badDefaultsAreNamedAsDefaults() {
        let found = problems(
            #"""
            {"defaults": {"timeout": "-1s", "retry": {"attempts": 0}, "dependencies": "sometimes", "on_failure": "maybe"},
             "nodes": {"a": {"procedure": "p"}}}
            """#)
        #expect(Set(found.map(\.field)) == ["defaults/timeout", "defaults/retry/attempts", "defaults/dependencies", "defaults/on_failure"])
        #expect(found.allSatisfy { $0.node == nil })
        #expect(found.count == 4)
    }

    @Test func everyProblemIsListedAtOnce() {
        let found = problems(
            Self.node(
                #"""
                "timeout": "soon", "retry": {"attempts": 0}, "dependencies": "sometimes", "on_failure": "maybe", "when": 5,
                "condition": {}, "repeat": {}
                """#))
        #expect(
            Set(found.map(\.field)) == [
                "timeout", "retry/attempts", "dependencies", "on_failure", "when",
                "condition/procedure", "repeat/until",
            ])
    }

    @Test func aConditionProcedureMustBeKnown() {
        let found = problems(Self.node(#""condition": {"procedure": "nobody"}"#), knownProcedures: ["p"])
        #expect(found.map(\.field) == ["condition/procedure"])
        #expect(found.first?.message.contains("unknown procedure 'nobody'") == true)
    }

    @Test func notYetSupportedFieldsAreRefused() {
        for field in ["mutex", "cache"] {
            let found = problems(Self.node(#""\#(field)": {}"#))
            #expect(found.map(\.field) == [field])
            #expect(found.first?.message == "is not supported yet by this version of Baton")
        }
    }

    /// Durations are decimal numbers: "1e3s" and "+5s" are refused, and so must hexadecimal numbers be.
    @Test
    func hexadecimalDurationsAreRefused() {
        for text in ["0x10s", "0x1p3s", "0x1Ah"] {
            #expect((try? DurationText.parse(.string(text)).get()) == nil, "\(text)")
        }
        #expect(problem(problems(Self.node(#""timeout": "0x10s""#)), node: "n", field: "timeout") != nil)
    }
}
