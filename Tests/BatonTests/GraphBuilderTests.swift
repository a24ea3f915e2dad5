import Baton
import BatonTesting
import Foundation
import Testing

@Suite("GraphBuilder: graphs typed in Swift")
struct GraphBuilderTests {
    /// Every field the decoder of this version carries out, each way it can be written.
    static func everyField() -> (GraphBuilder, [String: any NodeReference]) {
        var g = GraphBuilder(name: "every-field")
        g.description = "all of the file format"
        g.defaults = GraphDefaults(
            pool: "cpu", priority: 3, retry: RetryPolicy(attempts: 3, wait: .exponential(initial: 1, factor: 2, max: 60), jitter: true),
            timeout: .seconds(300), dependencies: .noneFailed, onFailure: .fail)
        let split = g.add("split", Split.self, input: Split.Input(text: "a bb ccc dddd", parts: 2))
        let shout = g.add(
            "shout", Shout.self,
            options: NodeOptions(
                after: [split], pool: "gpu", priority: 9, retry: RetryPolicy(attempts: 2, wait: .constant(0.25)), timeout: .milliseconds(1500),
                dependencies: .allFinished, when: .literal(true), onFailure: .ignore)
        ) {
            $0.set(\.text, split.output(\.first))
            $0.set(\.times, literal: 2)
            $0.set(\.label, split.output(\.stats.longest))
        }
        let length = g.add(
            "length", Length.self, input: shout.output(\.text),
            options: NodeOptions(
                retry: RetryPolicy(attempts: 4, wait: .incrementing(initial: 1, increment: 2)),
                condition: ConditionOption(IsLong.self, input: .fields { $0.set(\.count, split.output(\.stats.count)) }, negate: true)))
        g.add(
            "total", Total.self, input: .fields { $0.set(\.values, .array([length.output, .literal(10)])) },
            options: NodeOptions(
                retry: RetryPolicy(attempts: 5, wait: .fibonacci(period: 2, max: 3600)),
                repeatUntil: .until(\Total.Output.total, equals: 0, wait: .random(min: 1, max: 5), max: 7)))
        g.delay("pause", for: .seconds(5400), options: NodeOptions(retry: RetryPolicy(attempts: 1), when: split.output(\.stats.many)))
        g.add(
            "echo", procedure: "baton.echo", input: split.output(\.chunks).json,
            options: NodeOptions(condition: ConditionOption(named: "test.is-long")))
        return (g, ["split": split, "shout": shout, "length": length])
    }

    static let everyFieldJSON = #"""
        {"name":"every-field","description":"all of the file format",
         "defaults":{"pool":"cpu","priority":3,"retry":{"attempts":3,"wait":{"exponential":{"initial":"1s","factor":2,"max":"1m"}},"jitter":true},
                     "timeout":"5m","dependencies":"none-failed","on_failure":"fail"},
         "nodes":{
          "split":{"procedure":"test.split","input":{"parts":2,"text":"a bb ccc dddd"}},
          "shout":{"procedure":"test.shout",
                   "input":{"text":{"$from":"split","select":"/first"},"times":2,"label":{"$from":"split","select":"/stats/longest"}},
                   "after":["split"],"pool":"gpu","priority":9,"retry":{"attempts":2,"wait":{"constant":"250ms"}},"timeout":"1500ms",
                   "dependencies":"all-finished","when":true,"on_failure":"ignore"},
          "length":{"procedure":"test.length","input":{"$from":"shout","select":"/text"},
                    "retry":{"attempts":4,"wait":{"incrementing":{"initial":"1s","increment":"2s"}}},
                    "condition":{"procedure":"test.is-long","input":{"count":{"$from":"split","select":"/stats/count"}},"negate":true}},
          "total":{"procedure":"test.total","input":{"values":[{"$from":"length"},10]},
                   "retry":{"attempts":5,"wait":{"fibonacci":{"period":"2s","max":"1h"}}},
                   "repeat":{"until":{"select":"/total","equals":0},"wait":{"random":{"min":"1s","max":"5s"}},"max":7}},
          "pause":{"procedure":"baton.delay","input":{"seconds":5400},"retry":{"attempts":1},
                   "when":{"$from":"split","select":"/stats/many"}},
          "echo":{"procedure":"baton.echo","input":{"$from":"split","select":"/chunks"},
                  "condition":{"procedure":"test.is-long","input":{}}}}}
        """#

    @Test func emitsTheFileFormatExactly() throws {
        let (g, _) = Self.everyField()
        let expected = try json(Self.everyFieldJSON)
        #expect(g.json() == expected)
        // Member order too: the nodes in the order added, each node's fields in the file's usual order.
        #expect(g.json()["nodes"]?.objectValue?.keys == ["split", "shout", "length", "total", "pause", "echo"])
        #expect(
            g.json()["nodes"]?["shout"]?.objectValue?.keys == [
                "procedure", "input", "after", "pool", "priority", "retry", "timeout", "dependencies", "when", "on_failure",
            ])
    }

    @Test func roundTripsThroughTheDecoder() throws {
        let (g, _) = Self.everyField()
        let built = try g.build(knownProcedures: Set(ProcedureRegistry.builderTests.names))
        #expect(built.source == g.json())
        #expect(built.name == "every-field")
        // The file text decodes to the same graph, field for field.
        let decoded = try graph(Self.everyFieldJSON)
        #expect(WireFormat.encode(built) == WireFormat.encode(decoded))
        // And the built graph's file, written out and read back, is the same again.
        let again = try GraphDecoder().decode(Array(built.source.serialized().utf8))
        #expect(WireFormat.encode(again) == WireFormat.encode(built))
        let shout = try #require(built.nodes["shout"])
        #expect(shout.pool == "gpu" && shout.priority == 9 && shout.after == ["split"])
        #expect(shout.policies.retry == RetryPolicy(attempts: 2, wait: .constant(0.25)))
        #expect(shout.policies.timeout == 1.5)
        #expect(shout.policies.onFailure == .ignore && shout.policies.dependencies == .allFinished)
        #expect(built.nodes["split"]?.policies.retry == RetryPolicy(attempts: 3, wait: .exponential(initial: 1, factor: 2, max: 60), jitter: true))
        #expect(built.nodes["total"]?.policies.repeatPolicy?.max == 7)
        #expect(built.nodes["length"]?.policies.condition?.negate == true)
        #expect(built.nodes["length"]?.dependencies == ["shout", "split"])
    }

    @Test func runsInProcessWithTheTestKit() async throws {
        var g = GraphBuilder(name: "typed")
        let split = g.add("split", Split.self, input: Split.Input(text: "one two three four", parts: 2))
        let shout = g.add("shout", Shout.self) {
            $0.set(\.text, split.output(\.first))
            $0.set(\.label, split.output(\.stats.longest))
        }
        let flaky = g.add(
            "flaky", Flaky.self, options: NodeOptions(retry: RetryPolicy(attempts: 3, wait: .constant(3600)))
        ) { $0.set(\.word, shout.output(\.text)) }
        let length = g.add("length", Length.self, input: flaky.output(\.word))
        let total = g.add("total", Total.self, input: .fields { $0.set(\.values, .array([length.output, flaky.output(\.attempt)])) })
        let pause = g.delay("pause", for: .seconds(7200), options: NodeOptions(after: [total]))

        let run = try await GraphTest(registry: .builderTests).run(g)
        try run.expectSucceeded()
        #expect(try run.output(of: shout).text == "three four: ONE TWO!")
        #expect(try run.output(of: flaky).attempt == 3)
        #expect(try run.output(of: length) == 20)
        #expect(try run.output(of: total).total == 23)
        // Two back-offs of an hour, then a delay of two hours.
        let fired = try run.output(of: pause).firedAt
        #expect(fired == Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(TestClock.defaultStart.addingTimeInterval(4 * 3600)))
    }

    // MARK: - Field names

    @Test func keyPathsNameJSONFields() throws {
        #expect(try FieldPath.tokens(of: \Split.Output.stats.longest).get() == ["stats", "longest"])
        #expect(try FieldPath.tokens(of: \Shout.Input.label).get() == ["label"])
        #expect(try FieldPath.tokens(of: \Split.Output.self).get() == [])
        #expect(try FieldPath.tokens(of: \Renamed.postCode).get() == ["post_code"])
        #expect(try FieldPath.tokens(of: \DelayFired.firedAt).get() == ["fired_at"])
        struct Nested: Codable { var renamed: Renamed? }
        #expect(try FieldPath.tokens(of: \Nested.renamed?.postCode).get() == ["renamed", "postCode"], "renames apply to the first level only")
        let chained = GraphValue<Nested>.runInput("").field(\.renamed).field(\.!.postCode)
        #expect(chained.template == ["$input": "/renamed/post_code"])
        #expect(throws: FieldPathError.self) { try FieldPath.tokens(of: \Split.Output.chunks[0]).get() }
        #expect(throws: FieldPathError.self) { try FieldPath.tokens(of: \Split.Output.chunks.count).get() }
    }

    // MARK: - Mistakes the compiler cannot see

    @Test func mistakesAreProblemsOfTheBuild() throws {
        var g = GraphBuilder()
        let split = g.add("split", Split.self, input: Split.Input(text: "a", parts: 1))
        g.add("first", Length.self, input: split.output(\.chunks).field(\.first!))
        g.add("first", procedure: "baton.echo")
        var inside: NodeHandle<Shout.Output>?
        g.group("grp") { grp in
            inside = grp.add("loud", Shout.self) { $0.set(\.text, split.output(\.first)) }
            grp.add("split", procedure: "baton.echo")
        }
        g.add("peek", Length.self, input: inside!.output(\.text))
        g.add("item", Length.self, input: MapItemProbe.item)
        do {
            _ = try g.build()
            Issue.record("the build was accepted")
        } catch {
            let text = error.problems.map(\.description)
            #expect(text.contains { $0.hasPrefix("node 'first', field 'input': key path") && $0.contains("stored properties only") })
            #expect(text.contains("node 'first': a node with this key was already added"))
            #expect(
                text.filter { $0.contains("'first'") && ($0.contains("already") || $0.contains("duplicate")) }.count == 1, "reported once: \(text)")
            #expect(
                text.contains(
                    "node 'grp/loud': references outer node 'split', but the group has a child with that key, which the reference would name"))
            #expect(
                text.contains(
                    "node 'peek', field 'input': references 'grp/loud' inside a group it is not part of: nodes outside a group reference the group, never its children"
                ))
            #expect(text.contains("node 'item', field 'input': $item and $index are only meaningful in a map's input template"))
        }
    }

    /// A `$item` value smuggled out of a map template.
    enum MapItemProbe {
        static var item: GraphValue<String> {
            var captured: GraphValue<String>?
            var g = GraphBuilder()
            g.map("m", over: GraphValue<[String]>.runInput("/xs"), Length.self) { item in
                captured = item.item
                return item.item
            }
            return captured!
        }
    }
}
