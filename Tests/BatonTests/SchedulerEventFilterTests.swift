import Baton
import Foundation
import Testing

@Suite("RunState: duplicate, stale and late events")
struct SchedulerEventFilterTests {
    static func twoNodes() throws -> Harness {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "input": {"$from": "a"}}}}"#))
        h.start()
        return h
    }

    @Test func duplicateResultsAreIgnored() throws {
        var h = try Self.twoNodes()
        #expect(h.succeed("a", "first", attempt: 1).dispatches.map(\.key) == ["b"])
        let before = h.state.nodes
        #expect(h.succeed("a", "second", attempt: 1).isEmpty)
        #expect(h.fail("a", "late failure", attempt: 1).isEmpty)
        #expect(h.state.nodes == before)
        #expect(h.state.nodes["a"]?.output == "first")
        #expect(h.state.nodes["b"]?.input == "first")
    }

    @Test("results of other attempts are ignored", arguments: [0, 2, 7])
    func staleAttemptsAreIgnored(attempt: Int) throws {
        var h = try Self.twoNodes()
        #expect(h.succeed("a", "stale", attempt: attempt).isEmpty)
        #expect(h.state.nodes["a"] == NodeState(status: .queued, attempt: 1, input: [:]))
        #expect(h.send(.started(key: "a", attempt: attempt, worker: "w9", at: nil)).isEmpty)
        #expect(h.state.nodes["a"]?.status == .queued)
        // The real attempt still counts.
        #expect(h.succeed("a", "real", attempt: 1).dispatches.first?.input == "real")
    }

    @Test func resultsForUnknownNodesAreIgnored() throws {
        var h = try Self.twoNodes()
        let before = h.state.nodes
        #expect(h.succeed("ghost", 1, attempt: 1).isEmpty)
        #expect(h.send(.started(key: "ghost", attempt: 1, worker: "w", at: nil)).isEmpty)
        #expect(h.state.nodes == before)
        #expect(h.state.nodes["ghost"] == nil)
    }

    @Test func resultsForNodesNotYetDispatchedAreIgnored() throws {
        var h = try Self.twoNodes()
        #expect(h.succeed("b", "too early", attempt: 1).isEmpty)
        #expect(h.state.nodes["b"]?.status == .pending)
    }

    @Test func startedMovesQueuedToRunningOnce() throws {
        var h = try Self.twoNodes()
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        let started = h.send(.started(key: "a", attempt: 1, worker: "worker-7", at: at))
        #expect(started.nodeChanges == [NodeChange(key: "a", status: .running, attempt: 1, worker: "worker-7", startedAt: at)])
        #expect(started.dispatches.isEmpty)
        #expect(started.runStatuses.isEmpty)
        #expect(h.state.nodes["a"]?.status == .running)
        #expect(h.state.nodes["a"]?.worker == "worker-7")
        // A duplicate report changes nothing (another worker starting it is a redelivery: LeaseTests).
        #expect(h.send(.started(key: "a", attempt: 1, worker: "worker-7", at: at)).isEmpty)
        #expect(h.state.nodes["a"]?.worker == "worker-7")

        // A result without a worker keeps the one that started the attempt.
        let done = h.send(
            .result(
                NodeResult(
                    key: "a", attempt: 1, outcome: .succeeded(1), worker: nil,
                    startedAt: at, finishedAt: at.addingTimeInterval(2))))
        #expect(
            done.changes(for: "a") == [
                NodeChange(
                    key: "a", status: .succeeded, attempt: 1, output: 1, worker: "worker-7",
                    startedAt: at, finishedAt: at.addingTimeInterval(2))
            ])
        #expect(h.state.nodes["a"]?.worker == "worker-7")
        // Started after the end is ignored.
        #expect(h.send(.started(key: "a", attempt: 1, worker: "w", at: nil)).isEmpty)
        #expect(h.state.nodes["a"]?.status == .succeeded)
    }

    @Test func eventsAfterTheRunEndedProduceNothing() throws {
        var h = try Self.twoNodes()
        h.succeed("a", 1)
        h.succeed("b", 2)
        #expect(h.state.status == .succeeded)
        let before = h.state.nodes
        #expect(h.start().isEmpty)
        #expect(h.succeed("a", 3, attempt: 1).isEmpty)
        #expect(h.succeed("b", 3, attempt: 2).isEmpty)
        #expect(h.send(.started(key: "b", attempt: 1, worker: "w", at: nil)).isEmpty)
        #expect(h.state.nodes == before)
        #expect(h.state.status == .succeeded)

        var failed = try Self.twoNodes()
        failed.fail("a", "x")
        #expect(failed.state.status == .failed)
        #expect(failed.start().isEmpty)
        #expect(failed.succeed("a", 1, attempt: 1).isEmpty)
    }
}
