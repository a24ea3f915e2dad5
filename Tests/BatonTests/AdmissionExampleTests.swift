import Baton
import BatonDemo
import BatonTesting
import Foundation
import Testing

/// examples/mutex.json, concurrency.json and cache.json with `LocalEngine` (as `baton run --local`).
@Suite("examples/: mutex, concurrency, cache")
struct AdmissionExampleTests {
    /// Runs an example, and returns its end state and the most nodes of `keys` ever queued or running at once.
    static func run(_ name: String, counting keys: Set<String>) async throws -> (RunState, Int) {
        let registry = ProcedureRegistry.demo
        let graph = try GraphDecoder(knownProcedures: Set(registry.names)).decode(try ExampleGraphTests.load(name))
        let commands = Collected<SchedulerCommand>()
        let state = await LocalEngine(registry: registry).run(graph) { commands.append($0) }
        var active = Set<String>()
        var most = 0
        for case let .node(change) in commands.all where keys.contains(change.key) {
            if change.status == .queued || change.status == .running { active.insert(change.key) } else { active.remove(change.key) }
            most = max(most, active.count)
        }
        return (state, most)
    }

    @Test func mutexRunsTheMigrationsOneAtATime() async throws {
        let (state, most) = try await Self.run("mutex.json", counting: ["migrate-a", "migrate-b"])
        #expect(state.status == .succeeded)
        #expect(most == 1)
    }

    @Test func concurrencyAllowsOnePerCustomer() async throws {
        let (state, acme) = try await Self.run("concurrency.json", counting: ["import-a1", "import-a2"])
        #expect(state.status == .succeeded)
        #expect(acme == 1)
        let (_, all) = try await Self.run("concurrency.json", counting: ["import-a1", "import-a2", "import-b"])
        #expect(all == 2, "another customer runs beside")
    }

    @Test func cacheRunsOnceAndTheOthersTakeItsOutput() async throws {
        let (state, _) = try await Self.run("cache.json", counting: [])
        #expect(state.status == .succeeded)
        let ran = ["first", "twin", "later"].filter { state.nodes[$0]?.attempt == 1 }
        #expect(ran.count == 1, "one of the identical nodes ran: \(ran)")
        for key in ["first", "twin", "later"] {
            #expect(state.nodes[key]?.output == 6)
            #expect(state.nodes[key]?.status == .succeeded)
        }
        #expect(state.nodes["later"]?.attempt == 0)
    }
}

@Suite("LocalEngine: cache waiters when the one in flight fails")
struct CacheFailureTests {
    @Test func waitersRunThemselvesWhenTheNodeInFlightFails() async throws {
        let g = try graph(
            #"""
            {"nodes": {
              "x": {"procedure": "baton.fail", "input": {"message": "no"}, "cache": {"ttl": "1h"}, "on_failure": "ignore"},
              "y": {"procedure": "baton.fail", "input": {"message": "no"}, "cache": {"ttl": "1h"}, "on_failure": "ignore"}}}
            """#)
        let state = await LocalEngine(registry: .demo).run(g)
        #expect(state.status == .succeeded)
        #expect(state.nodes["x"]?.attempt == 1 && state.nodes["y"]?.attempt == 1, "a failure is not cached: the waiter ran itself")
        #expect(state.nodes["x"]?.status == .failed && state.nodes["y"]?.status == .failed)
    }
}

@Suite("LocalEngine: long lines of waiters")
struct AdmissionLongLineTests {
    @Test func threeThousandIdenticalCachedNodesRunOnceWithoutNesting() async throws {
        var members: [(key: String, value: JSON)] = []
        for i in 0..<3_000 { members.append(("n\(i)", ["procedure": "baton.echo", "input": ["x": 1], "cache": ["ttl": "1h"]])) }
        let g = try GraphDecoder().decode(["nodes": .object(JSONObject(members))])
        let state = await LocalEngine(registry: .demo).run(g)
        #expect(state.status == .succeeded)
        #expect(state.nodes.values.map(\.attempt).reduce(0, +) == 1)
    }
}

@Suite("BatonTesting: mutex and cache on virtual time")
struct AdmissionTestKitTests {
    @Test(.timeLimit(.minutes(1)))
    func anEntryOlderThanTheTtlIsAMissAndMutexHoldersFollowOneAnother() async throws {
        let run = try await GraphTest().run(
            json: #"""
                {"nodes": {
                  "first": {"procedure": "baton.echo", "input": {"v": 1}, "cache": {"ttl": "1h"}},
                  "wait": {"procedure": "baton.delay", "input": {"seconds": 7200}, "after": ["first"]},
                  "soon": {"procedure": "baton.echo", "input": {"v": 1.0}, "cache": {"ttl": "1h"}, "after": ["first"]},
                  "late": {"procedure": "baton.echo", "input": {"v": 1}, "cache": {"ttl": "1h"}, "after": ["wait"]},
                  "m1": {"procedure": "baton.sleep", "input": {"seconds": 0.05}, "mutex": ["db"]},
                  "m2": {"procedure": "baton.sleep", "input": {"seconds": 0.05}, "mutex": ["db"]}}}
                """#)
        try run.expectSucceeded()
        #expect(try run.attempts(of: "first") == 1)
        #expect(try run.attempts(of: "soon") == 0, "within the ttl: cached")
        #expect(run.events(of: "soon").map(\.kind).contains("cached"))
        #expect(try run.attempts(of: "late") == 1, "two hours later the entry is past its ttl: the node runs")
        // In the order the run emitted them: one holder ends before the other is queued.
        let kinds = run.events.filter { ["m1", "m2"].contains($0.node) && ["queued", "succeeded"].contains($0.kind) }.map(\.kind)
        #expect(kinds == ["queued", "succeeded", "queued", "succeeded"])
    }
}
