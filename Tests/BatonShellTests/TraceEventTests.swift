import Baton
import Foundation
import Testing

@testable import BatonCoordinator

@Suite("TraceEvent: what committed commands mean for a run's spans")
struct TraceEventTests {
    @Test func anAttemptEndsWhenItsNodeLeavesQueuedOrRunningAndTheRunEndsWithItsStatus() {
        var retry = NodeChange(key: "c", status: .waiting, attempt: 1, error: "flaky once", event: .retrying)
        retry.finishedAt = Date(timeIntervalSince1970: 1)
        let events = TraceEvent.events(of: [
            .node(NodeChange(key: "a", status: .queued, attempt: 1)),
            .dispatch(TaskDispatch(runID: "r", key: "a", attempt: 1, procedure: "baton.echo", input: .null, pool: "default", priority: 0)),
            .node(NodeChange(key: "a", status: .running, attempt: 1, worker: "w1")),
            .node(NodeChange(key: "a", status: .succeeded, attempt: 1, worker: "w1")),
            .node(retry),
            .node(NodeChange(key: "d", status: .failed, attempt: 1, error: "boom", worker: "w2", event: .timedOut)),
            .node(NodeChange(key: "e", status: .waiting, attempt: 0, event: .delay)),
            .node(NodeChange(key: "f", status: .pending, attempt: 2, event: .reset)),
            .runStatus(.running, error: nil),
            .runStatus(.failed, error: "d failed"),
        ])
        #expect(
            events == [
                .attemptRunning(key: "a", worker: "w1"),
                .attemptEnded(key: "a", outcome: .succeeded, error: nil, worker: "w1"),
                .attemptEnded(key: "c", outcome: .retrying, error: "flaky once", worker: nil),
                .attemptEnded(key: "d", outcome: .timedOut, error: "boom", worker: "w2"),
                // A node waiting before its first dispatch has no span to end: the tracer ignores it.
                .attemptEnded(key: "e", outcome: .delay, error: nil, worker: nil),
                .attemptEnded(key: "f", outcome: .reset, error: nil, worker: nil),
                .runEnded(.failed, error: "d failed"),
            ])
    }

    @Test func aQueuedNodeStartsNoSpanHereAndARunningRunEndsNothing() {
        #expect(TraceEvent.events(of: [.node(NodeChange(key: "a", status: .queued, attempt: 1)), .runStatus(.running, error: nil)]).isEmpty)
    }
}
