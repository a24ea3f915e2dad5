import Baton
import Foundation
import Testing

@Suite("RunState: cancel")
struct CancelTests {
    /// done: succeeded; run: running; queued: queued; retry: waiting for a retry; delay: waiting on baton.delay;
    /// cond: its condition is out; later: pending after run.
    static let text = #"""
        {"nodes": {
          "done": {"procedure": "p"},
          "run": {"procedure": "p"},
          "queued": {"procedure": "p"},
          "retry": {"procedure": "p", "retry": {"attempts": 3, "wait": {"constant": "1m"}}},
          "delay": {"procedure": "baton.delay", "input": {"seconds": 600}},
          "cond": {"procedure": "p", "condition": {"procedure": "check"}},
          "later": {"procedure": "p", "input": {"$from": "run"}}}}
        """#

    static func busy() throws -> Harness {
        var h = Harness(try graph(text))
        h.start()
        h.succeed("done", 1)
        h.started("run")
        h.fail("retry", "flaky", permanent: false)
        #expect(h.state.nodes["run"]?.status == .running)
        #expect(h.state.nodes["queued"]?.status == .queued)
        #expect(h.state.nodes["retry"]?.status == .waiting)
        #expect(h.state.nodes["delay"]?.status == .waiting)
        #expect(h.state.nodes["cond"]?.status == .queued)
        #expect(h.state.nodes["cond"]?.phase == .condition)
        #expect(h.state.nodes["later"]?.status == .pending)
        return h
    }

    @Test func everyUnfinishedNodeIsCancelledAndOnlyTasksOutAreSignalled() throws {
        var h = try Self.busy()
        let out = h.send(.cancel(reason: "stopped by alice"))
        #expect(Set(out.cancelled) == [TaskRef(key: "run", attempt: 1), TaskRef(key: "queued", attempt: 1), TaskRef(key: "cond", attempt: 1)])
        #expect(out.cancelled.count == 3)
        for key in ["run", "queued", "retry", "delay", "cond", "later"] {
            #expect(out.changes(for: key).map(\.status) == [.cancelled], "\(key)")
            #expect(h.state.nodes[key]?.status == .cancelled, "\(key)")
            #expect(h.state.nodes[key]?.error == "stopped by alice", "\(key)")
        }
        #expect(out.changes(for: "done").isEmpty)
        #expect(h.state.nodes["done"]?.status == .succeeded)
        #expect(out.dispatches.isEmpty)
        #expect(out.runStatuses == [.cancelled])
        #expect(out.runErrors == ["stopped by alice"])
        #expect(h.state.status == .cancelled)
        #expect(h.state.error == "stopped by alice")
        #expect(h.state.nextWakeUp == nil, "no timer is left")
        #expect(h.state.nodes["retry"]?.dueAt == nil)
        #expect(h.state.nodes["delay"]?.dueAt == nil)
    }

    @Test func aCancelledRunIgnoresEverythingThatComesLate() throws {
        var h = try Self.busy()
        h.send(.cancel(reason: "stop"))
        #expect(h.succeed("run", "late").isEmpty)
        #expect(h.fail("queued", "late").isEmpty)
        #expect(h.condition("cond", .succeeded(true)).isEmpty)
        #expect(h.started("queued").isEmpty)
        #expect(h.send(.progress(key: "run", attempt: 1, fraction: 1, message: nil)).isEmpty)
        #expect(h.advance(3600).isEmpty, "the retry and the delay do not fire")
        #expect(h.send(.start).isEmpty)
        #expect(h.send(.cancel(reason: "again")).isEmpty)
        #expect(h.state.status == .cancelled)
        #expect(h.state.error == "stop")
        #expect(h.state.nodes["run"]?.status == .cancelled)
        #expect(h.state.nodes["run"]?.output == nil)
    }

    @Test func cancelRacingTheLastResult() throws {
        // The cancel is handled first: the result that was on its way is ignored, the run stays cancelled.
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "input": {"$from": "a"}}}}"#))
        h.start()
        h.started("a")
        let cancel = h.send(.cancel(reason: "user"))
        #expect(cancel.cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(h.succeed("a", "result", attempt: 1).isEmpty)
        #expect(h.state.status == .cancelled)
        #expect(h.state.nodes["a"]?.status == .cancelled)
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(!h.log.dispatches.contains { $0.key == "b" })

        // The other order: the result first, then the cancel, which still ends the run cancelled.
        var g = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "input": {"$from": "a"}}}}"#))
        g.start()
        #expect(g.succeed("a", "result").dispatches.map(\.key) == ["b"])
        let late = g.send(.cancel(reason: "user"))
        #expect(late.cancelled == [TaskRef(key: "b", attempt: 1)])
        #expect(g.state.nodes["a"]?.status == .succeeded)
        #expect(g.state.status == .cancelled)
    }

    @Test func cancellingAFinishedRunChangesNothing() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        h.start()
        h.succeed("a", 1)
        #expect(h.send(.cancel(reason: "too late")).isEmpty)
        #expect(h.state.status == .succeeded)
        #expect(h.state.error == nil)
    }

    @Test func aCancelledRunIsNotAFailedOne() throws {
        // Even with a node that had failed before the cancel, the run ends cancelled.
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#))
        h.start()
        h.fail("a", "broke")
        #expect(h.state.status == .running)
        h.send(.cancel(reason: "enough"))
        #expect(h.state.status == .cancelled)
        #expect(h.state.error == "enough")
        #expect(h.state.nodes["a"]?.status == .failed)
    }

    /// A run the coordinator has not started yet (still `pending`) can be cancelled too: it must end `cancelled`.
    @Test
    func cancellingARunThatHasNotStarted() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        let out = h.send(.cancel(reason: "never mind"))
        #expect(h.state.nodes["a"]?.status == .cancelled)
        #expect(h.state.status == .cancelled)
        #expect(out.runStatuses == [.cancelled])
    }
}
