import Baton
import Foundation
import Testing

@Suite("RunState: worker leases")
struct LeaseTests {
    static let text = #"""
        {"nodes": {
          "a": {"procedure": "p", "input": {"n": 1}, "retry": {"attempts": 1}},
          "b": {"procedure": "p", "input": {"n": 2}},
          "c": {"procedure": "p", "input": {"from-a": {"$from": "a"}}}}}
        """#

    @Test func aLostWorkersRunningAttemptsGoOutAgainAsNewAttempts() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.send(.started(key: "a", attempt: 1, worker: "w1", at: h.now))
        h.send(.started(key: "b", attempt: 1, worker: "w2", at: h.now))

        let lost = h.send(.workerLost(worker: "w1"))
        #expect(lost.dispatches.map(\.key) == ["a"])
        #expect(lost.dispatches.first?.attempt == 2)
        #expect(lost.dispatches.first?.input == ["n": 1])
        #expect(lost.cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(lost.events.map(\.kind) == ["lease_expired"])
        #expect(h.state.nodes["a"]?.status == .queued)
        #expect(h.state.nodes["b"]?.status == .running)  // w2 is fine

        // The lost worker's late result is stale; the new attempt's counts. No retry was used up:
        // with "attempts": 1, a failure now would end the node, but the reclaim did not.
        h.succeed("a", ["late": true], attempt: 1)
        #expect(h.state.nodes["a"]?.status == .queued)
        h.succeed("a", ["fresh": true], attempt: 2)
        #expect(h.state.nodes["a"]?.output == ["fresh": true])
        #expect(h.state.nodes["c"]?.input == ["from-a": ["fresh": true]])
    }

    @Test func anAttemptDeliveredAgainToAnotherWorkerIsRecordedAsSuchAndIsTheNewWorkers() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.send(.started(key: "a", attempt: 1, worker: "w1", at: h.now))
        // w1 died; the broker gave attempt 1 to w2, which says it started.
        let again = h.send(.started(key: "a", attempt: 1, worker: "w2", at: h.now))
        #expect(again.events.map(\.kind) == ["redelivered"])
        #expect(again.events.first?.detail["worker"] == "w1")
        #expect(again.events.first?.detail["to"] == "w2")
        #expect(again.nodeChanges.map(\.eventKind) == [.started])
        #expect(again.nodeChanges.first?.worker == "w2")
        #expect(h.state.nodes["a"]?.worker == "w2")
        // w1's lease running out takes nothing from w2: no re-dispatch, no lease_expired.
        #expect(h.send(.workerLost(worker: "w1")).isEmpty)
        // A second "started" from w2 (a duplicate report) says nothing new.
        #expect(h.send(.started(key: "a", attempt: 1, worker: "w2", at: h.now)).isEmpty)
        h.succeed("a", ["done": true], attempt: 1, worker: "w2")
        #expect(h.state.nodes["a"]?.status == .succeeded && h.state.nodes["a"]?.worker == "w2")
    }

    @Test func aQuickAttemptDeliveredAgainIsRecordedFromItsResult() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.send(.started(key: "a", attempt: 1, worker: "w1", at: h.now))
        // w2 ran it too quickly to send "started": the result says where it ran.
        let result = h.succeed("a", ["done": true], attempt: 1, worker: "w2")
        #expect(result.events.filter { $0.key == "a" }.map(\.kind) == ["redelivered"])
        #expect(result.changes(for: "a").map(\.eventKind) == [.started, .succeeded])
        #expect(result.changes(for: "a").map(\.worker) == ["w2", "w2"])
        #expect(h.state.nodes["a"]?.worker == "w2")
    }

    @Test func anUnknownOrIdleWorkerChangesNothing() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        #expect(h.send(.workerLost(worker: "nobody")).isEmpty)
        // Queued attempts have no worker yet: nothing to reclaim.
        #expect(h.state.nodes["a"]?.status == .queued && h.state.nodes["b"]?.status == .queued)
        #expect(h.state.nodes["c"]?.status == .pending)
    }
}

@Suite("RunState: worker leases and conditions")
struct LeaseConditionTests {
    @Test func aLostWorkersConditionGoesOutAgainAsANewConditionAttempt() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"a": {"procedure": "p", "condition": {"procedure": "check", "input": {"x": 1}}}}}
                """#))
        let first = h.start()
        #expect(first.dispatches.map(\.phase) == [.condition])
        h.send(.started(key: "a", attempt: 1, worker: "w1", at: h.now))
        let lost = h.send(.workerLost(worker: "w1"))
        #expect(lost.dispatches.map { "\($0.phase) \($0.attempt) \($0.procedure)" } == ["condition 2 check"])
        #expect(lost.dispatches.first?.input == ["x": 1])
        #expect(lost.cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(h.state.nodes["a"]?.status == .queued)
        #expect(h.state.nodes["a"]?.worker == nil)
        // The new condition attempt decides the node as usual.
        h.send(.result(NodeResult(key: "a", attempt: 2, phase: .condition, outcome: .succeeded(true), worker: "w2")))
        #expect(h.state.nodes["a"]?.phase == .run)
        #expect(h.state.nodes["a"]?.status == .queued)
    }
}
