import Baton
import BatonDemo
import Foundation
import Testing

/// Everything a graph file says, the Swift builder says too: each graph in examples/ built with
/// `GraphBuilder` decodes to the same plan as its file (nodes, inputs, policies, order, name).
@Suite("examples/ built with GraphBuilder")
struct ExampleBuilderTests {
    /// The plan as JSON, its templates (JSON text in the plan) parsed, so members compare in any order.
    static func plan(_ graph: Graph) throws -> JSON {
        func parsed(_ json: JSON) throws -> JSON {
            switch json {
            case .array(let items): return .array(try items.map(parsed))
            case .object(let o):
                return .object(
                    JSONObject(
                        try o.members.map { member in
                            if member.key == "template", let text = member.value.stringValue { return (member.key, try JSONParser.parse(text)) }
                            return (member.key, try parsed(member.value))
                        }))
            default: return json
            }
        }
        return try parsed(try JSONParser.parse(String(decoding: graph.planBytes(), as: UTF8.self)))
    }

    static func check(_ file: String, _ builder: GraphBuilder, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = try ExampleGraphTests.load(file)
        let decoder = GraphDecoder()
        let fromFile = try decoder.decode(bytes)
        let built = try builder.build()
        #expect(built.name == fromFile.name, "\(file)", sourceLocation: sourceLocation)
        #expect(built.source["description"] == fromFile.source["description"], "\(file)", sourceLocation: sourceLocation)
        #expect(built.source["input"] == fromFile.source["input"], "\(file)", sourceLocation: sourceLocation)
        let (a, b) = (try plan(built), try plan(fromFile))
        #expect(a == b, "\(file):\nbuilt \(a.serialized(sortedKeys: true))\nfile  \(b.serialized(sortedKeys: true))", sourceLocation: sourceLocation)
    }

    /// Every example but the invalid one has a builder below, so a new example needs one too.
    @Test func everyExampleIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ExampleGraphTests.directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "invalid.json" }.sorted()
        #expect(files == Self.examples.keys.sorted())
    }

    @Test(arguments: examples.keys.sorted())
    func builtEqualsFile(_ file: String) throws {
        let make = try #require(Self.examples[file])
        try Self.check(file, make())
    }

    static let examples: [String: @Sendable () -> GraphBuilder] = [
        "arithmetic.json": arithmetic, "cache.json": cache, "concurrency.json": concurrency, "conditions.json": conditions,
        "delay.json": delay, "failing-branch.json": failingBranch, "fair.json": fair, "fib.json": fib, "group.json": group,
        "long-sleep.json": longSleep,
        "map-collect.json": mapCollect, "map.json": map, "mutex.json": mutex, "progress.json": progress, "rate.json": rate,
        "repeat-until.json": repeatUntil, "retry-backoff.json": retryBackoff, "run-input.json": runInput, "sleepy-fan-out.json": sleepyFanOut,
        "timeout.json": timeout, "wait-for-approval.json": waitForApproval, "word-count.json": wordCount,
    ]

    static func arithmetic() -> GraphBuilder {
        var g = GraphBuilder(name: "arithmetic")
        let a = g.add("a", AddProcedure.self, fields: { $0.set(\.values, literal: [1, 2, 3]) })
        let b = g.add("b", MultiplyProcedure.self, fields: { $0.set(\.values, .array([a.output, .literal(10)])) })
        let c = g.add("c", AddProcedure.self, fields: { $0.set(\.values, .array([a.output, .literal(100)])) })
        let ratio = g.add("ratio", DivideProcedure.self) {
            $0.set(\.dividend, b.output.unchecked(as: Double.self))
            $0.set(\.divisor, c.output.unchecked(as: Double.self))
        }
        g.add("summary", EchoProcedure.self, input: .object(["sum": a.output, "product": b.output, "ratio": ratio.output]))
        return g
    }

    static func cache() -> GraphBuilder {
        var g = GraphBuilder(name: "cache")
        g.description =
            "The same procedure with the same input (key order and 2.0 vs 2 do not matter) runs once within the ttl; the others take its output."
        let hour = NodeOptions(cacheTTL: .seconds(3600))
        let first = g.add("first", procedure: "baton.add", input: .literal(["values": [1, 2.0, 3]]), options: hour)
        g.add("twin", procedure: "baton.add", input: .literal(["values": [1, 2, 3]]), options: hour)
        g.add(
            "later", procedure: "baton.add", input: .literal(["values": [1, 2, 3.0]]), options: NodeOptions(after: [first], cacheTTL: .seconds(3600)))
        return g
    }

    static func concurrency() -> GraphBuilder {
        var g = GraphBuilder(name: "concurrency")
        g.description = "At most one import per customer at a time (across the cluster); different customers run side by side."
        let customers = g.add("customers", EchoProcedure.self, input: .literal(["a": "acme", "b": "globex"]))
        for (key, customer) in [("import-a1", "/a"), ("import-a2", "/a"), ("import-b", "/b")] {
            g.add(
                key, SleepProcedure.self, options: NodeOptions(concurrency: ConcurrencyOption(key: customers.output.select(customer), limit: 1)),
                fields: { $0.set(\.seconds, literal: 0.2) })
        }
        return g
    }

    static func conditions() -> GraphBuilder {
        var g = GraphBuilder(name: "conditions")
        let settings = g.add("settings", EchoProcedure.self, input: .literal(["send_email": false, "archive": true, "size": 12]))
        let email = g.add(
            "email", EchoProcedure.self, input: .literal(["to": "ops@example.com"]),
            options: NodeOptions(when: settings.output.select("/send_email").unchecked(as: Bool.self)))
        let afterEmail = g.add("after-email", EchoProcedure.self, input: .object(["email": email.output]))
        let archive = g.add(
            "archive", EchoProcedure.self, input: .literal(["archived": true]),
            options: NodeOptions(condition: ConditionOption(named: "baton.echo", input: settings.output.select("/archive"))))
        let notArchived = g.add(
            "not-archived", EchoProcedure.self, input: .literal(["note": "runs only when archiving is off"]),
            options: NodeOptions(condition: ConditionOption(named: "baton.echo", input: settings.output.select("/archive"), negate: true)))
        let summary = g.add(
            "summary", EchoProcedure.self, input: .object(["email": email.output, "archive": archive.output]),
            options: NodeOptions(dependencies: .noneFailed))
        g.add(
            "cleanup", EchoProcedure.self, input: .literal(["done": true]),
            options: NodeOptions(after: [summary, afterEmail, notArchived], dependencies: .allFinished))
        return g
    }

    static func delay() -> GraphBuilder {
        var g = GraphBuilder(name: "delay")
        let start = g.add("start", EchoProcedure.self, input: .literal(["wait": 2]))
        let pause = g.delay("pause", seconds: start.output.select("/wait").unchecked(as: Double.self))
        g.add("after-pause", EchoProcedure.self, input: .object(["fired": pause.output.select("/fired_at")]))
        return g
    }

    static func failingBranch() -> GraphBuilder {
        var g = GraphBuilder(name: "failing-branch")
        let fetch = g.add("fetch", EchoProcedure.self, input: .literal(["rows": [1, 2, 3]]))
        let flaky = g.add("flaky", procedure: "baton.fail", input: .literal(["message": "the upstream service said no"]))
        let needs = g.add("needs-flaky", EchoProcedure.self, input: .object(["from-flaky": flaky.output]))
        g.add("report", EchoProcedure.self, input: .literal(["done": true]), options: NodeOptions(after: [needs]))
        g.add("sum", AddProcedure.self, fields: { $0.set(\.values, fetch.output.select("/rows").unchecked(as: [JSON].self)) })
        return g
    }

    static func fib() -> GraphBuilder {
        var g = GraphBuilder(name: "fib")
        g.description = "Spawning: demo.fib returns a graph of two smaller demo.fib nodes and a baton.add in its place, down to n < 2."
        g.add("fib", spawning: FibProcedure.self, input: FibProcedure.Input(n: 10))
        return g
    }

    static func group() -> GraphBuilder {
        var g = GraphBuilder(name: "group")
        g.description =
            "A sub-pipeline that acts as one node: its children see each other and the graph's nodes; outside nodes see only the group's output."
        let base = g.add("base", EchoProcedure.self, input: .literal(["value": 7]))
        let stats = g.group("stats", options: NodeOptions(timeout: .seconds(60))) { inner -> GraphValue<JSON> in
            let value = base.output.select("/value")
            let double = inner.add("double", MultiplyProcedure.self, fields: { $0.set(\.values, .array([value, .literal(2)])) })
            let square = inner.add("square", MultiplyProcedure.self, fields: { $0.set(\.values, .array([value, value])) })
            let sum = inner.group("inner") { innermost -> GraphValue<JSON> in
                innermost.add("sum", AddProcedure.self, fields: { $0.set(\.values, .array([double.output, square.output])) }).output
            }
            return .object(["double": double.output, "square": square.output, "sum": sum.output])
        }
        g.add("report", EchoProcedure.self, input: .object(["sum": stats.output.select("/sum")]))
        return g
    }

    static func longSleep() -> GraphBuilder {
        var g = GraphBuilder(name: "long-sleep: try `baton cancel` on it")
        let nap = g.add("nap", SleepProcedure.self, fields: { $0.set(\.seconds, literal: 300) })
        g.add("after-nap", EchoProcedure.self, input: .object(["slept": nap.output.json]))
        return g
    }

    static func mapCollect() -> GraphBuilder {
        var g = GraphBuilder(name: "map-collect")
        g.description = "A map that collects every outcome: dividing 12 by each divisor, one of which is zero."
        let divisors = g.add("divisors", EchoProcedure.self, input: .literal([4, 0, 3]))
        g.mapCollecting("quotients", over: divisors.output.unchecked(as: [Double].self), DivideProcedure.self) { element in
            .fields {
                $0.set(\.dividend, literal: 12)
                $0.set(\.divisor, element.item)
            }
        }
        return g
    }

    static func map() -> GraphBuilder {
        var g = GraphBuilder(name: "map")
        g.description = "One child per element of an array found at run time: each number is multiplied by 10, at most 2 at a time."
        let numbers = g.add("numbers", EchoProcedure.self, input: .literal(["items": [1, 2, 3, 4, 5]]))
        let timesTen = g.map(
            "times-ten", over: numbers.output.select("/items").unchecked(as: [JSON].self), MultiplyProcedure.self, concurrency: 2,
            options: NodeOptions(retry: RetryPolicy(attempts: 2))
        ) { element in .fields { $0.set(\.values, .array([element.item, .literal(10)])) } }
        g.add("total", AddProcedure.self, fields: { $0.set(\.values, timesTen.output) })
        return g
    }

    static func mutex() -> GraphBuilder {
        var g = GraphBuilder(name: "mutex")
        g.description =
            "Two migrations never run at once: both hold mutex 'db' (across every run of the cluster); 'report' holds nothing and runs beside them."
        g.add("migrate-a", SleepProcedure.self, options: NodeOptions(mutex: ["db"]), fields: { $0.set(\.seconds, literal: 0.3) })
        g.add("migrate-b", SleepProcedure.self, options: NodeOptions(mutex: ["db", "cache-warm"]), fields: { $0.set(\.seconds, literal: 0.3) })
        g.add("report", EchoProcedure.self, input: .literal(["text": "runs beside the migrations"]))
        return g
    }

    static func progress() -> GraphBuilder {
        var g = GraphBuilder(name: "progress: try `baton watch` on it")
        let work = g.add("work", StepsProcedure.self) {
            $0.set(\.steps, literal: 5)
            $0.set(\.seconds, literal: 0.5)
        }
        g.add("more", StepsProcedure.self, options: NodeOptions(after: [work])) {
            $0.set(\.steps, literal: 3)
            $0.set(\.seconds, literal: 0.3)
        }
        return g
    }

    struct FairInput: Codable { var tenant: String }
    struct FairJob: Codable {
        var tenant: String
        var n: Int
    }

    static func fair() -> GraphBuilder {
        var g = GraphBuilder(name: "fair")
        g.description =
            "Two tenants share the workers of one procedure: their nodes are dispatched round-robin, the paying tenant twice as often (weight 2), however many nodes either has waiting. The map's children take their tenant from their element; the report takes the default key."
        let input = g.declareInput(FairInput(tenant: "acme"))
        g.defaults.fair = FairOption(key: "shared")
        let jobs = g.add(
            "jobs", EchoProcedure.self,
            input: .literal([["tenant": "acme", "n": 1], ["tenant": "globex", "n": 2], ["tenant": "acme", "n": 3]]))
        let work = g.map(
            "work", over: jobs.output.unchecked(as: [FairJob].self), procedure: "baton.echo", fair: { FairOption(key: $0.item(\.tenant)) }
        ) { element in .object(["job": element.item(\.n).json]) }
        let bill = g.add(
            "bill", EchoProcedure.self, input: .object(["for": input.value(\.tenant).json]),
            options: NodeOptions(fair: FairOption(key: input.value(\.tenant), weight: 2)))
        g.add("report", EchoProcedure.self, input: .literal(["done": true]), options: NodeOptions(after: [work, bill]))
        return g
    }

    struct RateInput: Codable { var api: String }

    static func rate() -> GraphBuilder {
        var g = GraphBuilder(name: "rate")
        g.description =
            "An API that allows 2 calls a second: at most 2 of the lookups start in any second, across the cluster (the map's children share the key)."
        let input = g.declareInput(RateInput(api: "geo"))
        let cities = g.add("cities", EchoProcedure.self, input: .literal(["oslo", "lima", "pune", "kyiv", "rome"]))
        let lookup = g.map(
            "lookup", over: cities.output.unchecked(as: [String].self), procedure: "baton.echo",
            rate: { _ in RateOption(key: input.value(\.api), limit: 2, per: .seconds(1)) }
        ) { element in .object(["city": element.item.json]) }
        g.add(
            "report", EchoProcedure.self, input: .object(["looked_up": lookup.output]),
            options: NodeOptions(rate: RateOption(key: "reports", limit: 1, per: .seconds(1))))
        return g
    }

    static func repeatUntil() -> GraphBuilder {
        var g = GraphBuilder(name: "repeat-until")
        let poll = g.add(
            "poll", CountdownProcedure.self,
            options: NodeOptions(repeatUntil: .until(\CountdownProcedure.Output.remaining, equals: 0, wait: .constant(0.1), max: 10)),
            fields: { $0.set(\.from, literal: 3) })
        g.add("done", EchoProcedure.self, input: .object(["polled": poll.output.json]))
        return g
    }

    static func retryBackoff() -> GraphBuilder {
        var g = GraphBuilder(name: "retry-backoff")
        let flaky = g.add(
            "flaky", procedure: "baton.fail", input: .literal(["message": "the service is busy", "succeed_on_attempt": 3]),
            options: NodeOptions(retry: RetryPolicy(attempts: 5, wait: .exponential(initial: 0.2, factor: 2, max: 2), jitter: true)))
        let hopeless = g.add(
            "hopeless", procedure: "baton.fail", input: .literal(["message": "bad credentials", "permanent": true]),
            options: NodeOptions(retry: RetryPolicy(attempts: 5, wait: .constant(1)), onFailure: .ignore))
        g.add("report", EchoProcedure.self, input: .object(["flaky": flaky.output, "hopeless": hopeless.output]))
        return g
    }

    struct RunInput: Codable {
        struct Report: Codable { var title: String; var pool: String }
        var numbers: [Int]
        var factor: Int
        var report: Report
        var with_report: Bool
    }

    static func runInput() -> GraphBuilder {
        var g = GraphBuilder(name: "run-input")
        g.description =
            "One graph, many runs: what differs between runs comes from the run input. Try: baton run --local examples/run-input.json --input '{\"numbers\": [4, 5, 6], \"report\": {\"title\": \"Q3\"}}'"
        let input = g.declareInput(RunInput(numbers: [1, 2, 3], factor: 10, report: .init(title: "Totals", pool: "default"), with_report: true))
        g.defaults.raw = [("pool", input.value(\.report.pool).json)]
        let sum = g.add("sum", AddProcedure.self, fields: { $0.set(\.values, input.value(\.numbers).unchecked(as: [JSON].self)) })
        let scaled = g.add("scaled", MultiplyProcedure.self, fields: { $0.set(\.values, .array([sum.output, input.value(\.factor).json])) })
        g.add("report", FormatProcedure.self, options: NodeOptions(when: input.value(\.with_report))) {
            $0.set(\.template, literal: "{title}: {sum} in all, {scaled} scaled by {factor}")
            $0.set(
                \.values,
                GraphValue<JSON>.object([
                    "title": input.value(\.report.title).json, "sum": sum.output, "scaled": scaled.output, "factor": input.value(\.factor).json,
                ]).unchecked(as: [String: JSON].self))
        }
        return g
    }

    static func sleepyFanOut() -> GraphBuilder {
        var g = GraphBuilder(name: "sleepy-fan-out")
        g.defaults.pool = "default"
        let start = g.add("start", EchoProcedure.self, input: .literal(["seconds": 1]))
        let sleeps = (1...4).map { i in
            g.add("s\(i)", SleepProcedure.self, fields: { $0.set(\.seconds, start.output.select("/seconds").unchecked(as: Double.self)) })
        }
        g.add("done", AddProcedure.self, fields: { $0.set(\.values, .array(sleeps.map { $0.output(\.slept).json })) })
        return g
    }

    static func timeout() -> GraphBuilder {
        var g = GraphBuilder(name: "timeout")
        g.defaults.timeout = .seconds(300)
        let slow = g.add(
            "slow", SleepProcedure.self, options: NodeOptions(timeout: .seconds(1), onFailure: .ignore), fields: { $0.set(\.seconds, literal: 30) })
        let quick = g.add("quick", SleepProcedure.self, fields: { $0.set(\.seconds, literal: 0.1) })
        g.add("next", EchoProcedure.self, input: .object(["slow": slow.output.json, "quick": quick.output.json]))
        return g
    }

    struct Approval: Codable { var by: String }

    static func waitForApproval() -> GraphBuilder {
        var g = GraphBuilder(name: "wait-for-approval")
        g.description = "A release waits for a person's approval (baton signal RUN approve --data '{\"by\": \"ada\"}'), then publishes with it."
        let draft = g.add("draft", EchoProcedure.self, input: .literal(["title": "release 1.2"]))
        let approve = g.signal("approve", name: "approval", of: Approval.self, options: NodeOptions(after: [draft], timeout: .seconds(3600)))
        g.add("publish", EchoProcedure.self, input: .object(["title": draft.output.select("/title"), "approved_by": approve.output(\.by).json]))
        return g
    }

    static func wordCount() -> GraphBuilder {
        var g = GraphBuilder(name: "word-count")
        let chunk = g.add("chunk", ChunkTextProcedure.self) {
            $0.set(
                \.text,
                literal:
                    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs. A fox, a dog, and the end of the story of the fox and the dog."
            )
            $0.set(\.parts, literal: 3)
        }
        let counts = (0..<3).map { i in
            g.add(
                "count-\(i + 1)", CountWordsProcedure.self, fields: { $0.set(\.text, chunk.output.select("/chunks/\(i)").unchecked(as: String.self)) }
            )
        }
        let merge = g.add("merge", MergeCountsProcedure.self, fields: { $0.set(\.counts, .array(counts.map { $0.output(\.counts) })) })
        let top = g.add("top", TopWordsProcedure.self) {
            $0.set(\.counts, merge.output(\.counts))
            $0.set(\.n, literal: 3)
        }
        g.add("report", FormatProcedure.self) {
            $0.set(\.template, literal: "{total} words; the most frequent is '{word}' ({count} times)")
            $0.set(
                \.values,
                GraphValue<JSON>.object([
                    "total": merge.output(\.total).json, "word": top.output.select("/0/word"), "count": top.output.select("/0/count"),
                ])
                .unchecked(as: [String: JSON].self))
        }
        return g
    }
}
