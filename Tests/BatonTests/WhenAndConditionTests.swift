import Baton
import Foundation
import Testing

@Suite("RunState: when")
struct WhenTests {
    @Test func literalTrueRunsAndLiteralFalseSkips() throws {
        let g = try graph(
            #"""
            {"nodes": {"yes": {"procedure": "p", "when": true}, "no": {"procedure": "p", "when": false}}}
            """#)
        var h = Harness(g)
        let first = h.start()
        #expect(first.dispatches.map(\.key) == ["yes"])
        #expect(first.changes(for: "no") == [NodeChange(key: "no", status: .skipped, attempt: 0, error: "when is false, not true")])
        h.succeed("yes", 1)
        #expect(h.state.status == .succeeded)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let output: JSON
        let runs: Bool
        let error: String?
        var testDescription: String { output.serialized() }
    }

    @Test(
        "a reference must be exactly JSON true",
        arguments: [
            Case(output: ["go": true], runs: true, error: nil),
            Case(output: ["go": false], runs: false, error: "when is false, not true"),
            Case(output: ["go": "true"], runs: false, error: #"when is "true", not true"#),
            Case(output: ["go": 1], runs: false, error: "when is 1, not true"),
            Case(output: ["go": nil], runs: false, error: "when is null, not true"),
            Case(output: ["go": [true]], runs: false, error: "when is [true], not true"),
        ])
    func referenceMustBeTrue(_ c: Case) throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"},
                       "b": {"procedure": "p", "input": {"v": 1}, "when": {"$from": "a", "select": "/go"}},
                       "c": {"procedure": "p", "input": {"$from": "b"}}}}
            """#)
        #expect(g.nodes["b"]?.dependencies == ["a"], "a when reference is a dependency")
        var h = Harness(g)
        #expect(h.start().dispatches.map(\.key) == ["a"])
        let after = h.succeed("a", c.output)
        if c.runs {
            #expect(after.dispatches.map(\.key) == ["b"])
            #expect(after.dispatches.first?.input == ["v": 1])
        } else {
            #expect(after.dispatches.isEmpty)
            #expect(h.state.nodes["b"]?.status == .skipped)
            #expect(h.state.nodes["b"]?.error == c.error)
            #expect(h.state.nodes["c"]?.status == .skipped)
            #expect(h.state.status == .succeeded)
        }
    }

    @Test func aMissingSelectTargetFailsTheNode() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "when": {"$from": "a", "select": "/go"}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("a", ["other": true])
        let b = try #require(h.state.nodes["b"])
        #expect(b.status == .failed)
        let error = try #require(b.error)
        #expect(error.hasPrefix("when: "))
        #expect(error.contains("'a'"))
        #expect(error.contains("/go"))
        #expect(h.state.status == .failed)
    }

    @Test func aWhenOnASkippedNodeWithAllFinishedSeesNull() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "when": false},
                       "b": {"procedure": "p", "when": {"$from": "a"}, "dependencies": "all-finished"}}}
            """#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["b"]?.status == .skipped)
        #expect(h.state.nodes["b"]?.error == "when is null, not true")
        #expect(h.state.status == .succeeded)
    }

    @Test func whenIsCheckedAfterTheDependencyRule() throws {
        // A cancelled dependency cancels the node even though its when would be true.
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "after": ["a"], "when": true}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("a", "no")
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.nodes["b"]?.error == "dependency 'a' failed")
    }
}

@Suite("RunState: condition")
struct ConditionTests {
    static func text(negate: Bool? = nil, retry: Bool = false) -> String {
        let n = negate.map { ", \"negate\": \($0)" } ?? ""
        let r = retry ? #", "retry": {"attempts": 3}"# : ""
        return #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "n": {"procedure": "work", "input": {"v": {"$from": "a"}}, "timeout": "1m", "pool": "gpu", "priority": 3\#(r),
                    "condition": {"procedure": "check", "input": {"x": {"$from": "a", "select": "/x"}}\#(n)}},
              "after": {"procedure": "p", "input": {"$from": "n"}}}}
            """#
    }

    @Test func theConditionRunsFirstAsATaskOfItsOwn() throws {
        var h = Harness(try graph(Self.text()))
        h.start()
        let queued = h.succeed("a", ["x": 5])
        #expect(
            queued.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "n", attempt: 1, procedure: "check", input: ["x": 5],
                    pool: "gpu", priority: 3, phase: .condition, timeout: nil)
            ])
        #expect(queued.changes(for: "n") == [NodeChange(key: "n", status: .queued, attempt: 1, event: .conditionQueued)])
        #expect(h.state.nodes["n"]?.phase == .condition)

        // A condition attempt has no deadline of its own: the node's timeout is for its procedure.
        h.started("n")
        #expect(h.state.nodes["n"]?.status == .running)
        #expect(h.state.nodes["n"]?.deadline == nil)

        let run = h.condition("n", .succeeded(true))
        #expect(
            run.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "n", attempt: 1, procedure: "work", input: ["v": ["x": 5]],
                    pool: "gpu", priority: 3, phase: .run, timeout: 60)
            ])
        #expect(run.changes(for: "n").map(\.status) == [.queued])
        #expect(h.state.nodes["n"]?.phase == .run)
        #expect(h.state.nodes["n"]?.attempt == 1)

        let done = h.succeed("n", "N")
        #expect(done.dispatches.map(\.key) == ["after"])
        #expect(done.dispatches.first?.input == "N")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let negate: Bool?
        let value: JSON
        let runs: Bool
        let error: String?
        var testDescription: String { "negate \(negate.map(String.init) ?? "unset"), condition \(value.serialized())" }
    }

    @Test(
        "true runs, false skips, negate inverts",
        arguments: [
            Case(negate: nil, value: true, runs: true, error: nil),
            Case(negate: nil, value: false, runs: false, error: "condition check was false"),
            Case(negate: false, value: true, runs: true, error: nil),
            Case(negate: false, value: false, runs: false, error: "condition check was false"),
            Case(negate: true, value: true, runs: false, error: "condition check was true (negated)"),
            Case(negate: true, value: false, runs: true, error: nil),
        ])
    func outcome(_ c: Case) throws {
        var h = Harness(try graph(Self.text(negate: c.negate)))
        h.start()
        h.succeed("a", ["x": 5])
        let after = h.condition("n", .succeeded(c.value))
        if c.runs {
            #expect(after.dispatches.map(\.procedure) == ["work"])
        } else {
            #expect(after.dispatches.isEmpty)
            #expect(h.state.nodes["n"]?.status == .skipped)
            #expect(h.state.nodes["n"]?.error == c.error)
            #expect(h.state.nodes["after"]?.status == .skipped)
            #expect(h.state.status == .succeeded)
            #expect(!h.log.dispatches.contains { $0.procedure == "work" })
        }
    }

    @Test func anErrorFailsTheNodeWithoutRetrying() throws {
        var h = Harness(try graph(Self.text(retry: true)))
        h.start()
        h.succeed("a", ["x": 5])
        let failed = h.condition("n", .failed(message: "nope", permanent: false))
        #expect(failed.dispatches.isEmpty)
        #expect(h.state.nodes["n"]?.status == .failed)
        #expect(h.state.nodes["n"]?.error == "condition check failed: nope")
        #expect(h.state.nodes["n"]?.dueAt == nil)
        #expect(h.state.nodes["after"]?.status == .cancelled)
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'n' failed: condition check failed: nope")
    }

    @Test func aValueThatIsNotABooleanFailsTheNode() throws {
        var h = Harness(try graph(Self.text()))
        h.start()
        h.succeed("a", ["x": 5])
        h.condition("n", .succeeded("yes"))
        #expect(h.state.nodes["n"]?.status == .failed)
        #expect(h.state.nodes["n"]?.error == #"condition check returned "yes", not true or false"#)
    }

    @Test func resultsOfTheOtherPhaseAreIgnored() throws {
        var h = Harness(try graph(Self.text()))
        h.start()
        h.succeed("a", ["x": 5])
        // A run-phase result while the condition is out is stale.
        #expect(h.succeed("n", "too early").isEmpty)
        #expect(h.state.nodes["n"]?.status == .queued)
        h.condition("n", .succeeded(true))
        // A second condition result once the procedure is queued is stale too.
        #expect(h.condition("n", .succeeded(false)).isEmpty)
        #expect(h.state.nodes["n"]?.status == .queued)
        #expect(h.state.nodes["n"]?.phase == .run)
    }

    @Test func aConditionInputReferenceIsADependency() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"},
                       "n": {"procedure": "work", "condition": {"procedure": "check", "input": {"$from": "a"}}}}}
            """#)
        #expect(g.nodes["n"]?.dependencies == ["a"])
        let spec = try #require(g.nodes["n"]?.policies.condition)
        #expect(spec.procedure == "check")
        #expect(spec.input == .reference(Reference(node: "a")))
        #expect(spec.negate == false)
        var h = Harness(g)
        #expect(h.start().dispatches.map(\.key) == ["a"])
        let c = h.succeed("a", 7)
        #expect(c.dispatches.map(\.procedure) == ["check"])
        #expect(c.dispatches.first?.input == 7)
    }

    @Test func aConditionOutIsSentAgainOnResume() throws {
        var h = Harness(try graph(Self.text()))
        h.start()
        h.succeed("a", ["x": 5])
        var resumed = Harness(state: try rebuilt(h.state))
        #expect(resumed.state.nodes["n"]?.phase == .condition)
        let again = resumed.start()
        #expect(
            again.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "n", attempt: 1, procedure: "check", input: ["x": 5],
                    pool: "gpu", priority: 3, phase: .condition, timeout: nil)
            ])
        #expect(resumed.condition("n", .succeeded(true)).dispatches.map(\.procedure) == ["work"])
    }
}
