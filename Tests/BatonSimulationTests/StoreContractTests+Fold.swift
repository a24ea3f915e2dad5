import Baton
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// The contract of the shared fold (`StagedBatch`): batches that change a node's children and reset
/// it within one commit are stored, and loaded back, the same on the real `Store` and on `MemoryStore`.
extension StoreContractTests {
    /// In one batch a node expands, a child is queued, the node is pruned and reset, and it expands
    /// again; the next batch ends a child, resets another and writes a cache entry and an event; the
    /// last one prunes children the batch did not touch. Each state loaded, every event and every
    /// column of every row (each of `NodeColumn.all`, so a new column is compared too) agree.
    @Test func childrenChangedAndResetWithinOneCommitAreStoredTheSame() throws {
        let graph = try Self.graph(#"{"nodes": {"m": {"procedure": "p"}, "x": {"procedure": "p"}}}"#)
        let children = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "q", "pool": "gpu", "input": {"$from": "a"}}}}"#)
        let fragment = GroupSpec(order: ["m/a", "m/b"], nodes: ["m/a": children.nodes["a"]!, "m/b": children.nodes["b"]!], output: nil)
        var seen: [[String]] = []
        var states: [[RunSnapshot]] = []
        try Self.onBoth(graph) { backend, id in
            var now = Date(timeIntervalSince1970: 1_800_000_000.25)
            var loaded: [RunSnapshot] = []
            var rows: [String] = []  // every column of every row after each batch
            func apply(_ commands: [SchedulerCommand]) throws {
                _ = try backend.store.apply([(id, commands)], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: now)
                now = now.addingTimeInterval(1.5)
                loaded.append(RunSnapshot(try #require(try backend.store.loadRun(id)), numbered: false))
                rows += try backend.columns(id)
            }
            var queued = NodeChange(key: "m/a", status: .queued, attempt: 1, input: ["n": 1])
            queued.attemptToken = AttemptToken(high: 5, low: 6)
            var reset = NodeChange(key: "m", status: .pending, attempt: 1)
            reset.reset = true
            try apply([
                .runStatus(.running, error: nil), .node(NodeChange(key: "m", status: .running, attempt: 1, worker: "w1")),
                .expand(parent: "m", fragment: fragment, position: 2), .node(queued), .prune(parent: "m"), .node(reset),
                .node(NodeChange(key: "m", status: .running, attempt: 2, worker: "w2")),
                .expand(parent: "m", fragment: fragment, position: 2), .node(queued),
                .node(NodeChange(key: "x", status: .succeeded, attempt: 1, output: ["x": true], worker: "w1")),
            ])
            var done = NodeChange(key: "m/a", status: .succeeded, attempt: 1, output: ["a": 1], worker: "w3")
            done.finishedAt = now
            var again = NodeChange(key: "x", status: .pending, attempt: 1)
            again.reset = true
            try apply([
                .node(NodeChange(key: "m/a", status: .running, attempt: 1, worker: "w3")), .node(done), .node(again),
                .event(key: "m/a", kind: .progress, detail: ["pct": 50]),
                .cacheStore(key: "m/a", lookup: CacheLookup(procedure: "p", input: "{\"n\":1}", ttl: 60), output: ["a": 1]),
            ])
            try apply([.node(NodeChange(key: "m", status: .waiting, attempt: 2, error: "again", event: .retrying, dueAt: now)), .prune(parent: "m")])
            seen.append(try backend.events(id) + backend.nodeErrors(id) + rows)
            states.append(loaded)
        }
        #expect(states[0] == states[1], "every node's state, its worker included")
        for (i, (a, b)) in zip(states[0], states[1]).enumerated() where a != b {
            Issue.record("state \(i) differs:\n postgres: \(a)\n memory:   \(b)")
        }
        #expect(seen[0] == seen[1])
        for (a, b) in zip(seen[0], seen[1]) where a != b { Issue.record("postgres: \(a)\n memory:   \(b)") }
        #expect(seen[0].contains("m/a attempt_token \(AttemptToken(high: 5, low: 6).text)"), "the columns are really compared")
        #expect(seen[0].contains("m worker w2") && seen[0].contains("x worker NULL"), "a reset clears the worker")
        let lines = states[0].map(\.description)
        #expect(lines.count == 3)
        #expect(lines[0].contains("m/a: queued #1") && lines[0].contains("m/b: pending"), "\(lines)")
        #expect(lines[1].contains("m/a: succeeded #1") && lines[1].contains("x: pending"), "\(lines)")
        #expect(states[0][1].nodes["x"]?.worker == nil && states[0][1].nodes["m"]?.worker == "w2", "a reset clears the worker before it, not after")
        #expect(!lines[2].contains("m/a") && lines[2].contains("m: waiting #2"), "\(lines)")
    }
}
