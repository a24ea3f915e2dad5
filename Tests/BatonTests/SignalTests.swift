import Baton
import Foundation
import Testing

@Suite("RunState: signal nodes")
struct SignalTests {
    static let text = #"""
        {"nodes": {
          "approve": {"signal": "approval", "timeout": "1h"},
          "ship": {"procedure": "p", "input": {"by": {"$from": "approve", "select": "/by"}}}}}
        """#

    /// The run as a coordinator would load it after a restart: each node's columns and bookkeeping only.
    static func reloaded(_ state: RunState) -> RunState {
        var nodes: [String: NodeState] = [:]
        for (key, node) in state.nodes {
            var again = NodeState(
                status: node.status, attempt: node.attempt, input: node.input, output: node.output, error: node.error, worker: node.worker)
            again.restore(bookkeeping: node.bookkeeping)
            nodes[key] = again
        }
        return RunState(runID: state.runID, graph: state.graph, status: state.status, error: state.error, nodes: nodes)
    }

    @Test func aSignalNodeWaitsWithoutAWorkerThenSucceedsWithTheValue() throws {
        var h = Harness(try graph(Self.text))
        let first = h.start()
        #expect(first.dispatches.isEmpty, "nothing runs a signal node")
        #expect(first.changes(for: "approve").map(\.eventKind) == [.awaitingSignal])
        let node = try #require(h.state.nodes["approve"])
        #expect(node.status == .waiting)
        #expect(node.waitingFor == .signal)
        #expect(node.attempt == 1)
        #expect(node.deadline == h.now.addingTimeInterval(3600))
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(3600))

        let value: JSON = ["by": "ada", "ok": true]
        let delivered = h.send(.signal(key: "approve", value: value, at: h.now))
        #expect(delivered.changes(for: "approve").map(\.status) == [.succeeded])
        #expect(delivered.changes(for: "approve").first?.output == value)
        #expect(h.state.nodes["approve"]?.output == value)
        #expect(h.state.nodes["approve"]?.deadline == nil)
        #expect(delivered.dispatches.map(\.key) == ["ship"])
        #expect(delivered.dispatches.first?.input == ["by": "ada"], "the value is injected like any output")
        h.succeed("ship", nil)
        #expect(h.state.status == .succeeded)
    }

    @Test func aNullSignalIsAValue() throws {
        var h = Harness(try graph(#"{"nodes": {"s": {"signal": "go"}}}"#))
        h.start()
        h.send(.signal(key: "s", value: .null, at: h.now))
        #expect(h.state.nodes["s"]?.status == .succeeded)
        #expect(h.state.nodes["s"]?.output == .null)
        #expect(h.state.status == .succeeded)
    }

    @Test func withoutATimeoutItWaitsForever() throws {
        var h = Harness(try graph(#"{"nodes": {"s": {"signal": "go"}}}"#))
        h.start()
        #expect(h.state.nextWakeUp == nil)
        #expect(h.advance(86_400 * 365).isEmpty)
        #expect(h.state.nodes["s"]?.status == .waiting)
    }

    @Test func aSignalBeforeTheNodeWaitsIsKeptAndConsumedWhenItDoes() throws {
        let g = try graph(
            #"{"nodes": {"a": {"procedure": "p"}, "s": {"signal": "go", "after": ["a"]}, "b": {"procedure": "q", "input": {"$from": "s"}}}}"#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["s"]?.status == .pending)
        let sent = h.now
        let kept = h.send(.signal(key: "s", value: 42, at: sent))
        #expect(kept.changes(for: "s").map(\.eventKind) == [.signalKept])
        #expect(kept.changes(for: "s").map(\.status) == [.pending])
        #expect(h.state.nodes["s"]?.keptSignal == KeptSignal(value: 42, sentAt: sent))
        guard case let .node(change)? = kept.first(where: { if case .node = $0 { true } else { false } }) else {
            Issue.record("no change")
            return
        }
        #expect(change.bookkeeping?["signal"]?["value"] == 42, "kept in the bookkeeping the store writes")

        h.now = h.now.addingTimeInterval(5)
        let after = h.succeed("a", nil)
        #expect(after.changes(for: "s").map(\.status) == [.succeeded])
        #expect(h.state.nodes["s"]?.output == 42)
        #expect(h.state.nodes["s"]?.keptSignal == nil, "consumed")
        #expect(after.dispatches.map(\.key) == ["b"])
        #expect(after.dispatches.first?.input == 42)
    }

    @Test func aKeptSignalSurvivesARestart() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}, "s": {"signal": "go", "after": ["a"]}}}"#)
        var h = Harness(g)
        h.start()
        h.send(.signal(key: "s", value: "yes", at: h.now))
        var again = Harness(state: Self.reloaded(h.state))
        again.now = h.now
        again.start()
        #expect(again.state.nodes["s"]?.keptSignal?.value == "yes")
        again.succeed("a", nil)
        #expect(again.state.nodes["s"]?.output == "yes")
        #expect(again.state.status == .succeeded)
    }

    @Test func aWaitingSignalNodeAndItsTimeoutSurviveARestart() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.now = h.now.addingTimeInterval(60)
        var again = Harness(state: Self.reloaded(h.state))
        again.now = h.now
        #expect(again.start().dispatches.isEmpty, "resuming sends nothing for a waiting signal node")
        #expect(again.state.nodes["approve"]?.waitingFor == .signal)
        #expect(again.state.nextWakeUp == h.now.addingTimeInterval(3540))
        again.advance(3540)
        #expect(again.state.nodes["approve"]?.status == .failed)
    }

    @Test func aTimeoutFailsTheNodeAndCancelsItsDependents() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        #expect(h.advance(3599).isEmpty)
        let out = h.advance(1)
        #expect(out.changes(for: "approve").map(\.eventKind) == [.timedOut])
        #expect(out.changes(for: "approve").first?.status == .failed)
        #expect(h.state.nodes["approve"]?.error == "timed out: no signal 'approval' within 3600s")
        #expect(h.state.nodes["ship"]?.status == .cancelled)
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'approve' failed: timed out: no signal 'approval' within 3600s")
        #expect(out.cancelled.isEmpty, "no task to cancel")
    }

    @Test func aTimeoutWithRetryWaitsAgain() throws {
        let g = try graph(
            #"{"nodes": {"s": {"signal": "go", "timeout": "10s", "retry": {"attempts": 2, "wait": {"constant": "5s"}}}}}"#)
        var h = Harness(g)
        h.start()
        let out = h.advance(10)
        #expect(out.events.map(\.kind) == ["timed_out"])
        #expect(h.state.nodes["s"]?.status == .waiting)
        #expect(h.state.nodes["s"]?.waitingFor == .retry)
        // A signal during the back-off is kept, and taken when the node waits again.
        h.send(.signal(key: "s", value: "late", at: h.now))
        #expect(h.state.nodes["s"]?.keptSignal?.value == "late")
        let again = h.advance(5)
        #expect(again.changes(for: "s").map(\.status) == [.succeeded])
        #expect(h.state.nodes["s"]?.attempt == 2)
        #expect(h.state.nodes["s"]?.output == "late")
    }

    @Test func theLastTimeoutFailsTheNode() throws {
        let g = try graph(
            #"{"nodes": {"s": {"signal": "go", "timeout": "10s", "retry": {"attempts": 2, "wait": {"constant": "5s"}}}}}"#)
        var h = Harness(g)
        h.start()
        h.advance(10)
        h.advance(5)
        #expect(h.state.nodes["s"]?.waitingFor == .signal)
        #expect(h.state.nodes["s"]?.attempt == 2)
        h.advance(10)
        #expect(h.state.nodes["s"]?.status == .failed)
        #expect(h.state.status == .failed)
    }

    @Test func dependentsTriggerRulesApplyAfterATimeout() throws {
        let g = try graph(
            #"""
            {"nodes": {"s": {"signal": "go", "timeout": "1s", "on_failure": "ignore"},
                       "any": {"procedure": "p", "dependencies": "all-finished", "input": {"v": {"$from": "s"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        let out = h.advance(1)
        #expect(out.dispatches.map(\.key) == ["any"])
        #expect(out.dispatches.first?.input == ["v": nil], "a failed signal node gives its dependents null")
    }

    @Test func aSecondSignalIsIgnored() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}, "s": {"signal": "go", "after": ["a"]}}}"#)
        var h = Harness(g)
        h.start()
        h.send(.signal(key: "s", value: 1, at: h.now))
        let second = h.send(.signal(key: "s", value: 2, at: h.now))
        #expect(second.nodeChanges.isEmpty)
        #expect(second.events.map(\.kind) == ["signal_ignored"])
        h.succeed("a", nil)
        #expect(h.state.nodes["s"]?.output == 1, "the first one counts")
        let third = h.send(.signal(key: "s", value: 3, at: h.now))
        #expect(third.nodeChanges.isEmpty)
        #expect(h.state.nodes["s"]?.output == 1)
    }

    @Test func aSignalAfterTheTimeoutIsIgnored() throws {
        let g = try graph(#"{"nodes": {"s": {"signal": "go", "timeout": "1s"}, "t": {"signal": "other"}}}"#)
        var h = Harness(g)
        h.start()
        h.advance(1)
        let late = h.send(.signal(key: "s", value: 1, at: h.now))
        #expect(late.nodeChanges.isEmpty)
        #expect(late.events.first?.detail["message"] == "a signal came but was not used: the node had already failed")
        #expect(h.state.nodes["s"]?.status == .failed)
    }

    @Test func aSignalForANodeThatIsNoSignalOrUnknownDoesNothing() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        #expect(h.send(.signal(key: "ship", value: 1, at: h.now)).isEmpty)
        #expect(h.send(.signal(key: "nope", value: 1, at: h.now)).isEmpty)
        #expect(h.state.nodes["ship"]?.status == .pending)
    }

    @Test func aSignalToAFinishedRunDoesNothing() throws {
        var h = Harness(try graph(#"{"nodes": {"s": {"signal": "go"}}}"#))
        h.start()
        h.send(.cancel(reason: "cancelled: by request"))
        #expect(h.send(.signal(key: "s", value: 1, at: h.now)).isEmpty)
        #expect(h.state.nodes["s"]?.status == .cancelled)
    }

    @Test func cancellingTheRunCancelsAWaitingSignalNode() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        let out = h.send(.cancel(reason: "cancelled: by request"))
        #expect(out.changes(for: "approve").map(\.status) == [.cancelled])
        #expect(out.cancelled.isEmpty, "no task to signal")
        #expect(h.state.status == .cancelled)
        #expect(h.state.nextWakeUp == nil)
    }

    @Test func retryingTheRunWaitsForANewSignal() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.advance(3600)
        #expect(h.state.status == .failed)
        let retried = h.send(.retry(from: nil))
        #expect(retried.changes(for: "approve").map(\.eventKind) == [.reset, .awaitingSignal])
        #expect(h.state.nodes["approve"]?.attempt == 2)
        h.send(.signal(key: "approve", value: ["by": "bo"], at: h.now))
        #expect(h.state.nodes["ship"]?.status == .queued)
    }

    @Test func retryFromASignalledNodeWaitsAgain() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.send(.signal(key: "approve", value: ["by": "ada"], at: h.now))
        h.fail("ship", "boom")
        #expect(h.state.status == .failed)
        h.send(.retry(from: "approve"))
        #expect(h.state.nodes["approve"]?.status == .waiting)
        #expect(h.state.nodes["approve"]?.output == nil)
        h.send(.signal(key: "approve", value: ["by": "bo"], at: h.now))
        #expect(h.state.nodes["ship"]?.input == ["by": "bo"])
    }

    @Test func aSignalKeptBeforeACancelIsConsumedAfterARetry() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}, "s": {"signal": "go", "after": ["a"]}}}"#)
        var h = Harness(g)
        h.start()
        h.send(.signal(key: "s", value: "kept", at: h.now))
        h.send(.cancel(reason: "cancelled"))
        h.send(.retry(from: nil))
        h.succeed("a", nil)
        #expect(h.state.nodes["s"]?.output == "kept")
        #expect(h.state.status == .succeeded)
    }

    @Test func whenFalseSkipsASignalNode() throws {
        let g = try graph(#"{"nodes": {"s": {"signal": "go", "when": false}}}"#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["s"]?.status == .skipped)
        #expect(h.send(.signal(key: "s", value: 1, at: h.now)).events.map(\.kind) == [], "the run ended")
    }

    @Test func signalNodesHoldNoDispatchWindowSlot() throws {
        var nodes: [String] = []
        for i in 0..<5 { nodes.append("\"s\(i)\": {\"signal\": \"go\"}") }
        nodes.append("\"p\": {\"procedure\": \"p\"}")
        var state = RunState(runID: "r", graph: try graph("{\"nodes\": {\(nodes.joined(separator: ","))}}"))
        state.dispatchWindow = 1
        var h = Harness(state: state)
        let out = h.start()
        #expect(out.dispatches.map(\.key) == ["p"])
        #expect((0..<5).allSatisfy { h.state.nodes["s\($0)"]?.status == .waiting })
    }

    @Test func aSignalNodeInAGroup() throws {
        let g = try graph(#"{"nodes": {"g": {"group": {"nodes": {"s": {"signal": "go"}, "x": {"procedure": "p", "input": {"$from": "s"}}}}}}}"#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["g/s"]?.waitingFor == .signal)
        let out = h.send(.signal(key: "g/s", value: 7, at: h.now))
        #expect(out.dispatches.first?.input == 7)
    }

    @Test func theExampleWaitsForApprovalThenPublishes() throws {
        let g = try GraphDecoder().decode(try ExampleGraphTests.load("wait-for-approval.json"))
        var h = Harness(g)
        #expect(h.start().dispatches.map(\.key) == ["draft"])
        h.succeed("draft", ["title": "release 1.2"])
        #expect(h.state.nodes["approve"]?.waitingFor == .signal)
        let out = h.send(.signal(key: "approve", value: ["by": "ada"], at: h.now))
        #expect(out.dispatches.first?.input == ["title": "release 1.2", "approved_by": "ada"])
        h.succeed("publish", ["title": "release 1.2", "approved_by": "ada"])
        #expect(h.state.status == .succeeded)
    }
}
