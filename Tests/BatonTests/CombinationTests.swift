import Baton
import BatonTesting
import Foundation
import Testing

@Suite("RunState: policies together")
struct CombinationTests {
    // MARK: - Named by the issue

    static let retriedWithWhen = #"""
        {"nodes": {
          "a": {"procedure": "p", "retry": {"attempts": 3, "wait": {"exponential": {"initial": "2s", "max": "1m"}}}},
          "b": {"procedure": "p", "input": {"$from": "a", "select": "/value"}, "when": {"$from": "a", "select": "/ok"}},
          "c": {"procedure": "p", "input": {"$from": "b"}}}}
        """#

    @Test("a retried node whose dependent has when", arguments: [true, false])
    func retriedNodeWithWhenDependent(_ ok: Bool) throws {
        var h = Harness(try graph(Self.retriedWithWhen))
        h.start()
        h.fail("a", "flaky", permanent: false)
        // The dependent is not decided while a waits to be retried.
        #expect(h.state.nodes["b"]?.status == .pending)
        #expect(h.dueIn("a") == 2)
        h.advance(2)
        h.fail("a", "flaky", permanent: false)
        #expect(h.state.nodes["b"]?.status == .pending)
        #expect(h.dueIn("a") == 4)
        h.advance(4)
        #expect(h.state.nodes["a"]?.attempt == 3)
        let out = h.succeed("a", ["ok": .bool(ok), "value": 42])
        if ok {
            #expect(out.dispatches.map(\.key) == ["b"])
            #expect(out.dispatches.first?.input == 42)
            #expect(out.dispatches.first?.attempt == 1)
            h.succeed("b", "B")
            h.succeed("c", "C")
        } else {
            #expect(out.dispatches.isEmpty)
            #expect(h.state.nodes["b"]?.status == .skipped)
            #expect(h.state.nodes["b"]?.error == "when is false, not true")
            #expect(h.state.nodes["c"]?.status == .skipped)
        }
        #expect(h.state.status == .succeeded)
    }

    @Test func aRetriedNodeThatFinallyFailsCancelsItsWhenDependent() throws {
        var h = Harness(try graph(Self.retriedWithWhen))
        h.start()
        for delay in [2.0, 4.0] {
            h.fail("a", "flaky", permanent: false)
            h.advance(delay)
        }
        h.fail("a", "gave up", permanent: false)
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.nodes["b"]?.error == "dependency 'a' failed")
        #expect(h.state.error == "node 'a' failed: gave up")
    }

    @Test func cancellingARunWithNodesWaitingForRetry() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "w1": {"procedure": "p", "retry": {"attempts": 5, "wait": {"constant": "30s"}}},
              "w2": {"procedure": "p", "retry": {"attempts": 5, "wait": {"constant": "1m"}}},
              "r": {"procedure": "p"},
              "next": {"procedure": "p", "after": ["w1", "w2", "r"]}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("w1", "x", permanent: false)
        h.fail("w2", "y", permanent: false)
        h.started("r")
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(30))
        let out = h.send(.cancel(reason: "shutting down"))
        #expect(out.cancelled == [TaskRef(key: "r", attempt: 1)], "waiting nodes hold no worker: nothing to signal for them")
        #expect(h.state.nodes["w1"]?.status == .cancelled)
        #expect(h.state.nodes["w2"]?.status == .cancelled)
        #expect(h.state.nodes["w1"]?.dueAt == nil)
        #expect(h.state.nodes["w1"]?.waitingFor == nil)
        #expect(h.state.nodes["next"]?.status == .cancelled)
        #expect(h.state.nextWakeUp == nil)
        #expect(out.runStatuses == [.cancelled])
        // Their back-off times pass: nothing is dispatched.
        #expect(h.advance(60).isEmpty)
        #expect(h.log.dispatches.filter { $0.key == "w1" || $0.key == "w2" }.map(\.attempt) == [1, 1])

        // Retrying the cancelled run gives them fresh attempts with higher numbers.
        let again = h.send(.retry(from: nil))
        #expect(Set(again.dispatches.map(\.key)) == ["w1", "w2", "r"])
        #expect(again.dispatches.allSatisfy { $0.attempt == 2 })
        #expect(h.state.nodes["w1"]?.failures == 0)
    }

    @Test func aTimeoutDoesNotFireDuringARetryBackOff() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "timeout": "10s", "retry": {"attempts": 3, "wait": {"constant": "100s"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.started("a")
        let started = h.now
        h.advance(3)
        h.fail("a", "quick failure", permanent: false)
        #expect(h.state.nodes["a"]?.deadline == nil, "a waiting node has no deadline")
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(100))
        // Well past the first attempt's deadline (started + 12s): nothing times out while waiting.
        #expect(started.addingTimeInterval(12) < h.now.addingTimeInterval(50))
        let mid = h.advance(50)
        #expect(mid.isEmpty)
        #expect(mid.events("timed_out").isEmpty)
        #expect(h.state.nodes["a"]?.status == .waiting)
        // Re-queued: still no deadline until the worker starts it.
        #expect(h.advance(50).dispatches.map(\.attempt) == [2])
        #expect(h.state.nodes["a"]?.deadline == nil)
        #expect(h.advance(30).isEmpty)
        h.started("a")
        let deadline = h.now.addingTimeInterval(12)
        #expect(h.state.nodes["a"]?.deadline == deadline)
        #expect(h.advance(to: deadline.addingTimeInterval(-0.01)).isEmpty)
        let out = h.advance(to: deadline)
        #expect(out.cancelled == [TaskRef(key: "a", attempt: 2)])
        #expect(out.events("timed_out").first?.detail["attempt"] == 2)
        #expect(h.state.nodes["a"]?.status == .waiting)
        #expect(h.state.nodes["a"]?.failures == 2)
        #expect(h.dueIn("a") == 100)
    }

    @Test func aCancelRacingAResultDuringRetries() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "retry": {"attempts": 3, "wait": {"constant": "5s"}}},
                       "b": {"procedure": "p", "input": {"$from": "a"}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("a", "once", permanent: false)
        h.advance(5)
        h.started("a")
        let cancel = h.send(.cancel(reason: "stop"))
        #expect(cancel.cancelled == [TaskRef(key: "a", attempt: 2)])
        // The worker's success for attempt 2 was already on its way.
        #expect(h.succeed("a", "done", attempt: 2).isEmpty)
        #expect(h.fail("a", "cancelled while running", permanent: false, attempt: 2).isEmpty)
        #expect(h.state.status == .cancelled)
        #expect(h.state.nodes["a"]?.status == .cancelled)
        #expect(h.state.nodes["a"]?.output == nil)
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(!h.log.dispatches.contains { $0.key == "b" })
    }

    // MARK: - Durable timers

    @Test func aRetryTimerSurvivesARestart() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "input": {"k": 1}, "retry": {"attempts": 3, "wait": {"constant": "45s"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("a", "flaky", permanent: false)
        let due = h.now.addingTimeInterval(45)

        // What the store keeps for a: its columns, and the bookkeeping as JSON.
        let a = try #require(h.state.nodes["a"])
        var stored = NodeState(status: a.status, attempt: a.attempt, input: a.input, output: a.output, error: a.error, worker: a.worker)
        #expect(stored.dueAt == nil)
        stored.restore(bookkeeping: try JSONParser.parse(a.bookkeeping.serialized()))
        #expect(stored == a)
        #expect(stored.dueAt == due)
        #expect(stored.waitingFor == .retry)
        #expect(stored.failures == 1)

        var resumed = Harness(state: RunState(runID: "run-1", graph: g, status: .running, nodes: ["a": stored]))
        resumed.now = h.now.addingTimeInterval(10)
        #expect(resumed.state.nextWakeUp == due)
        #expect(resumed.start().isEmpty, "a waiting node is not published")
        #expect(resumed.advance(to: due.addingTimeInterval(-1)).isEmpty)
        let fired = resumed.advance(to: due)
        #expect(
            fired.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "a", attempt: 2, procedure: "p", input: ["k": 1],
                    pool: "default", priority: 0)
            ])
        // The restored failure count still limits the attempts.
        resumed.fail("a", "again", permanent: false)
        resumed.advance(45)
        resumed.fail("a", "last", permanent: false)
        #expect(resumed.state.nodes["a"]?.status == .failed)
        #expect(resumed.state.nodes["a"]?.attempt == 3)
    }

    @Test func bookkeepingRoundTripsEveryField() throws {
        var n = NodeState(status: .running, attempt: 4)
        n.phase = .condition
        n.failures = 2
        n.runs = 3
        n.logged = 17
        n.dueAt = Date(timeIntervalSince1970: 1_700_000_000.25)
        n.waitingFor = .repeat
        n.deadline = Date(timeIntervalSince1970: 1_700_000_100.5)
        n.unstartedDeadLetters = 2
        let json = n.bookkeeping
        #expect(json["phase"] == "condition")
        #expect(json["failures"] == 2)
        #expect(json["runs"] == 3)
        #expect(json["logged"] == 17)
        #expect(json["due_at"]?.numberValue == 1_700_000_000.25)
        #expect(json["waiting_for"] == "repeat")
        #expect(json["deadline"]?.numberValue == 1_700_000_100.5)
        #expect(json["unstarted_dead_letters"] == 2)
        var back = NodeState(status: .running, attempt: 4)
        back.restore(bookkeeping: try JSONParser.parse(json.serialized()))
        #expect(back == n)

        // Restoring empty bookkeeping gives the defaults.
        var empty = n
        empty.restore(bookkeeping: [:])
        #expect(empty == NodeState(status: .running, attempt: 4))
        #expect(NodeState().bookkeeping == ["phase": "run", "failures": 0, "runs": 0, "logged": 0])
    }

    @Test func everyNodeChangeCarriesTheBookkeepingAfterIt() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 2, "wait": {"constant": "3s"}}}}}"#))
        h.start()
        h.fail("a", "x", permanent: false)
        h.advance(3)
        h.succeed("a", 1)
        let changes = h.log.compactMap { c -> NodeChange? in
            if case let .node(n) = c { return n }; return nil
        }
        #expect(changes.allSatisfy { $0.bookkeeping != nil })
        let waiting = try #require(changes.first { $0.status == .waiting })
        #expect(waiting.bookkeeping?["due_at"]?.numberValue == 1_000_003)
        #expect(waiting.bookkeeping?["failures"] == 1)
        #expect(changes.last?.bookkeeping?["due_at"] == nil)
    }

    // MARK: - More pairs

    @Test func aRetryAfterAConditionDoesNotAskTheConditionAgain() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "work", "retry": {"attempts": 2}, "condition": {"procedure": "check"}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.condition("a", .succeeded(true))
        h.fail("a", "flaky", permanent: false)
        let again = h.advance(0)
        #expect(again.dispatches.map(\.procedure) == ["work"])
        #expect(again.dispatches.map(\.phase) == [.run])
        #expect(again.dispatches.map(\.attempt) == [2])
        h.succeed("a", "ok")
        #expect(h.state.status == .succeeded)
        #expect(h.log.dispatches.map(\.procedure) == ["check", "work", "work"])
    }

    @Test func aFailedRunOfARepeatIsRetriedWithThePreviousOutput() throws {
        let g = try graph(
            #"""
            {"nodes": {"poll": {"procedure": "p", "input": {"q": 1},
                                "repeat": {"until": {"select": "/done", "equals": true}, "wait": {"constant": "10s"}, "max": 5},
                                "retry": {"attempts": 2, "wait": {"constant": "1s"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("poll", ["done": false, "page": 1])
        h.advance(10)
        h.fail("poll", "network", permanent: false)
        #expect(h.state.nodes["poll"]?.waitingFor == .retry)
        #expect(h.dueIn("poll") == 1)
        let retried = h.advance(1)
        #expect(retried.dispatches.first?.attempt == 3)
        #expect(retried.dispatches.first?.input == ["q": 1])
        #expect(retried.dispatches.first?.previousOutput == ["done": false, "page": 1])
        h.succeed("poll", ["done": true, "page": 2])
        #expect(h.state.nodes["poll"]?.status == .succeeded)
        #expect(h.state.nodes["poll"]?.runs == 2)
    }

    @Test func anIgnoredNodeThatTimesOut() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "timeout": "1s", "on_failure": "ignore"},
                       "b": {"procedure": "p", "input": {"got": {"$from": "a"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.started("a")
        let out = h.advance(3)
        #expect(out.cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(out.dispatches.first?.input == ["got": nil])
        h.succeed("b", 1)
        #expect(h.state.status == .succeeded)
    }

    @Test func aDelayAfterAWhenSkipIsSkippedAndADelayCanBeCancelled() throws {
        let g = try graph(
            #"""
            {"nodes": {"gate": {"procedure": "p", "when": false},
                       "d1": {"procedure": "baton.delay", "input": {"seconds": 5}, "after": ["gate"]},
                       "d2": {"procedure": "baton.delay", "input": {"seconds": 5}}}}
            """#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["d1"]?.status == .skipped)
        #expect(h.state.nodes["d2"]?.status == .waiting)
        let out = h.send(.cancel(reason: "no"))
        #expect(out.cancelled.isEmpty)
        #expect(h.state.nodes["d2"]?.status == .cancelled)
        #expect(h.advance(5).isEmpty)
    }

    @Test func severalTimersDueAtOneTickAllFire() throws {
        let g = try graph(
            #"""
            {"nodes": {"d": {"procedure": "baton.delay", "input": {"seconds": 5}},
                       "r": {"procedure": "p", "retry": {"attempts": 2, "wait": {"constant": "3s"}}},
                       "t": {"procedure": "p", "timeout": "1s"},
                       "zero": {"procedure": "baton.delay", "input": {"seconds": 0}, "after": ["d"]}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("r", "x", permanent: false)
        h.started("t")
        let out = h.advance(10)
        #expect(h.state.nodes["r"]?.status == .queued)
        #expect(h.state.nodes["t"]?.status == .failed)
        // d fired, and the zero-second delay after it fires in the same tick.
        #expect(h.state.nodes["d"]?.status == .succeeded)
        #expect(h.state.nodes["zero"]?.status == .succeeded)
        #expect(out.dispatches.map(\.key) == ["r"])
        #expect(out.cancelled == [TaskRef(key: "t", attempt: 1)])
    }

    // MARK: - In process, on the test kit's clock

    @Test func localEngineRetriesWithoutHoldingTheOnlySlot() async throws {
        var test = GraphTest(registry: .builtIn)
        test.maxConcurrency = 1
        let run = try await test.run(
            json: #"""
                {"nodes": {"f": {"procedure": "baton.fail", "input": {"message": "not yet", "succeed_on_attempt": 2},
                                 "retry": {"attempts": 2, "wait": {"constant": "1h"}}},
                           "e": {"procedure": "baton.echo", "input": "hi"}}}
                """#)
        try run.expectSucceeded().expectOutput(of: "f", equals: ["attempt": 2]).expectOutput(of: "e", equals: "hi")
        #expect(run.events.filter { $0.kind == "dispatched" }.map(\.node) == ["f", "e", "f"])
        // e finished while f waited for its retry, an hour later.
        let order = run.events.filter { ($0.node == "e" && $0.kind == "succeeded") || ($0.node == "f" && $0.kind == "queued") }
        #expect(order.map { "\($0.node!):\($0.change!.attempt)" } == ["f:1", "e:1", "f:2"])
        #expect(run.time(of: "succeeded", for: "e") == TestClock.defaultStart)
        #expect(run.events(of: "f").last { $0.kind == "queued" }?.at == TestClock.defaultStart.addingTimeInterval(3600))
    }

    struct Counter: Procedure {
        static let name = "test.count"
        func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON {
            let n = (context.previousOutput?["n"]?.intValue ?? 0) + 1
            return ["n": .int(Int64(n)), "done": .bool(n >= 3)]
        }
    }

    @Test func localEngineRepeatsWithThePreviousOutput() async throws {
        var registry = ProcedureRegistry.builtIn
        registry.register(Counter())
        let g = try graph(
            #"""
            {"nodes": {"c": {"procedure": "test.count", "repeat": {"until": {"select": "/done", "equals": true}, "max": 5}}}}
            """#)
        let state = await LocalEngine(registry: registry).run(g)
        #expect(state.status == .succeeded)
        #expect(state.nodes["c"]?.output == ["n": 3, "done": true])
        #expect(state.nodes["c"]?.attempt == 3)
    }
}
