import Baton
import BatonDemo
import BatonTesting
import Foundation
import Testing

/// A run has at most `dispatchWindow` nodes with a task out; the rest wait, ready, and go out as others end.
@Suite("dispatch window")
struct DispatchWindowTests {
    static func fanOut(_ n: Int, priorities: [Int: Int] = [:]) throws -> Graph {
        var nodes: [(key: String, value: JSON)] = []
        for i in 0..<n {
            var node: JSON = ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]]
            if let p = priorities[i], case var .object(o) = node {
                o["priority"] = .int(Int64(p))
                node = .object(o)
            }
            nodes.append(("n\(i)", node))
        }
        nodes.append(("join", ["procedure": "baton.echo", "input": ["all": .array((0..<n).map { ["$from": .string("n\($0)"), "select": "/i"] })]]))
        return try GraphDecoder().decode(["nodes": .object(JSONObject(nodes))])
    }

    @Test func startSendsOnlyAWindowAndEachEndReleasesOne() throws {
        var h = Harness(try Self.fanOut(10))
        h.state.dispatchWindow = 3
        var out = h.start().dispatches
        #expect(out.map(\.key) == ["n0", "n1", "n2"])
        #expect(h.state.nodes["n3"]?.status == .pending)
        var finished: [String] = []
        while let task = out.first {
            out.removeFirst()
            let next = h.succeed(task.key, task.input).dispatches
            finished.append(task.key)
            #expect(next.count <= 1, "one task ended, so at most one goes out")
            out += next
            let outstanding = h.state.nodes.values.filter { $0.status == .queued || $0.status == .running }.count
            #expect(outstanding <= 3)
        }
        #expect(finished == (0..<10).map { "n\($0)" } + ["join"])
        #expect(h.state.status == .succeeded)
        #expect(h.state.nodes["join"]?.output == ["all": .array((0..<10).map { .int(Int64($0)) })])
    }

    /// Issue 31: one big output injected into many nodes. The window counts the bytes of the inputs
    /// out as well: a slice at a time goes out (one alone when its input is over the bound), so the
    /// coordinator never builds, holds and publishes them all at once.
    @Test func theWindowAlsoBoundsTheBytesOfTheInputsOut() throws {
        let big = String(repeating: "x", count: 1_000)
        var nodes: [(key: String, value: JSON)] = [("big", ["procedure": "baton.echo", "input": ["s": .string(big)]])]
        for i in 0..<10 { nodes.append(("inject\(i)", ["procedure": "baton.echo", "input": ["copy": ["$from": "big"], "i": .int(Int64(i))]])) }
        var h = Harness(try GraphDecoder().decode(["nodes": .object(JSONObject(nodes))]))
        h.state.dispatchWindowBytes = 2_500  // two inputs of about 1 KB each, not three
        var out = h.start().dispatches
        #expect(out.map(\.key) == ["big"])
        out = h.succeed("big", out[0].input).dispatches
        #expect(out.count == 3, "the third takes the bytes out past the bound; the next waits: \(out.map(\.key))")
        var finished = 1
        while let task = out.first {
            out.removeFirst()
            out += h.succeed(task.key, task.input).dispatches
            finished += 1
            let queued = h.state.nodes.values.filter { $0.status == .queued || $0.status == .running }.count
            #expect(queued <= 3)
        }
        #expect(finished == 11 && h.state.status == .succeeded)

        // An input over the bound alone still goes out, alone.
        var alone = Harness(try GraphDecoder().decode(["nodes": .object(JSONObject(nodes))]))
        alone.state.dispatchWindowBytes = 100
        let first = alone.start().dispatches
        #expect(alone.succeed("big", first[0].input).dispatches.count == 1)
    }

    @Test func heldNodesGoOutHighestPriorityFirst() throws {
        var h = Harness(try Self.fanOut(6, priorities: [4: 9, 5: 5]))
        h.state.dispatchWindow = 1
        let first = h.start().dispatches.map(\.key)
        #expect(first == ["n0"])
        let second = h.succeed("n0", ["i": 0]).dispatches.map(\.key)
        let third = h.succeed(second[0], ["i": 4]).dispatches.map(\.key)
        #expect(second == ["n4"])
        #expect(third == ["n5"])
    }

    @Test func aCancelledRunCancelsHeldNodes() throws {
        var h = Harness(try Self.fanOut(5))
        h.state.dispatchWindow = 2
        h.start()
        h.send(.cancel(reason: "stop"))
        #expect(h.state.status == .cancelled)
        #expect(h.state.nodes.values.allSatisfy { $0.status == .cancelled })
        #expect(h.succeed("n0", ["i": 0]).dispatches.isEmpty)
    }

    @Test func aResumedRunHoldsBackAgain() throws {
        var h = Harness(try Self.fanOut(8))
        h.state.dispatchWindow = 2
        h.start()
        // Stored state: n0 and n1 queued, the rest pending; a new coordinator loads it.
        var resumed = RunState(runID: "run-1", graph: h.state.graph, status: .running, nodes: h.state.nodes)
        resumed.dispatchWindow = 2
        let again = resumed.handle(.start)
        let keys = again.compactMap { if case let .dispatch(t) = $0 { return t.key } else { return nil } }
        #expect(keys == ["n0", "n1"], "only the queued tasks go out again; the window is full")
    }

    /// Every example ends the same with a window of one as with the default: nothing waits forever
    /// (groups, maps, spawned graphs, mutexes, retries and conditions included).
    @Test(arguments: [
        "arithmetic.json", "cache.json", "concurrency.json", "conditions.json", "failing-branch.json", "fib.json",
        "group.json", "map-collect.json", "map.json", "mutex.json", "repeat-until.json", "retry-backoff.json",
        "run-input.json", "sleepy-fan-out.json", "word-count.json", "delay.json", "timeout.json", "progress.json",
    ])
    func examplesEndTheSameWithAWindowOfOne(_ name: String) async throws {
        let registry = ProcedureRegistry.demo
        let graph = try GraphDecoder(knownProcedures: Set(registry.names)).decode(try ExampleGraphTests.load(name))
        func run(_ window: Int) async -> RunState {
            var engine = LocalEngine(registry: registry)
            engine.clock = TestClock()
            engine.randomSeed = 7
            engine.dispatchWindow = window
            return await engine.run(graph, runID: "run-w")
        }
        let wide = await run(RunState.defaultDispatchWindow)
        let narrow = await run(1)
        #expect(narrow.status == wide.status)
        #expect(narrow.status.isTerminal)
        for key in wide.graph.order {
            #expect(narrow.nodes[key]?.status == wide.nodes[key]?.status, "\(name): \(key)")
            #expect(narrow.nodes[key]?.output == wide.nodes[key]?.output, "\(name): \(key)")
        }
    }
}
