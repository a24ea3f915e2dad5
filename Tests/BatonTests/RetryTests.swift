import Baton
import Foundation
import Testing

@Suite("RunState: retry")
struct RetryTests {
    static let text = #"""
        {"nodes": {
          "x": {"procedure": "p"},
          "a": {"procedure": "p", "input": {"n": {"$from": "x"}}, "retry": {"attempts": 3, "wait": {"constant": "10s"}}},
          "b": {"procedure": "p", "input": {"$from": "a"}}}}
        """#

    static func atA() throws -> Harness {
        var h = Harness(try graph(text))
        h.start()
        #expect(h.succeed("x", 1).dispatches.map(\.key) == ["a"])
        return h
    }

    @Test func aFailedAttemptWaitsThenRunsAgainWithTheSameInput() throws {
        var h = try Self.atA()
        let failed = h.fail("a", "e1", permanent: false)
        #expect(failed.dispatches.isEmpty)
        #expect(
            failed.changes(for: "a") == [
                NodeChange(key: "a", status: .running, attempt: 1, worker: "w"),
                NodeChange(
                    key: "a", status: .waiting, attempt: 1, error: "e1", finishedAt: h.now, event: .retrying,
                    dueAt: h.now.addingTimeInterval(10)),
            ])
        let a = try #require(h.state.nodes["a"])
        #expect(a.status == .waiting)
        #expect(a.waitingFor == .retry)
        #expect(a.failures == 1)
        #expect(a.error == "e1")
        #expect(a.dueAt == h.now.addingTimeInterval(10))
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(10))
        #expect(h.state.status == .running)
        #expect(h.state.nodes["b"]?.status == .pending)

        // The bookkeeping says why and until when the node waits.
        let bookkeeping = try #require(
            failed.compactMap { c -> JSON? in
                if case let .node(change) = c, change.key == "a", change.status == .waiting { return change.bookkeeping }
                return nil
            }.first)
        #expect(bookkeeping["waiting_for"] == "retry")
        #expect(bookkeeping["failures"] == 1)
        #expect(bookkeeping["due_at"]?.numberValue == 1_000_010)

        let due = h.now.addingTimeInterval(10)
        #expect(h.advance(to: due.addingTimeInterval(-0.001)).isEmpty, "a tick before the due time does nothing")
        #expect(h.state.nodes["a"]?.status == .waiting)

        let again = h.advance(to: due)
        #expect(
            again.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "a", attempt: 2, procedure: "p", input: ["n": 1],
                    pool: "default", priority: 0)
            ])
        #expect(again.changes(for: "a") == [NodeChange(key: "a", status: .queued, attempt: 2, input: ["n": 1])])
        #expect(h.state.nodes["a"]?.error == nil)
        #expect(h.state.nodes["a"]?.dueAt == nil)
        #expect(h.state.nodes["a"]?.waitingFor == nil)
        #expect(h.state.nextWakeUp == nil)

        let done = h.succeed("a", "A")
        #expect(done.dispatches.map(\.key) == ["b"])
        #expect(done.dispatches.first?.input == "A")
        h.succeed("b", "B")
        #expect(h.state.status == .succeeded)
    }

    @Test func theFirstQueueStartsAfreshAndARetryDoesNot() throws {
        var h = try Self.atA()
        let firstQueue = h.log.compactMap { c -> NodeChange? in
            if case let .node(change) = c, change.key == "a", change.status == .queued { return change }
            return nil
        }
        #expect(firstQueue.map(\.reset) == [true])
        h.fail("a", "e1", permanent: false)
        let retried = h.advance(10).compactMap { c -> NodeChange? in
            if case let .node(change) = c { return change }; return nil
        }
        #expect(retried.map(\.reset) == [false])
    }

    @Test func attemptsCountEveryAttemptTheFirstIncluded() throws {
        var h = try Self.atA()
        h.fail("a", "e1", permanent: false)
        h.advance(10)
        h.fail("a", "e2", permanent: false)
        #expect(h.state.nodes["a"]?.failures == 2)
        #expect(h.advance(10).dispatches.map(\.attempt) == [3])
        let last = h.fail("a", "e3", permanent: false)
        #expect(last.changes(for: "a").last == NodeChange(key: "a", status: .failed, attempt: 3, error: "e3", worker: "w"))
        #expect(h.state.nodes["a"]?.failures == 3)
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.status == .failed)
        #expect(h.state.error == "node 'a' failed: e3")
        #expect(h.log.dispatches.filter { $0.key == "a" }.map(\.attempt) == [1, 2, 3])
        #expect(h.state.nextWakeUp == nil)
    }

    @Test func aPermanentFailureStopsRetryingAtOnce() throws {
        var h = try Self.atA()
        h.fail("a", "e1", permanent: false)
        h.advance(10)
        let failed = h.fail("a", "fatal", permanent: true)
        #expect(failed.changes(for: "a").map(\.status) == [.running, .failed])
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.nodes["a"]?.error == "fatal")
        #expect(h.state.nodes["a"]?.dueAt == nil)
        #expect(h.state.status == .failed)
        #expect(h.advance(100).isEmpty)
    }

    @Test func oneAttemptMeansNoRetry() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 1, "wait": {"constant": "1s"}}}}}"#))
        h.start()
        h.fail("a", "once", permanent: false)
        #expect(h.state.nodes["a"]?.status == .failed)
        #expect(h.state.status == .failed)
    }

    @Test func aWaitingRetryHoldsNoWorkerAndOthersGoOn() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p", "retry": {"attempts": 2, "wait": {"constant": "1h"}}},
                       "b": {"procedure": "p"}, "c": {"procedure": "p", "after": ["b"]}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("a", "later", permanent: false)
        #expect(h.state.nodes["a"]?.status == .waiting)
        // Nothing is out for a: no attempt is queued or running, so no worker slot is taken.
        #expect(h.state.counts[.queued, default: 0] + h.state.counts[.running, default: 0] == 1, "only b is out")
        #expect(h.succeed("b", 1).dispatches.map(\.key) == ["c"])
        h.succeed("c", 2)
        #expect(h.state.status == .running, "a still waits")
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(3600))
        h.advance(3600)
        h.succeed("a", 3)
        #expect(h.state.status == .succeeded)
    }

    @Test func staleAttemptsDuringRetryAreIgnored() throws {
        var h = try Self.atA()
        h.started("a")
        h.fail("a", "e1", permanent: false)
        // A duplicate report of attempt 1 while waiting.
        #expect(h.succeed("a", "late", attempt: 1).isEmpty)
        #expect(h.fail("a", "late", attempt: 1).isEmpty)
        #expect(h.state.nodes["a"]?.status == .waiting)
        h.advance(10)
        #expect(h.state.nodes["a"]?.attempt == 2)
        // Attempt 1 reports again after attempt 2 was queued.
        #expect(h.send(.started(key: "a", attempt: 1, worker: "old", at: nil)).isEmpty)
        #expect(h.succeed("a", "late", attempt: 1).isEmpty)
        #expect(h.send(.progress(key: "a", attempt: 1, fraction: 0.5, message: nil)).isEmpty)
        #expect(h.state.nodes["a"]?.status == .queued)
        #expect(h.state.nodes["a"]?.output == nil)
        let done = h.succeed("a", "current", attempt: 2)
        #expect(done.dispatches.first?.input == "current")
        #expect(h.state.nodes["a"]?.output == "current")
    }

    @Test func immediateRetryIsDueAtOnceButWaitsForATick() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 2}}}}"#))
        #expect(h.state.graph.nodes["a"]?.policies.retry == RetryPolicy(attempts: 2, wait: .immediate, jitter: false))
        h.start()
        let failed = h.fail("a", "e1", permanent: false)
        #expect(failed.dispatches.isEmpty)
        #expect(h.state.nodes["a"]?.dueAt == h.now)
        #expect(h.state.nextWakeUp == h.now)
        #expect(h.advance(0).dispatches.map(\.attempt) == [2])
    }
}
