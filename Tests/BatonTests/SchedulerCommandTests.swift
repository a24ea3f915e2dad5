import Baton
import Foundation
import Testing

@Suite("RunState: commands")
struct SchedulerCommandTests {
    /// Sends `event` and checks that every node whose status or attempt changed got
    /// exactly one `.node` command describing its new state (preceded by the implied
    /// `running` one when a result ends a node whose start was never reported), and no other node got one.
    static func sendChecked(
        _ h: inout Harness, _ event: SchedulerEvent,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [SchedulerCommand] {
        let before = h.state.nodes
        let commands = h.send(event)
        let after = h.state.nodes
        let changed = Set(after.keys.filter { before[$0]?.status != after[$0]?.status || before[$0]?.attempt != after[$0]?.attempt })
        let byKey = Dictionary(grouping: commands.nodeChanges, by: \.key)
        #expect(
            Set(byKey.keys) == changed, "changed \(changed.sorted()), commands for \(byKey.keys.sorted())",
            sourceLocation: sourceLocation)
        for (key, changes) in byKey {
            let impliedStart = changes.count == 2 && changes[0].status == .running && before[key]?.status == .queued
            #expect(changes.count == 1 || impliedStart, "\(key) got \(changes.count) node commands", sourceLocation: sourceLocation)
            #expect(changes.last?.status == after[key]?.status, sourceLocation: sourceLocation)
            #expect(changes.last?.attempt == after[key]?.attempt, sourceLocation: sourceLocation)
        }
        // Every dispatch follows the `.node(queued)` command of the same attempt, unless it is a re-dispatch.
        for task in commands.dispatches where byKey[task.key] != nil {
            #expect(byKey[task.key]?.first?.status == .queued, sourceLocation: sourceLocation)
            #expect(byKey[task.key]?.first?.input == task.input, sourceLocation: sourceLocation)
        }
        return commands
    }

    @Test func everyTransitionProducesExactlyOneNodeCommand() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"}, "b": {"procedure": "p", "input": {"$from": "a"}},
              "c": {"procedure": "p", "input": {"$from": "b", "select": "/missing"}},
              "d": {"procedure": "p", "after": ["c"]}, "e": {"procedure": "p", "after": ["d", "b"]},
              "f": {"procedure": "p"}, "g": {"procedure": "p", "input": [{"$from": "f"}, {"$from": "a"}]},
              "h": {"procedure": "p"}, "i": {"procedure": "p", "after": ["h"]}}}
            """#)
        var h = Harness(g)
        let t = Date(timeIntervalSince1970: 0)
        _ = Self.sendChecked(&h, .start)
        _ = Self.sendChecked(&h, .started(key: "a", attempt: 1, worker: "w", at: t))
        _ = Self.sendChecked(&h, .started(key: "a", attempt: 1, worker: "w", at: t))
        _ = Self.sendChecked(&h, .result(NodeResult(key: "a", attempt: 1, outcome: .succeeded(["k": 1]))))
        _ = Self.sendChecked(&h, .result(NodeResult(key: "a", attempt: 1, outcome: .succeeded(["k": 2]))))
        _ = Self.sendChecked(&h, .start)  // a resume in the middle re-dispatches, changes nothing
        _ = Self.sendChecked(&h, .result(NodeResult(key: "h", attempt: 1, outcome: .failed(message: "h broke", permanent: true))))
        _ = Self.sendChecked(&h, .started(key: "b", attempt: 1, worker: "w", at: t))
        _ = Self.sendChecked(&h, .result(NodeResult(key: "b", attempt: 1, outcome: .succeeded(["present": 1]))))
        _ = Self.sendChecked(&h, .result(NodeResult(key: "f", attempt: 1, outcome: .succeeded(nil))))
        let last = Self.sendChecked(&h, .result(NodeResult(key: "g", attempt: 1, outcome: .succeeded(nil))))
        #expect(last.runStatuses == [.failed])
        #expect(h.state.nodes.values.allSatisfy { $0.status.isTerminal })
        #expect(h.state.nodes["c"]?.status == .failed)
        #expect(h.state.nodes["d"]?.status == .cancelled)
        #expect(h.state.nodes["e"]?.status == .cancelled)
        #expect(h.state.nodes["i"]?.status == .cancelled)
        // c (graph order) comes before h.
        #expect(h.state.error?.hasPrefix("node 'c' failed: ") == true)
        #expect(h.state.error?.hasSuffix("(and 1 more failed)") == true)
    }

    @Test func runStatusIsRunningOnceThenFinalOnce() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "input": {"$from": "a"}}}}"#))
        h.start()
        h.start()
        h.succeed("a", 1)
        h.start()
        h.succeed("b", 2)
        h.start()
        h.succeed("b", 2)
        #expect(h.log.runStatuses == [.running, .succeeded])
        // The first command of all is the run becoming running.
        if case .runStatus(.running, nil)? = h.log.first {} else { Issue.record("first command: \(String(describing: h.log.first))") }
        // The final status is the very last command.
        if case .runStatus(.succeeded, nil)? = h.log.last {} else { Issue.record("last command: \(String(describing: h.log.last))") }
    }

    @Test func redispatchOnResumeKeepsTheAttempt() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "input": [1]}}}"#))
        let first = h.start().dispatches
        let again = h.start().dispatches
        #expect(first == again)
        #expect(again.first?.attempt == 1)
        #expect(h.state.nodes["a"]?.attempt == 1)
    }

    @Test func countsSumToTheNumberOfNodes() throws {
        var h = Harness(try graph(SchedulerFailureTests.branches))
        h.start()
        #expect(h.state.counts == [.queued: 2, .pending: 3])
        h.fail("a", "x")
        #expect(h.state.counts == [.queued: 1, .pending: 1, .failed: 1, .cancelled: 2])
        #expect(h.state.counts.values.reduce(0, +) == 5)
    }

    @Test func statusTerminality() {
        #expect(NodeStatus.allCases.filter(\.isTerminal) == [.succeeded, .failed, .cancelled, .skipped])
        #expect(RunStatus.allCases.filter(\.isTerminal) == [.succeeded, .failed, .cancelled])
        #expect(NodeStatus(rawValue: "waiting") == .waiting)
    }
}
