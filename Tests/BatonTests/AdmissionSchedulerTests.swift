import Foundation
import Testing

@testable import Baton

extension Array where Element == SchedulerCommand {
    var acquires: [AdmissionRequest] {
        compactMap {
            if case let .acquire(r) = $0 { return r }; return nil
        }
    }
    var releases: [String] {
        compactMap {
            if case let .release(key) = $0 { return key }; return nil
        }
    }
    var cacheStores: [(key: String, lookup: CacheLookup, output: JSON)] {
        compactMap {
            if case let .cacheStore(k, l, o) = $0 { return (k, l, o) }; return nil
        }
    }
}

@Suite("RunState: mutex, concurrency and cache admission")
struct AdmissionSchedulerTests {
    static let one = #"{"nodes": {"a": {"procedure": "p", "mutex": ["db", "files"]}, "b": {"procedure": "p", "input": {"$from": "a"}}}}"#

    /// Starts `a` of `graphText` and admits it: it is queued, holding its claims.
    static func admittedHarness(_ graphText: String = one) throws -> Harness {
        var h = Harness(try graph(graphText))
        h.start()
        h.send(.admitted(key: "a"))
        return h
    }

    @Test func aNodeWithAMutexWaitsForAdmissionBeforeItIsQueued() throws {
        var h = Harness(try graph(Self.one))
        let out = h.start()
        #expect(out.dispatches.isEmpty)
        #expect(out.acquires == [AdmissionRequest(key: "a", claims: [.mutex("db"), .mutex("files")])])
        #expect(h.state.nodes["a"]?.status == .waiting)
        #expect(h.state.nodes["a"]?.waitingFor == .admission)
        #expect(h.state.nodes["a"]?.attempt == 0)
        #expect(out.changes(for: "a").map(\.event) == [.awaitingAdmission])

        let admitted = h.send(.admitted(key: "a"))
        #expect(admitted.dispatches.map(\.key) == ["a"])
        #expect(admitted.dispatches.first?.attempt == 1)
        #expect(admitted.events.map(\.kind) == ["admitted"])
        #expect(h.state.nodes["a"]?.admission == .held)
        #expect(h.send(.admitted(key: "a")).isEmpty, "a duplicate grant changes nothing")
    }

    @Test func successReleases() throws {
        var h = try Self.admittedHarness()
        let out = h.succeed("a", 1)
        #expect(out.releases == ["a"])
        #expect(h.state.nodes["a"]?.admission == AdmissionHold.none)
        #expect(out.dispatches.map(\.key) == ["b"], "b holds nothing and goes at once")
    }

    @Test func failureReleases() throws {
        var h = try Self.admittedHarness()
        #expect(h.fail("a", "boom").releases == ["a"])
    }

    @Test func aRetryBackOffReleasesAndTheRetryAsksAgain() throws {
        var h = try Self.admittedHarness(
            #"{"nodes": {"a": {"procedure": "p", "mutex": ["db"], "retry": {"attempts": 2, "wait": {"constant": "5s"}}}}}"#)
        let failed = h.fail("a", "flaky", permanent: false)
        #expect(failed.releases == ["a"])
        #expect(h.state.nodes["a"]?.waitingFor == .retry)
        let again = h.advance(5)
        #expect(again.acquires.map(\.key) == ["a"])
        #expect(again.dispatches.isEmpty)
        let queued = h.send(.admitted(key: "a"))
        #expect(queued.dispatches.first?.attempt == 2)
    }

    @Test func aTimeoutReleases() throws {
        var h = try Self.admittedHarness(#"{"nodes": {"a": {"procedure": "p", "mutex": ["db"], "timeout": "1s"}}}"#)
        h.send(.started(key: "a", attempt: 1, worker: "w", at: h.now))
        let out = h.advance(10)
        #expect(out.cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(out.releases == ["a"])
        #expect(h.state.nodes["a"]?.status == .failed)
    }

    @Test func cancellingReleasesHoldersAndWithdrawsWaiters() throws {
        var h = Harness(
            try graph(#"{"nodes": {"a": {"procedure": "p", "mutex": ["db"]}, "b": {"procedure": "p", "mutex": ["db"]}}}"#))
        h.start()
        h.send(.admitted(key: "a"))  // a holds, b waits
        let out = h.send(.cancel(reason: "stop"))
        #expect(Set(out.releases) == ["a", "b"])
        #expect(h.state.status == .cancelled)
    }

    @Test func aLostWorkerReleasesAndTheNewAttemptAsksAgain() throws {
        var h = try Self.admittedHarness()
        h.send(.started(key: "a", attempt: 1, worker: "w1", at: h.now))
        let out = h.send(.workerLost(worker: "w1"))
        #expect(out.releases == ["a"])
        #expect(out.acquires.map(\.key) == ["a"])
        #expect(out.dispatches.isEmpty, "not queued again before it is admitted again")
        let releaseIndex = out.firstIndex {
            if case .release = $0 { return true }; return false
        }!
        let acquireIndex = out.firstIndex {
            if case .acquire = $0 { return true }; return false
        }!
        #expect(releaseIndex < acquireIndex, "released first, so the table puts it at the back of the line")
        #expect(h.send(.admitted(key: "a")).dispatches.first?.attempt == 2)
    }

    @Test func aDeadLetterReleases() throws {
        var h = try Self.admittedHarness()
        h.send(.started(key: "a", attempt: 1, worker: "w1", at: h.now))
        #expect(h.send(.deadLettered(key: "a", attempt: 1, reason: "poison")).releases == ["a"])
    }

    @Test func aDeadLetteredAttemptThatNeverStartedReleasesAndAsksAgain() throws {
        var h = try Self.admittedHarness()
        let out = h.send(.deadLettered(key: "a", attempt: 1, reason: "held beside a poison"))
        #expect(out.releases == ["a"])
        #expect(out.acquires.map(\.key) == ["a"])
        #expect(out.dispatches.isEmpty, "not queued again before it is admitted again")
        #expect(h.send(.admitted(key: "a")).dispatches.first?.attempt == 2)
    }

    @Test func aRepeatWaitReleases() throws {
        var h = try Self.admittedHarness(
            #"{"nodes": {"a": {"procedure": "p", "mutex": ["db"], "repeat": {"until": {"select": "/done", "equals": true}, "wait": {"constant": "1s"}}}}}"#
        )
        #expect(h.succeed("a", ["done": false]).releases == ["a"])
        #expect(h.advance(1).acquires.map(\.key) == ["a"])
    }

    @Test func aGrantNobodyWaitsForIsGivenBack() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        h.start()
        #expect(h.send(.admitted(key: "a")).releases == ["a"])
    }

    @Test func theConcurrencyKeyIsEvaluatedFromItsReference() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"c": {"procedure": "p"},
                 "a": {"procedure": "p", "concurrency": {"key": {"$from": "c", "select": "/customer"}, "limit": 3}},
                 "n": {"procedure": "p", "concurrency": {"key": {"$from": "c", "select": "/n"}, "limit": 1}},
                 "bad": {"procedure": "p", "concurrency": {"key": {"$from": "c", "select": "/list"}, "limit": 1}}}}
                """#))
        #expect(h.state.graph.nodes["a"]?.dependencies == ["c"], "a key reference is a dependency")
        h.start()
        let out = h.succeed("c", ["customer": "acme", "n": 7, "list": [1]])
        #expect(Set(out.acquires.flatMap(\.claims)) == [.concurrency("acme", limit: 3), .concurrency("7", limit: 1)])
        #expect(h.state.nodes["bad"]?.status == .failed)
        #expect(h.state.nodes["bad"]?.error == "concurrency/key must evaluate to a string, number or boolean, found array")
    }

    @Test func aCacheHitSucceedsWithoutRunning() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "input": {"y": 2.0, "x": 1}, "cache": {"ttl": "1h"}}}}"#))
        let out = h.start()
        let lookup = CacheLookup(procedure: "p", input: #"{"x":1,"y":2}"#, ttl: 3600)
        #expect(out.acquires == [AdmissionRequest(key: "a", claims: [lookup.claim], cache: lookup)])
        let hit = h.send(.cached(key: "a", hit: CacheHit(output: 3, sourceRun: "run-0", sourceNode: "src")))
        #expect(hit.events.map(\.kind) == ["cached"])
        #expect(hit.events.first?.detail == ["source_run": "run-0", "source_node": "src"])
        #expect(hit.releases == ["a"])
        #expect(hit.dispatches.isEmpty)
        #expect(h.state.nodes["a"]?.status == .succeeded)
        #expect(h.state.nodes["a"]?.attempt == 0)
        #expect(h.state.nodes["a"]?.output == 3)
        #expect(h.state.status == .succeeded)
    }

    @Test func aCacheMissRunsAndStoresItsOutput() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "input": {"x": 1}, "cache": {"ttl": "2m"}}}}"#))
        h.start()
        h.send(.admitted(key: "a"))
        let out = h.succeed("a", ["sum": 1])
        #expect(out.cacheStores.map(\.key) == ["a"])
        #expect(out.cacheStores.first?.lookup == CacheLookup(procedure: "p", input: #"{"x":1}"#, ttl: 120))
        #expect(out.cacheStores.first?.output == ["sum": 1])
        #expect(out.releases == ["a"])
    }

    @Test func waitingForAdmissionSurvivesARestart() throws {
        var h = Harness(try graph(Self.one))
        h.start()
        var stored = h.state.nodes["a"]!
        var restored = NodeState(status: stored.status, attempt: stored.attempt, input: stored.input)
        restored.restore(bookkeeping: stored.bookkeeping)
        #expect(restored.waitingFor == .admission)
        #expect(restored.admission == .requested)
        var again = Harness(state: RunState(runID: "run-1", graph: h.state.graph, status: .running, nodes: ["a": restored]))
        #expect(again.start().acquires.isEmpty, "the request is stored in baton.holds; it is not made twice")
        #expect(again.send(.admitted(key: "a")).dispatches.map(\.key) == ["a"])
        stored = again.state.nodes["a"]!
        #expect(stored.bookkeeping["admission"] == "held")
    }

    @Test func afterAConditionTheAttemptIsNotCountedTwice() throws {
        var h = Harness(
            try graph(#"{"nodes": {"a": {"procedure": "p", "mutex": ["db"], "condition": {"procedure": "check"}}}}"#))
        h.start()
        let out = h.send(.result(NodeResult(key: "a", attempt: 1, phase: .condition, outcome: .succeeded(true), worker: "w")))
        #expect(out.acquires.map(\.key) == ["a"])
        #expect(h.send(.admitted(key: "a")).dispatches.first?.attempt == 1)
    }
}

@Suite("RunState: admission with groups and spawning")
struct AdmissionChildrenTests {
    @Test func aChildOfAGroupAsksWithItsFullKeyAndAPrunedChildReleases() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"g": {"group": {"nodes": {"c": {"procedure": "p", "mutex": ["db"]}}}, "retry": {"attempts": 2}, "timeout": "1s"}}}
                """#))
        let out = h.start()
        #expect(out.acquires.map(\.key) == ["g/c"])
        h.send(.admitted(key: "g/c"))
        #expect(h.state.nodes["g/c"]?.status == .queued)
        let timedOut = h.advance(5)  // the group's timeout fails it; its retry prunes and restarts the children
        #expect(timedOut.releases.contains("g/c"))
    }

    @Test func aSpawningNodeReleasesWhenItSpawnsSoAChildMayTakeTheSameMutex() throws {
        var h = Harness(try graph(#"{"nodes": {"s": {"procedure": "p", "mutex": ["db"]}}}"#))
        h.start()
        h.send(.admitted(key: "s"))
        let fragment = try json(#"{"nodes": {"c": {"procedure": "p", "mutex": ["db"]}}, "output": {"$from": "c"}}"#)
        let out = h.send(.result(NodeResult(key: "s", attempt: 1, outcome: .spawned(fragment), worker: "w")))
        #expect(out.releases == ["s"])
        #expect(out.acquires.map(\.key) == ["s/c"])
        let releaseIndex = out.firstIndex {
            if case .release = $0 { return true }; return false
        }!
        let acquireIndex = out.firstIndex {
            if case .acquire = $0 { return true }; return false
        }!
        #expect(releaseIndex < acquireIndex)
    }

    @Test func aMutexOnAGroupOrMapNodeIsRefused() {
        let found = problems(#"{"nodes": {"g": {"group": {"nodes": {"c": {"procedure": "p"}}}, "mutex": ["db"]}}}"#)
        #expect(found.map(\.description) == ["node 'g', field 'mutex': cannot be used on a group node (set it on its children)"])
    }
}
