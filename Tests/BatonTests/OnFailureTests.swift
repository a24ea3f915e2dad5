import Baton
import Foundation
import Testing

@Suite("RunState: on_failure")
struct OnFailureTests {
    @Test func anIgnoredFailureEndsFailedButDependentsRunWithNull() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p", "on_failure": "ignore"},
              "b": {"procedure": "p", "input": {"x": {"$from": "a"}, "y": 1}},
              "c": {"procedure": "p", "after": ["a"], "dependencies": "none-failed"}}}
            """#)
        #expect(g.nodes["a"]?.policies.onFailure == .ignore)
        #expect(g.nodes["b"]?.policies.onFailure == .fail)
        var h = Harness(g)
        h.start()
        let failed = h.fail("a", "boom")
        #expect(failed.changes(for: "a").last?.status == .failed)
        #expect(failed.changes(for: "a").last?.error == "boom")
        #expect(failed.dispatches.map(\.key) == ["b", "c"])
        #expect(failed.dispatches.first?.input == ["x": nil, "y": 1])
        #expect(failed.runStatuses.isEmpty)
        h.succeed("b", "B")
        let end = h.succeed("c", "C")
        #expect(end.runStatuses == [.succeeded])
        #expect(end.runErrors == [nil])
        #expect(h.state.status == .succeeded)
        #expect(h.state.error == nil)
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.nodes["a"]?.output == nil)
        #expect(h.state.counts == [.failed: 1, .succeeded: 2])
    }

    @Test func theDefaultIsFail() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "on_failure": "fail"}, "b": {"procedure": "p", "input": {"$from": "a"}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("a", "boom")
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.status == .failed)
    }

    @Test func anIgnoredNodeAloneStillLetsTheRunSucceed() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "on_failure": "ignore"}}}"#))
        h.start()
        let end = h.fail("a", "boom", permanent: false)
        #expect(end.runStatuses == [.succeeded])
        #expect(h.state.status == .succeeded)
    }

    @Test func anIgnoredFailureAfterItsRetriesRunsDependents() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p", "on_failure": "ignore", "retry": {"attempts": 2, "wait": {"constant": "1s"}}},
              "b": {"procedure": "p", "input": {"$from": "a"}}}}
            """#)
        var h = Harness(g)
        h.start()
        #expect(h.fail("a", "one", permanent: false).dispatches.isEmpty)
        #expect(h.state.nodes["a"]?.status == .waiting)
        #expect(h.advance(1).dispatches.map(\.attempt) == [2])
        let last = h.fail("a", "two", permanent: false)
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.nodes["a"]?.error == "two")
        #expect(last.dispatches.map(\.key) == ["b"])
        #expect(last.dispatches.first?.input == JSON.null)
        h.succeed("b", 2)
        #expect(h.state.status == .succeeded)
    }

    @Test func aWhenOnAnIgnoredFailureSeesNull() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p", "on_failure": "ignore"},
              "b": {"procedure": "p", "when": {"$from": "a"}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("a", "boom")
        #expect(h.state.nodes["b"]?.status == .skipped)
        #expect(h.state.nodes["b"]?.error == "when is null, not true")
        #expect(h.state.status == .succeeded)
    }

    @Test func defaultsOnFailureAppliesAndANodeOverridesIt() throws {
        let g = try graph(
            #"""
            {"defaults": {"on_failure": "ignore"},
             "nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "on_failure": "fail"},
                       "c": {"procedure": "p", "after": ["a"]}}}
            """#)
        #expect(g.nodes["a"]?.policies.onFailure == .ignore)
        #expect(g.nodes["b"]?.policies.onFailure == .fail)
        var h = Harness(g)
        h.start()
        #expect(h.fail("a", "x").dispatches.map(\.key) == ["c"])
        h.succeed("c", 1)
        h.fail("b", "y")
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'b' failed: y")
    }

    /// The issue: a `$from` reference to a node with no output injects null whenever the rule lets the node run;
    /// an ignored failure has no output, so a `select` into it must inject null too, not fail the dependent.
    @Test
    func aSelectIntoAnIgnoredFailureInjectsNull() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p", "on_failure": "ignore"},
              "b": {"procedure": "p", "input": {"x": {"$from": "a", "select": "/x"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        let failed = h.fail("a", "boom")
        #expect(failed.dispatches.map(\.key) == ["b"])
        #expect(failed.dispatches.first?.input == ["x": nil])
    }
}
