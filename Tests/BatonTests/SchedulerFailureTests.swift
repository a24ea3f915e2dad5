import Baton
import Testing

@Suite("RunState: failures")
struct SchedulerFailureTests {
    static let branches = #"""
        {"nodes": {
          "a": {"procedure": "p"},
          "b": {"procedure": "p", "input": {"$from": "a"}},
          "c": {"procedure": "p", "after": ["b"]},
          "x": {"procedure": "p"},
          "y": {"procedure": "p", "input": {"$from": "x"}}}}
        """#

    @Test func failureCancelsDependentsTransitively() throws {
        var h = Harness(try graph(Self.branches))
        #expect(Set(h.start().dispatches.map(\.key)) == ["a", "x"])

        let failed = h.fail("a", "disk full")
        #expect(failed.dispatches.isEmpty)
        #expect(
            failed.changes(for: "a") == [
                NodeChange(key: "a", status: .running, attempt: 1, worker: "w"),
                NodeChange(key: "a", status: .failed, attempt: 1, error: "disk full", worker: "w"),
            ])
        #expect(failed.changes(for: "b").map(\.status) == [.cancelled])
        #expect(failed.changes(for: "b").first?.error == "dependency 'a' failed")
        #expect(failed.changes(for: "c").map(\.status) == [.cancelled])
        #expect(failed.changes(for: "c").first?.error == "dependency 'b' was cancelled")
        #expect(failed.runStatuses.isEmpty, "the unrelated branch is still running")
        #expect(h.state.status == .running)

        // The unrelated branch runs on and succeeds.
        let x = h.succeed("x", 1)
        #expect(x.dispatches.map(\.key) == ["y"])
        let end = h.succeed("y", 2)
        #expect(end.runStatuses == [.failed])
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'a' failed: disk full")
        #expect(end.runErrors == ["node 'a' failed: disk full"])

        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.nodes["a"]?.error == "disk full")
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.nodes["b"]?.attempt == 0)
        #expect(h.state.nodes["y"]?.status == .succeeded)
        #expect(h.state.counts == [.failed: 1, .cancelled: 2, .succeeded: 2])
        #expect(!h.log.dispatches.contains { $0.key == "b" || $0.key == "c" })
    }

    @Test func aJoinWaitsForEveryDependencyBeforeBeingCancelled() throws {
        let g = try graph(
            #"""
            {"nodes": {"w0": {"procedure": "p"}, "w1": {"procedure": "p"}, "w2": {"procedure": "p"},
                       "join": {"procedure": "p", "input": [{"$from": "w0"}, {"$from": "w1"}], "after": ["w2"]}}}
            """#)
        var h = Harness(g)
        h.start()
        #expect(h.fail("w1", "boom").changes(for: "join").isEmpty)
        #expect(h.succeed("w0", 0).changes(for: "join").isEmpty)
        #expect(h.state.status == .running)
        let last = h.succeed("w2", 2)
        #expect(last.changes(for: "join").map(\.status) == [.cancelled])
        #expect(last.changes(for: "join").first?.error == "dependency 'w1' failed")
        #expect(last.runStatuses == [.failed])
        #expect(h.state.error == "node 'w1' failed: boom")
    }

    @Test func severalFailuresAreCounted() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p"}}}"#))
        h.start()
        h.fail("c", "third")
        h.fail("a", "first")
        h.succeed("b", nil)
        // Named in graph order, not in the order the failures arrived.
        #expect(h.state.error == "node 'a' failed: first (and 1 more failed)")
        #expect(h.log.runStatuses == [.running, .failed])
    }

    @Test func retryableAndPermanentFailuresBothEndTheNode() throws {
        // This version has no retry policy: any failed attempt fails the node.
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        h.start()
        h.fail("a", "transient", permanent: false)
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.status == .failed)
    }

    @Test func missingPointerAtRunTimeFailsTheDependent() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "input": {"v": {"$from": "a", "select": "/y/0"}}},
              "c": {"procedure": "p", "input": {"$from": "b"}},
              "ok": {"procedure": "p", "input": {"$from": "a", "select": "/x"}}}}
            """#)
        var h = Harness(g)
        h.start()
        let commands = h.succeed("a", ["x": 1])
        #expect(commands.dispatches.map(\.key) == ["ok"])
        #expect(commands.dispatches.first?.input == 1)

        let b = try #require(commands.changes(for: "b").first)
        #expect(commands.changes(for: "b").count == 1)
        #expect(b.status == .failed)
        let message = try #require(b.error)
        #expect(message.contains("'a'"))
        #expect(message.contains("/y/0"))
        #expect(message.contains(#"no member "y""#))
        #expect(h.state.nodes["b"]?.error == message)
        #expect(commands.changes(for: "c").first?.error == "dependency 'b' failed")

        h.succeed("ok", 1)
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'b' failed: \(message)")
    }
}
