import Baton
import Testing

@Suite("RunState: recovery from stored state")
struct SchedulerRecoveryTests {
    static let text = #"""
        {"nodes": {
          "a": {"procedure": "p"},
          "b": {"procedure": "step", "input": {"$from": "a", "select": "/v"}, "pool": "gpu", "priority": 4},
          "c": {"procedure": "p", "input": {"c": true}},
          "d": {"procedure": "p", "input": {"$from": "b"}, "after": ["c"]},
          "e": {"procedure": "p", "input": {"$from": "a"}}}}
        """#

    @Test func queuedNodesTheBrokerMayNotHaveAreDispatchedAgainWithTheSameAttemptAndInput() throws {
        let g = try graph(Self.text)
        let stored: [String: NodeState] = [
            "a": NodeState(status: .succeeded, attempt: 1, input: [:], output: ["v": 10], worker: "w0"),
            "b": NodeState(status: .running, attempt: 3, input: 10, worker: "w1"),
            "c": NodeState(status: .queued, attempt: 1, input: ["c": true]),
            "e": NodeState(status: .succeeded, attempt: 2, input: ["v": 10], output: "E"),
        ]
        var h = Harness(state: RunState(runID: "run-r", graph: g, status: .running, nodes: stored))
        #expect(h.state.nodes["d"] == NodeState())

        let resumed = h.start()
        #expect(resumed.runStatuses.isEmpty, "the run was already running")
        #expect(resumed.nodeChanges.isEmpty, "re-dispatching changes no node state")
        // b runs on a worker (its lease covers a worker that died); c may not have reached the broker.
        #expect(resumed.dispatches.map(\.key) == ["c"])
        #expect(
            resumed.dispatches.first { $0.key == "c" }
                == TaskDispatch(runID: "run-r", key: "c", attempt: 1, procedure: "p", input: ["c": true], pool: "default", priority: 0))

        // A report from the attempt before the restart is stale.
        #expect(h.succeed("b", "old", attempt: 2).isEmpty)
        #expect(h.succeed("b", "B", attempt: 3).dispatches.isEmpty, "d still waits for c")
        let released = h.succeed("c", nil, attempt: 1)
        #expect(released.dispatches.map(\.key) == ["d"])
        #expect(released.dispatches.first?.input == "B")
        #expect(released.dispatches.first?.attempt == 1)
        #expect(h.succeed("d", "D").runStatuses == [.succeeded])
        #expect(h.log.runStatuses == [.succeeded])
    }

    @Test func aQueuedTaskTheBrokerConfirmedIsNotPublishedAgain() throws {
        let g = try graph(Self.text)
        var confirmed = NodeState(status: .queued, attempt: 1, input: ["c": true])
        confirmed.publishedAttempt = 1
        var older = NodeState(status: .queued, attempt: 2, input: [:])
        older.publishedAttempt = 1  // the mark of an earlier attempt says nothing about this one
        let stored: [String: NodeState] = ["a": older, "c": confirmed]
        var h = Harness(state: RunState(runID: "run-r", graph: g, status: .running, nodes: stored))
        let resumed = h.start()
        #expect(resumed.dispatches.map(\.key) == ["a"])
        #expect(resumed.dispatches.first?.attempt == 2)
        // Restarting again and again never multiplies the backlog.
        var again = Harness(state: RunState(runID: "run-r", graph: g, status: .running, nodes: stored))
        #expect(again.start().dispatches.count == 1)
    }

    @Test func pendingNodesWhoseDependenciesEndedAreDecidedOnStart() throws {
        let g = try graph(Self.text)
        let stored: [String: NodeState] = [
            "a": NodeState(status: .succeeded, attempt: 1, output: ["v": 5]),
            "c": NodeState(status: .failed, attempt: 1, error: "bad"),
        ]
        var h = Harness(state: RunState(runID: "r", graph: g, status: .running, nodes: stored))
        let resumed = h.start()
        // b and e were pending with every dependency ended: they run now, with inputs from stored outputs.
        #expect(Set(resumed.dispatches.map(\.key)) == ["b", "e"])
        #expect(resumed.dispatches.first { $0.key == "b" }?.input == 5)
        #expect(resumed.dispatches.first { $0.key == "e" }?.input == ["v": 5])
        #expect(Set(resumed.nodeChanges.map(\.key)) == ["b", "e"])
        h.succeed("e", 1)
        let last = h.succeed("b", 2)
        #expect(last.changes(for: "d").first?.status == .cancelled)
        #expect(last.changes(for: "d").first?.error == "dependency 'c' failed")
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'c' failed: bad")
    }

    @Test func aStoredRunWithEveryNodeEndedFinishesOnStart() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#)
        let stored: [String: NodeState] = [
            "a": NodeState(status: .succeeded, attempt: 1, output: 1),
            "b": NodeState(status: .succeeded, attempt: 1, output: 2),
        ]
        var h = Harness(state: RunState(runID: "r", graph: g, status: .running, nodes: stored))
        let commands = h.start()
        #expect(commands.dispatches.isEmpty)
        #expect(commands.runStatuses == [.succeeded])
        #expect(h.state.status == .succeeded)
    }

    @Test func aPendingRunStartsNormally() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        var h = Harness(state: RunState(runID: "r", graph: g, nodes: ["zzz": NodeState(status: .failed)]))
        #expect(h.state.nodes.keys.sorted() == ["a"], "stored states of keys not in the graph are dropped")
        let commands = h.start()
        #expect(commands.runStatuses == [.running])
        #expect(commands.dispatches.map(\.key) == ["a"])
    }
}
