import Baton
import Foundation
import Testing

@Suite("RunState: retrying a finished run")
struct RetryRunTests {
    static let chain = #"""
        {"nodes": {
          "a": {"procedure": "p"},
          "b": {"procedure": "p", "input": {"$from": "a"}},
          "c": {"procedure": "p", "input": {"$from": "b"}},
          "side": {"procedure": "p"}}}
        """#

    @Test func failedAndCancelledNodesRunAgainWithStoredOutputs() throws {
        var h = Harness(try graph(Self.chain))
        h.start()
        h.succeed("a", "A")
        h.succeed("side", "S")
        h.fail("b", "broke")
        #expect(h.state.status == .failed)
        #expect(h.state.nodes["c"]?.status == .cancelled)

        let out = h.send(.retry(from: nil))
        #expect(out.runStatuses == [.running])
        #expect(h.state.status == .running)
        #expect(h.state.error == nil)
        // b and c are reset, then b runs at once with a's stored output.
        #expect(
            out.changes(for: "b") == [
                NodeChange(key: "b", status: .pending, attempt: 1, event: .reset),
                NodeChange(key: "b", status: .queued, attempt: 2, input: "A"),
            ])
        #expect(out.changes(for: "c") == [NodeChange(key: "c", status: .pending, attempt: 0, event: .reset)])
        let resets = out.compactMap { c -> NodeChange? in
            if case let .node(n) = c, n.event == .reset { return n }; return nil
        }
        #expect(resets.map(\.key) == ["b", "c"])
        #expect(resets.allSatisfy { $0.reset })
        #expect(out.changes(for: "a").isEmpty)
        #expect(out.changes(for: "side").isEmpty)
        #expect(out.dispatches == [TaskDispatch(runID: "run-1", key: "b", attempt: 2, procedure: "p", input: "A", pool: "default", priority: 0)])

        // A late report of the attempt that failed is stale.
        #expect(h.succeed("b", "old", attempt: 1).isEmpty)
        let b = h.succeed("b", "B", attempt: 2)
        #expect(b.dispatches.map(\.key) == ["c"])
        #expect(b.dispatches.first?.attempt == 1)
        #expect(b.dispatches.first?.input == "B")
        let end = h.succeed("c", "C")
        #expect(end.runStatuses == [.succeeded])
        #expect(h.state.nodes["a"]?.output == "A")
        #expect(h.state.nodes["a"]?.attempt == 1)
        #expect(h.log.dispatches.filter { $0.key == "a" }.count == 1, "a is not run again")
    }

    @Test func fromANodeRerunsItAndEverythingDownstream() throws {
        var h = Harness(try graph(Self.chain))
        h.start()
        h.succeed("a", "A")
        h.succeed("side", "S")
        h.succeed("b", "B1")
        h.fail("c", "bad input")
        #expect(h.state.status == .failed)

        let out = h.send(.retry(from: "b"))
        #expect(Set(out.nodeChanges.filter { $0.event == .reset }.map(\.key)) == ["b", "c"])
        #expect(out.dispatches.map(\.key) == ["b"])
        #expect(out.dispatches.first?.attempt == 2)
        #expect(out.dispatches.first?.input == "A")
        #expect(h.state.nodes["b"]?.output == nil, "the old output is gone")
        #expect(h.state.nodes["c"]?.status == .pending)
        #expect(h.state.nodes["c"]?.error == nil)
        let c = h.succeed("b", "B2")
        #expect(c.dispatches.first?.key == "c")
        #expect(c.dispatches.first?.attempt == 2)
        #expect(c.dispatches.first?.input == "B2")
        h.succeed("c", "C")
        #expect(h.state.status == .succeeded)
    }

    @Test func fromANodeOfACancelledRunAlsoRerunsTheCancelledNodesItNeeds() throws {
        var h = Harness(try graph(Self.chain))
        h.start()
        h.succeed("side", "S")
        h.started("a")
        h.send(.cancel(reason: "oops"))
        #expect(h.state.status == .cancelled)

        // b needs a, which was cancelled too: a is rerun first, or b would be cancelled again at once.
        let out = h.send(.retry(from: "b"))
        #expect(out.nodeChanges.filter { $0.event == .reset }.map(\.key) == ["a", "b", "c"])
        #expect(out.dispatches.map(\.key) == ["a"])
        #expect(h.state.nodes["b"]?.status == .pending)
        #expect(h.state.status == .running)
        h.succeed("a", "A")
        h.succeed("b", "B")
        h.succeed("c", "C")
        #expect(h.state.status == .succeeded)
        #expect(h.log.dispatches.filter { $0.key == "side" }.count == 1, "side is not run again")
    }

    @Test func fromANodeRerunsTheFailedNodesItNeedsTransitivelyAndWhatTheyBroughtDown() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "root": {"procedure": "p"},
              "a": {"procedure": "p", "input": {"$from": "root"}},
              "b": {"procedure": "p", "input": {"$from": "a"}},
              "sibling": {"procedure": "p", "after": ["a"]},
              "ok": {"procedure": "p"}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("ok", 1)
        h.fail("root", "down")
        #expect(h.state.nodes["a"]?.status == .cancelled)
        #expect(h.state.nodes["sibling"]?.status == .cancelled)

        #expect(try h.state.nodesToRetry(from: "b") == ["root", "a", "b", "sibling"])
        let out = h.send(.retry(from: "b"))
        #expect(out.nodeChanges.filter { $0.event == .reset }.map(\.key) == ["root", "a", "b", "sibling"])
        #expect(out.dispatches.map(\.key) == ["root"])
        h.succeed("root", 1)
        h.succeed("a", 2)
        h.succeed("b", 3)
        h.succeed("sibling", 4)
        #expect(h.state.status == .succeeded)
        #expect(h.state.nodes["ok"]?.attempt == 1)
    }

    @Test func fromANodeIsRefusedWhenAFailureItDoesNotRerunWouldFailTheRunAgain() throws {
        var h = Harness(try graph(Self.chain))
        h.start()
        h.succeed("a", "A")
        h.fail("side", "broke")
        h.fail("b", "broke too")
        #expect(h.state.status == .failed)

        #expect(throws: RetryRefusal.self) { try h.state.nodesToRetry(from: "b") }
        do {
            _ = try h.state.nodesToRetry(from: "b")
        } catch {
            #expect(
                error.description == "node 'side' failed and would not run again, so the run could not succeed; retry without --from to rerun it too")
        }
        #expect(h.send(.retry(from: "b")).isEmpty)
        #expect(h.state.status == .failed)
        #expect(h.state.nodes["b"]?.status == .failed)
        // Without --from every failure runs again.
        #expect(try h.state.nodesToRetry(from: nil) == ["b", "c", "side"])
    }

    @Test func aFailureThatIsIgnoredDoesNotStandInTheWay() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "input": {"$from": "a"}},
              "flaky": {"procedure": "p", "on_failure": "ignore"}}}
            """#)
        var h = Harness(g)
        h.start()
        h.fail("flaky", "meh")
        h.succeed("a", 1)
        h.fail("b", "broke")
        #expect(try h.state.nodesToRetry(from: "b") == ["b"])
    }

    @Test func aCancelledRunRunsAgainAndItsOldAttemptsStayStale() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "after": ["a"]}}}"#))
        h.start()
        h.started("a")
        h.send(.cancel(reason: "oops"))
        #expect(h.state.status == .cancelled)

        let out = h.send(.retry(from: nil))
        #expect(out.runStatuses == [.running])
        #expect(out.dispatches.map(\.key) == ["a"])
        #expect(out.dispatches.first?.attempt == 2)
        // The cancelled attempt 1 reports after all.
        #expect(h.succeed("a", "old", attempt: 1).isEmpty)
        #expect(h.state.nodes["a"]?.status == .queued)
        h.succeed("a", "new", attempt: 2)
        h.succeed("b", nil)
        #expect(h.state.status == .succeeded)
        #expect(h.state.error == nil)
    }

    @Test func retryCountersStartOverButAttemptNumbersKeepGoing() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 2, "wait": {"constant": "1s"}}}}}"#))
        h.start()
        h.fail("a", "1", permanent: false)
        h.advance(1)
        h.fail("a", "2", permanent: false)
        #expect(h.state.status == .failed)
        #expect(h.state.nodes["a"]?.failures == 2)

        #expect(h.send(.retry(from: nil)).dispatches.map(\.attempt) == [3])
        #expect(h.state.nodes["a"]?.failures == 0)
        h.fail("a", "3", permanent: false)
        #expect(h.state.nodes["a"]?.status == .waiting, "the policy allows a second attempt again")
        #expect(h.advance(1).dispatches.map(\.attempt) == [4])
        h.succeed("a", "ok")
        #expect(h.state.status == .succeeded)
    }

    @Test func failedCancelledAndDependencySkippedNodesAreResetButAWhenSkipIsNot() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "input": {"$from": "a"}},
              "gate": {"procedure": "p", "when": false},
              "after": {"procedure": "p", "after": ["gate"]},
              "ok": {"procedure": "p"}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("ok", 1)
        h.fail("a", "down")
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(h.state.nodes["gate"]?.status == .skipped)
        #expect(h.state.nodes["after"]?.error == "dependency 'gate' was skipped")
        #expect(h.state.status == .failed)

        let out = h.send(.retry(from: nil))
        #expect(out.nodeChanges.filter { $0.event == .reset }.map(\.key) == ["a", "b", "after"])
        #expect(out.dispatches.map(\.key) == ["a"])
        #expect(h.state.nodes["gate"]?.status == .skipped)
        #expect(h.state.nodes["gate"]?.error == "when is false, not true")
        #expect(h.state.nodes["ok"]?.status == .succeeded)
        // after is decided again at once: its dependency is still skipped.
        #expect(h.state.nodes["after"]?.status == .skipped)
        h.succeed("a", 2)
        h.succeed("b", 3)
        #expect(h.state.status == .succeeded)
    }

    @Test func retryOnlyAppliesToAFailedOrCancelledRun() throws {
        var running = Harness(try graph(Self.chain))
        running.start()
        #expect(running.send(.retry(from: nil)).isEmpty)
        #expect(running.send(.retry(from: "a")).isEmpty)
        #expect(running.state.nodes["a"]?.attempt == 1)

        var succeeded = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        succeeded.start()
        succeeded.succeed("a", 1)
        #expect(succeeded.send(.retry(from: nil)).isEmpty)
        #expect(succeeded.state.status == .succeeded)

        var failed = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        failed.start()
        failed.fail("a", "x")
        #expect(failed.send(.retry(from: "nope")).isEmpty, "an unknown node")
        #expect(failed.state.status == .failed)
    }

    @Test func aRetriedRunSurvivesARestart() throws {
        var h = Harness(try graph(Self.chain))
        h.start()
        h.succeed("a", "A")
        h.succeed("side", "S")
        h.fail("b", "broke")
        h.send(.retry(from: nil))
        var resumed = Harness(state: try rebuilt(h.state))
        let again = resumed.start()
        #expect(again.dispatches.map(\.key) == ["b"])
        #expect(again.dispatches.first?.attempt == 2)
        #expect(again.dispatches.first?.input == "A")
    }
}
