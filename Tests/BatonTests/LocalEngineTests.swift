import Baton
import BatonDemo
import BatonTesting
import Testing

@Suite("LocalEngine: graphs end to end")
struct LocalEngineTests {
    static func run(
        _ text: String, maxConcurrency: Int = 8, runID: String = "local-run",
        registry: ProcedureRegistry = .demo
    ) async throws -> (RunState, [SchedulerCommand]) {
        let g = try graph(text)
        let seen = Collected<SchedulerCommand>()
        let state = await LocalEngine(registry: registry, maxConcurrency: maxConcurrency)
            .run(g, runID: runID) { seen.append($0) }
        return (state, seen.all)
    }

    static let wordCount = #"""
        {"name": "word-count", "nodes": {
          "chunk":  {"procedure": "demo.chunk-text", "input": {"text": "The cat and the dog and THE bird", "parts": 3}},
          "count0": {"procedure": "demo.count-words", "input": {"text": {"$from": "chunk", "select": "/chunks/0"}}},
          "count1": {"procedure": "demo.count-words", "input": {"text": {"$from": "chunk", "select": "/chunks/1"}}},
          "count2": {"procedure": "demo.count-words", "input": {"text": {"$from": "chunk", "select": "/chunks/2"}}},
          "merge":  {"procedure": "demo.merge-counts", "input": {"counts": [
                       {"$from": "count0", "select": "/counts"}, {"$from": "count1", "select": "/counts"},
                       {"$from": "count2", "select": "/counts"}]}},
          "top":    {"procedure": "demo.top-words", "input": {"counts": {"$from": "merge", "select": "/counts"}, "n": 2}},
          "all":    {"procedure": "demo.top-words", "input": {"counts": {"$from": "merge", "select": "/counts"}, "n": 10}}}}
        """#

    @Test("word counting", arguments: [1, 3, 8])
    func wordCounting(maxConcurrency: Int) async throws {
        let (state, commands) = try await Self.run(Self.wordCount, maxConcurrency: maxConcurrency)
        #expect(state.status == .succeeded)
        #expect(state.error == nil)
        #expect(state.nodes["chunk"]?.output == ["chunks": ["The cat and", "the dog and", "THE bird"]])
        #expect(state.nodes["count0"]?.output == ["counts": ["the": 1, "cat": 1, "and": 1], "total": 3])
        #expect(state.nodes["merge"]?.output == ["counts": ["the": 3, "and": 2, "cat": 1, "dog": 1, "bird": 1], "total": 8])
        #expect(state.nodes["top"]?.output == [["word": "the", "count": 3], ["word": "and", "count": 2]])
        #expect(
            state.nodes["all"]?.output == [
                ["word": "the", "count": 3], ["word": "and", "count": 2],
                ["word": "bird", "count": 1], ["word": "cat", "count": 1],
                ["word": "dog", "count": 1],
            ])
        #expect(commands.runStatuses == [.running, .succeeded])
        #expect(commands.dispatches.count == 7)
        #expect(Set(commands.dispatches.map(\.key)).count == 7)
        #expect(commands.dispatches.allSatisfy { $0.runID == "local-run" && $0.attempt == 1 })
        #expect(state.nodes.values.allSatisfy { $0.worker == "local" })
    }

    @Test func arithmetic() async throws {
        let (state, _) = try await Self.run(
            #"""
            {"nodes": {
              "sum":   {"procedure": "baton.add", "input": {"values": [1, 2, 3.5]}},
              "ints":  {"procedure": "baton.add", "input": {"values": [2, 5]}},
              "prod":  {"procedure": "demo.multiply", "input": {"values": [{"$from": "ints"}, 6]}},
              "total": {"procedure": "baton.add", "input": {"values": [{"$from": "prod"}, {"$from": "sum"}]}},
              "half":  {"procedure": "demo.divide", "input": {"dividend": {"$from": "prod"}, "divisor": 4}},
              "echo":  {"procedure": "baton.echo", "input": {"result": {"$from": "total"}, "list": [{"$from": "prod"}]}}}}
            """#)
        #expect(state.status == .succeeded)
        #expect(state.nodes["sum"]?.output == 6.5)
        #expect(state.nodes["ints"]?.output == 7)
        #expect(state.nodes["prod"]?.output == 42)
        #expect(state.nodes["prod"].flatMap { $0.output.map(representation) } == "int")
        #expect(state.nodes["prod"]?.input == ["values": [7, 6]])
        #expect(state.nodes["total"]?.output == 48.5)
        #expect(state.nodes["half"]?.output == 10.5)
        #expect(state.nodes["echo"]?.output == ["result": 48.5, "list": [42]])
    }

    @Test func aFailingNode() async throws {
        let (state, commands) = try await Self.run(
            #"""
            {"nodes": {
              "ok":        {"procedure": "baton.echo", "input": {"v": 1}},
              "bad":       {"procedure": "baton.fail", "input": {"message": "intentional failure", "permanent": true}},
              "after-bad": {"procedure": "baton.echo", "input": {"$from": "bad"}},
              "later":     {"procedure": "baton.echo", "after": ["after-bad"]},
              "after-ok":  {"procedure": "baton.echo", "input": {"$from": "ok"}}}}
            """#)
        #expect(state.status == .failed)
        #expect(state.error == "node 'bad' failed: intentional failure")
        #expect(state.nodes["bad"]?.status == .failed)
        #expect(state.nodes["bad"]?.error == "intentional failure")
        #expect(state.nodes["after-bad"]?.status == .cancelled)
        #expect(state.nodes["after-bad"]?.error == "dependency 'bad' failed")
        #expect(state.nodes["later"]?.status == .cancelled)
        #expect(state.nodes["after-ok"]?.status == .succeeded)
        #expect(state.nodes["after-ok"]?.output == ["v": 1])
        #expect(commands.runStatuses == [.running, .failed])
        #expect(Set(commands.dispatches.map(\.key)) == ["ok", "bad", "after-ok"])
    }

    @Test func failureMessagesFromWorkersReachTheRun() async throws {
        let (state, _) = try await Self.run(
            #"""
            {"nodes": {
              "typo": {"procedure": "baton.add", "input": {"values": "1,2"}},
              "absent": {"procedure": "demo.not-served"},
              "fine": {"procedure": "baton.fail", "input": {"message": "x", "succeed_on_attempt": 1}}}}
            """#)
        #expect(state.status == .failed)
        #expect(state.nodes["typo"]?.error == "input does not fit baton.add: '/values': expected an array")
        #expect(state.nodes["absent"]?.error == "this worker does not serve procedure 'demo.not-served'")
        #expect(state.nodes["fine"]?.output == ["attempt": 1])
        #expect(state.error == "node 'typo' failed: input does not fit baton.add: '/values': expected an array (and 1 more failed)")
    }

    actor Gauge {
        var current = 0
        var highest = 0
        func enter() { current += 1; highest = max(highest, current) }
        func leave() { current -= 1 }
    }

    struct GaugedProcedure: Procedure {
        static let name = "test.gauged"
        let gauge: Gauge
        func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON {
            await gauge.enter()
            for _ in 0..<20 { await Task.yield() }
            await gauge.leave()
            return input
        }
    }

    @Test func concurrencyLimitIsRespected() async throws {
        let gauge = Gauge()
        var registry = ProcedureRegistry()
        registry.register(GaugedProcedure(gauge: gauge))
        let members = (0..<30).map { #""n\#($0)": {"procedure": "test.gauged", "input": \#($0)}"# }
        let (state, _) = try await Self.run(#"{"nodes": {\#(members.joined(separator: ","))}}"#, maxConcurrency: 2, registry: registry)
        #expect(state.status == .succeeded)
        #expect(await gauge.highest <= 2)
        #expect(await gauge.highest >= 1)
        #expect(state.nodes["n17"]?.output == 17)
    }
}
