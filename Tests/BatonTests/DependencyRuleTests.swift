import Baton
import Foundation
import Testing

@Suite("RunState: dependency rules")
struct DependencyRuleTests {
    enum Outcome: String, CaseIterable, Sendable { case succeeded, failed, cancelled, skipped }

    /// `a` ends as `outcome` (skipped through its `when`, cancelled through a failed `x`), `b` succeeds;
    /// `j` depends on both with `rule` (nil: the default), `k` follows `j`.
    static func graphText(_ rule: String?) -> String {
        let r = rule.map { ", \"dependencies\": \"\($0)\"" } ?? ""
        return #"""
            {"nodes": {
              "s": {"procedure": "p"},
              "x": {"procedure": "p"},
              "a": {"procedure": "p", "input": {"$from": "x"}, "when": {"$from": "s"}},
              "b": {"procedure": "p"},
              "j": {"procedure": "p", "input": {"a": {"$from": "a"}, "a2": {"$from": "a", "select": "/deep/x"}, "b": {"$from": "b"}}\#(r)},
              "k": {"procedure": "p", "input": {"$from": "j"}}}}
            """#
    }

    static func drive(_ rule: String?, _ outcome: Outcome) throws -> Harness {
        var h = Harness(try graph(graphText(rule)))
        #expect(Set(h.start().dispatches.map(\.key)) == ["s", "x", "b"])
        h.succeed("b", "B")
        switch outcome {
        case .succeeded:
            h.succeed("s", true)
            h.succeed("x", 1)
            h.succeed("a", ["deep": ["x": 42]])
        case .failed:
            h.succeed("s", true)
            h.succeed("x", 1)
            h.fail("a", "a broke")
        case .cancelled:
            h.succeed("s", true)
            h.fail("x", "x broke")
        case .skipped:
            h.succeed("s", false)
            h.succeed("x", 1)
        }
        #expect(h.state.nodes["a"]?.status == NodeStatus(rawValue: outcome.rawValue))
        return h
    }

    struct Expectation: Sendable, CustomTestStringConvertible {
        let rule: String?
        let outcome: Outcome
        /// nil: j runs.
        let status: NodeStatus?
        let error: String?
        var testDescription: String { "\(rule ?? "default") with a dependency \(outcome.rawValue)" }
    }

    static let table: [Expectation] = [
        .init(rule: nil, outcome: .succeeded, status: nil, error: nil),
        .init(rule: nil, outcome: .failed, status: .cancelled, error: "dependency 'a' failed"),
        .init(rule: nil, outcome: .cancelled, status: .cancelled, error: "dependency 'a' was cancelled"),
        .init(rule: nil, outcome: .skipped, status: .skipped, error: "dependency 'a' was skipped"),
        .init(rule: "all-succeeded", outcome: .succeeded, status: nil, error: nil),
        .init(rule: "all-succeeded", outcome: .failed, status: .cancelled, error: "dependency 'a' failed"),
        .init(rule: "all-succeeded", outcome: .cancelled, status: .cancelled, error: "dependency 'a' was cancelled"),
        .init(rule: "all-succeeded", outcome: .skipped, status: .skipped, error: "dependency 'a' was skipped"),
        .init(rule: "none-failed", outcome: .succeeded, status: nil, error: nil),
        .init(rule: "none-failed", outcome: .failed, status: .cancelled, error: "dependency 'a' failed"),
        .init(rule: "none-failed", outcome: .cancelled, status: .cancelled, error: "dependency 'a' was cancelled"),
        .init(rule: "none-failed", outcome: .skipped, status: nil, error: nil),
        .init(rule: "all-finished", outcome: .succeeded, status: nil, error: nil),
        .init(rule: "all-finished", outcome: .failed, status: nil, error: nil),
        .init(rule: "all-finished", outcome: .cancelled, status: nil, error: nil),
        .init(rule: "all-finished", outcome: .skipped, status: nil, error: nil),
    ]

    @Test("rule decides the node", arguments: table)
    func ruleDecides(_ e: Expectation) throws {
        var h = try Self.drive(e.rule, e.outcome)
        let j = try #require(h.state.nodes["j"])
        if let status = e.status {
            #expect(j.status == status)
            #expect(j.error == e.error)
            #expect(j.attempt == 0, "never dispatched")
            #expect(!h.log.dispatches.contains { $0.key == "j" })
            // The decision propagates to k: a cancelled j cancels it, a skipped j skips it.
            let k = try #require(h.state.nodes["k"])
            #expect(k.status == status)
            #expect(k.error == (status == .skipped ? "dependency 'j' was skipped" : "dependency 'j' was cancelled"))
        } else {
            #expect(j.status == .queued)
            let task = try #require(h.log.dispatches.first { $0.key == "j" })
            // A reference to a node with no output injects null, select or not.
            let expected: JSON =
                e.outcome == .succeeded
                ? ["a": ["deep": ["x": 42]], "a2": 42, "b": "B"]
                : ["a": nil, "a2": nil, "b": "B"]
            #expect(task.input == expected)
            #expect(task.attempt == 1)
            h.succeed("j", "J")
            #expect(h.log.dispatches.last?.key == "k")
            #expect(h.log.dispatches.last?.input == "J")
        }
    }

    @Test("run status after the rule", arguments: table)
    func runStatus(_ e: Expectation) throws {
        var h = try Self.drive(e.rule, e.outcome)
        if e.status == nil {
            h.succeed("j", "J")
            h.succeed("k", "K")
        }
        #expect(h.state.status.isTerminal)
        switch e.outcome {
        case .succeeded, .skipped:
            // A skipped node does not fail the run, whatever the rule did downstream.
            #expect(h.state.status == .succeeded)
            #expect(h.state.error == nil)
        case .failed:
            #expect(h.state.status == .failed)
            #expect(h.state.error == "node 'a' failed: a broke")
        case .cancelled:
            #expect(h.state.status == .failed)
            #expect(h.state.error == "node 'x' failed: x broke")
        }
    }

    @Test func aFailureOutranksASkipAndTheFirstFailedDependencyIsNamed() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "skip": {"procedure": "p", "when": false},
              "f1": {"procedure": "p"},
              "f2": {"procedure": "p"},
              "j": {"procedure": "p", "input": [{"$from": "skip"}, {"$from": "f2"}], "after": ["f1"]}}}
            """#)
        var h = Harness(g)
        let first = h.start()
        #expect(first.changes(for: "skip").map(\.status) == [.skipped])
        #expect(first.changes(for: "skip").first?.error == "when is false, not true")
        h.fail("f1", "one")
        h.fail("f2", "two")
        // Dependencies are listed references first, then `after`: f2 before f1.
        #expect(h.state.nodes["j"]?.status == .cancelled)
        #expect(h.state.nodes["j"]?.error == "dependency 'f2' failed")
        #expect(h.state.error == "node 'f1' failed: one (and 1 more failed)")
    }

    @Test func aDecisionWaitsForEveryDependency() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"},
                       "j": {"procedure": "p", "after": ["a", "b"], "dependencies": "all-finished"}}}
            """#)
        var h = Harness(g)
        h.start()
        #expect(h.fail("a", "boom").changes(for: "j").isEmpty, "b has not ended yet")
        #expect(h.state.nodes["j"]?.status == .pending)
        let last = h.succeed("b", 1)
        #expect(last.dispatches.map(\.key) == ["j"])
        #expect(last.dispatches.first?.input == [:])
    }

    @Test func aFalseWhenQuietlySkipsEverythingDownstream() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "gate": {"procedure": "p", "when": false},
              "d1": {"procedure": "p", "input": {"$from": "gate"}},
              "d2": {"procedure": "p", "after": ["d1"]},
              "other": {"procedure": "p"}}}
            """#)
        var h = Harness(g)
        let first = h.start()
        #expect(first.dispatches.map(\.key) == ["other"])
        #expect(h.state.nodes["d1"]?.status == .skipped)
        #expect(h.state.nodes["d1"]?.error == "dependency 'gate' was skipped")
        #expect(h.state.nodes["d2"]?.status == .skipped)
        #expect(h.state.nodes["d2"]?.error == "dependency 'd1' was skipped")
        h.succeed("other", 1)
        #expect(h.state.status == .succeeded)
        #expect(h.state.counts == [.skipped: 3, .succeeded: 1])
    }

    @Test func aFinallyRunsAfterAFailureButTheRunStillFails() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "work": {"procedure": "p"},
              "cleanup": {"procedure": "p", "input": {"result": {"$from": "work"}}, "dependencies": "all-finished"}}}
            """#)
        var h = Harness(g)
        h.start()
        let failed = h.fail("work", "crashed")
        #expect(failed.dispatches.map(\.key) == ["cleanup"])
        #expect(failed.dispatches.first?.input == ["result": nil])
        #expect(failed.runStatuses.isEmpty)
        let end = h.succeed("cleanup", "cleaned")
        #expect(end.runStatuses == [.failed])
        #expect(h.state.error == "node 'work' failed: crashed")
        #expect(h.state.nodes["cleanup"]?.status == .succeeded)
    }

    @Test func noneFailedStillCancelsOnACancelledDependency() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "after": ["a"]},
              "c": {"procedure": "p", "after": ["b"], "dependencies": "none-failed"},
              "d": {"procedure": "p", "after": ["b"], "dependencies": "all-finished"}}}
            """#)
        var h = Harness(g)
        h.start()
        let failed = h.fail("a", "no")
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.nodes["c"]?.status == .cancelled)
        #expect(h.state.nodes["c"]?.error == "dependency 'b' was cancelled")
        #expect(failed.dispatches.map(\.key) == ["d"], "all-finished runs even after a cancelled dependency")
    }

    @Test func defaultsSetTheRuleForEveryNodeAndANodeOverridesIt() throws {
        let g = try graph(
            #"""
            {"defaults": {"dependencies": "all-finished"},
             "nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "after": ["a"]},
              "c": {"procedure": "p", "after": ["a"], "dependencies": "all-succeeded"}}}
            """#)
        #expect(g.nodes["b"]?.policies.dependencies == .allFinished)
        #expect(g.nodes["c"]?.policies.dependencies == .allSucceeded)
        var h = Harness(g)
        h.start()
        let failed = h.fail("a", "no")
        #expect(failed.dispatches.map(\.key) == ["b"])
        #expect(h.state.nodes["c"]?.status == .cancelled)
    }
}
