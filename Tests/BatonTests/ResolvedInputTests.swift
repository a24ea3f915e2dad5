import Baton
import Foundation
import Testing

/// Issue 31: a coordinator (`dropsInputs`) holds no node's resolved input once its task is out or it
/// ended; a retry, a republished task and a cache store build it again, the same, from the outputs it
/// injects (read back from the store when they were dropped from memory), and a node whose input
/// cannot be built again fails alone.
@Suite("RunState: resolved inputs out of memory")
struct ResolvedInputTests {
    /// What the store holds of the run's outputs, for the state's `outputReader`.
    final class Outputs: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: JSON] = [:]
        /// Keys whose stored output is gone (as if the store lost it).
        var lost: Set<String> {
            get { lock.withLock { lostKeys } }
            set { lock.withLock { lostKeys = newValue } }
        }
        private var lostKeys: Set<String> = []
        func store(_ key: String, _ value: JSON) { lock.withLock { values[key] = value } }
        func read(_ key: String) -> JSON? { lock.withLock { lostKeys.contains(key) ? nil : values[key] } }
    }

    static let big = JSON.string(String(repeating: "x", count: 4_000))

    /// `big` echoes a 4 KB string; `a` (retried) and `b` inject it, and `c` injects both.
    static func harness(_ outputs: Outputs) throws -> Harness {
        let text = #"""
            {"nodes": {
              "big": {"procedure": "p", "input": {"s": "seed"}},
              "a": {"procedure": "p", "input": {"copy": {"$from": "big", "select": "/s"}, "i": 1}, "retry": {"attempts": 3, "wait": {"constant": "10s"}}},
              "b": {"procedure": "p", "input": {"copy": {"$from": "big"}, "i": 2}},
              "c": {"procedure": "p", "input": [{"$from": "a"}, {"$from": "b"}]}}}
            """#
        var h = Harness(try graph(text))
        h.state.dropsInputs = true
        h.state.outputReader = { outputs.read($0) }
        return h
    }

    /// Ends `big` with its output, stored, then dropped from memory as past the budget.
    static func bigSucceeds(_ h: inout Harness, _ outputs: Outputs) -> [TaskDispatch] {
        let output: JSON = ["s": big]
        outputs.store("big", output)
        let out = h.succeed("big", output).dispatches
        #expect(h.state.offloadOutputs(minimumBytes: 0) > 0)
        return out
    }

    @Test func noInputIsHeldOnceItsTaskIsOutAndARetryGoesOutWithTheSameInput() throws {
        let outputs = Outputs()
        var h = try Self.harness(outputs)
        #expect(h.start().dispatches.map(\.key) == ["big"])
        #expect(h.state.heldInputBytes == 0)
        let first = Self.bigSucceeds(&h, outputs)
        #expect(first.map(\.key) == ["a", "b"])
        #expect(first[0].input == ["copy": Self.big, "i": 1])
        #expect(h.state.nodes["a"]?.input == nil, "queued: its task carries the input, the state does not")
        #expect(h.state.nodes["b"]?.input == nil)
        #expect(h.state.heldInputBytes == 0)

        // The broker lost a's task: it goes out again, the same, under the same attempt.
        let again = h.state.republishQueued(["a": 1], at: h.now)
        let republished = again.compactMap { if case let .dispatch(task) = $0 { task } else { nil } }
        #expect(republished.map(\.key) == ["a"])
        #expect(republished.first?.input == first[0].input)
        #expect(republished.first?.attempt == 1)

        // a fails and is retried: the retry injects the same output (read back from the store).
        h.send(.started(key: "a", attempt: 1, worker: "w", at: h.now))
        #expect(h.fail("a", "flaky", permanent: false).dispatches.isEmpty)
        #expect(h.state.nodes["a"]?.input == nil)
        let retried = h.advance(10).dispatches
        #expect(retried.map(\.key) == ["a"])
        #expect(retried.first?.attempt == 2)
        #expect(retried.first?.input == first[0].input)
        #expect(h.state.heldInputBytes == 0)

        // Ended nodes hold none either, and the run goes on to the end.
        h.succeed("a", "A")
        let last = h.succeed("b", "B").dispatches
        #expect(last.map(\.key) == ["c"])
        #expect(last.first?.input == ["A", "B"])
        h.succeed("c", "C")
        #expect(h.state.status == .succeeded)
        #expect(h.state.heldInputBytes == 0)
        #expect(h.state.nodes.values.allSatisfy { $0.input == nil })
    }

    @Test func aNodeWhoseInputCannotBeBuiltAgainFailsAloneWithTheReason() throws {
        let outputs = Outputs()
        var h = try Self.harness(outputs)
        h.start()
        #expect(Self.bigSucceeds(&h, outputs).map(\.key) == ["a", "b"])
        outputs.lost = ["big"]  // the store no longer has big's output
        h.fail("a", "flaky", permanent: false)
        #expect(h.advance(10).dispatches.isEmpty)
        let a = try #require(h.state.nodes["a"])
        #expect(a.status == .failed)
        #expect(a.error?.contains("cannot be built again") == true)
        #expect(a.error?.contains("'big'") == true)
        // b's task, lost by the broker, cannot go out again either: b fails too, and the run ends.
        let out = h.state.republishQueued(["b": 1], at: h.now)
        #expect(out.contains { if case .dispatch = $0 { true } else { false } } == false)
        #expect(h.state.nodes["b"]?.status == .failed)
        #expect(h.state.nodes["c"]?.status == .cancelled)
        #expect(h.state.status == .failed)
    }

    /// A run loaded with queued tasks the broker may not have: one whose input the store gave goes out
    /// as it was; one whose input must be built again, from an output that is gone, fails alone (and
    /// its task, if a worker has it after all, is cancelled). No input stays held.
    @Test func aResumedRunSendsStoredInputsAndFailsOneThatCannotBeBuiltAgain() throws {
        let outputs = Outputs()
        outputs.lost = ["big"]
        let stored: JSON = ["copy": ["s": Self.big], "i": 2]
        let loaded = try Self.harness(outputs)
        var state = RunState(
            runID: "run-1", graph: loaded.state.graph, status: .running,
            nodes: [
                "big": NodeState(status: .succeeded, attempt: 1, output: ["s": Self.big]),
                "a": NodeState(status: .queued, attempt: 1),
                "b": NodeState(status: .queued, attempt: 1, input: stored),
            ])
        state.dropsInputs = true
        state.outputReader = { outputs.read($0) }
        #expect(state.offloadOutputs(minimumBytes: 0) > 0)
        var h = Harness(state: state)
        let out = h.start()
        #expect(out.dispatches.map(\.key) == ["b"])
        #expect(out.dispatches.first?.input == stored)
        #expect(out.cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.nodes["a"]?.error?.contains("cannot be built again") == true)
        #expect(h.state.heldInputBytes == 0)
        h.succeed("b", "B")
        #expect(h.state.nodes["c"]?.status == .cancelled)
        #expect(h.state.status == .failed)
    }

    /// The dispatch window still counts the bytes of the inputs out once the state no longer holds them:
    /// a task that starts keeps its bytes counted until it ends.
    @Test func theWindowCountsTheBytesOfInputsNoLongerHeld() throws {
        let pad = String(repeating: "x", count: 1_000)
        var nodes: [(key: String, value: JSON)] = [("big", ["procedure": "p", "input": ["s": .string(pad)]])]
        for i in 0..<8 { nodes.append(("n\(i)", ["procedure": "p", "input": ["copy": ["$from": "big"], "i": .int(Int64(i))]])) }
        var h = Harness(try GraphDecoder().decode(["nodes": .object(JSONObject(nodes))]))
        h.state.dropsInputs = true
        h.state.dispatchWindowBytes = 2_500
        h.start()
        let out = h.succeed("big", ["s": .string(pad)]).dispatches
        #expect(out.count == 3)
        for task in out { h.send(.started(key: task.key, attempt: task.attempt, worker: "w", at: h.now)) }
        #expect(h.state.heldInputBytes == 0)
        let next = h.succeed(out[0].key, "done").dispatches
        #expect(next.count == 1, "one ended, so one goes out: \(next.map(\.key))")
    }

    /// A node with a cache stores its output under its input, built again once it is no longer held.
    @Test func aCacheStoreUsesTheInputBuiltAgain() throws {
        let outputs = Outputs()
        var h = Harness(
            try graph(
                #"{"nodes": {"x": {"procedure": "p"}, "y": {"procedure": "p", "input": {"v": {"$from": "x"}}, "cache": {"ttl": "1h"}}}}"#))
        h.state.dropsInputs = true
        h.state.outputReader = { outputs.read($0) }
        h.start()
        outputs.store("x", 7)
        #expect(h.succeed("x", 7).contains { if case .acquire = $0 { true } else { false } })
        h.send(.admitted(key: "y"))
        #expect(h.state.nodes["y"]?.input == nil)
        let stored = h.succeed("y", "Y").compactMap { if case let .cacheStore(_, lookup, _) = $0 { lookup } else { nil } }
        #expect(stored.first?.input == CanonicalJSON.text(["v": 7]))
    }
}
