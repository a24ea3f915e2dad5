import Baton
import BatonStore
import Foundation
import Testing

/// The fold both stores share (`StagedBatch`, `StagedNodeRow.merge`, `StoredRunNodes`), with no services.
@Suite("A commit is staged once for both stores")
struct StagedBatchTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let run = "00000000-0000-4000-8000-000000000001"

    func stage(_ commands: [SchedulerCommand], now: Date? = nil) throws -> StagedBatch {
        try StagedBatch([(run, commands)], now: now ?? self.now, dueText: { "due \($0.timeIntervalSince1970)" })
    }

    /// Two children of `parent`, as an expand carries them.
    static func fragment(_ parent: String) throws -> GroupSpec {
        let graph = try GraphDecoder().decode(try JSONParser.parse(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "q", "pool": "gpu"}}}"#))
        return GroupSpec(
            order: ["\(parent)/a", "\(parent)/b"], nodes: ["\(parent)/a": graph.nodes["a"]!, "\(parent)/b": graph.nodes["b"]!], output: nil)
    }

    @Test func aNodeQueuedStartedAndEndedInOneBatchIsOneRow() throws {
        var queued = NodeChange(key: "n", status: .queued, attempt: 1, input: ["x": 1])
        queued.attemptToken = AttemptToken(high: 1, low: 2)
        var failed = NodeChange(key: "n", status: .failed, attempt: 1, error: "bad\u{0}text", worker: "w1")
        failed.errorType = "Boom"
        failed.finishedAt = now.addingTimeInterval(5)
        let staged = try stage([.node(queued), .node(NodeChange(key: "n", status: .running, attempt: 1, worker: "w1")), .node(failed)])
        #expect(staged.rows.count == 1)
        let row = try #require(staged.rows.first)
        #expect(row.status == .failed && row.attempts == 1 && !row.isInserted)
        #expect(row.setInput && row.input == ["x": 1])
        #expect(row.setToken && row.attemptToken == AttemptToken(high: 1, low: 2).text, "the token stays through start and end")
        #expect(row.error == "badtext", "a NUL is dropped")
        #expect(row.errorType == "Boom" && row.worker == "w1")
        #expect(row.queuedAt == now && row.startedAt == now && row.finishedAt == now.addingTimeInterval(5))
        #expect(staged.events.map(\.kind) == [.queued, .started, .failed])
        #expect(staged.events.map(\.at) == [now, now, now.addingTimeInterval(5)])
        #expect(staged.events[2].detail["error"] == "badtext")
        #expect(!staged.queues && staged.runs.isEmpty && staged.prunes.isEmpty && !staged.isEmpty)
    }

    /// A reset clears what came before it in the batch (worker, times, output); what comes after lands.
    @Test func aResetClearsWhatCameBeforeIt() throws {
        var ended = NodeChange(key: "n", status: .succeeded, attempt: 1, output: ["old": true], worker: "w1")
        ended.startedAt = now
        var again = NodeChange(key: "n", status: .pending, attempt: 1)
        again.reset = true
        var waiting = NodeChange(key: "n", status: .waiting, attempt: 1, event: .retrying, dueAt: now.addingTimeInterval(60))
        waiting.bookkeeping = ["phase": "x"]
        let row = try #require(try stage([.node(ended), .node(again), .node(waiting)]).rows.first)
        #expect(row.reset && !row.setOutput && row.output == nil)
        #expect(row.worker == nil && row.startedAt == nil && row.finishedAt == nil)
        #expect(row.dueAt == now.addingTimeInterval(60) && row.scheduler == ["phase": "x"])
        let events = try stage([.node(waiting)]).events
        #expect(events.map(\.kind) == [.retrying])
        #expect(events[0].detail["due_at"] == .string("due \(now.timeIntervalSince1970 + 60)"), "the due time is written by the store's dueText")
    }

    /// Children expanded, pruned and expanded again in one batch: only the last children are inserted,
    /// every prune is kept (the store deletes stored children it does not insert), the parent carries
    /// the last fragment.
    @Test func childrenExpandedAndPrunedInOneBatchKeepTheLastOnes() throws {
        let fragment = try Self.fragment("m")
        var started = NodeChange(key: "m", status: .running, attempt: 1)
        started.startedAt = now
        let expanded = try stage([.node(started), .expand(parent: "m", fragment: fragment, position: 3)])
        #expect(expanded.rows.map(\.key) == ["m", "m/a", "m/b"])
        #expect(expanded.rows.map(\.isInserted) == [false, true, true])
        #expect(expanded.rows[2].procedure == "q" && expanded.rows[2].pool == "gpu" && expanded.rows[2].position == 4)
        let encoded = try JSON(encoding: fragment)
        #expect(expanded.rows[0].setFragment && expanded.rows[0].fragment == encoded)
        #expect(expanded.prunes == [StagedBatch.Prune(runID: run, prefix: "m/")])

        let pruned = try stage([
            .node(started), .expand(parent: "m", fragment: fragment, position: 3), .node(NodeChange(key: "m/a", status: .queued, attempt: 1)),
            .node(NodeChange(key: "m", status: .pending, attempt: 1)), .prune(parent: "m"),
        ])
        #expect(pruned.rows.map(\.key) == ["m"])
        #expect(pruned.rows[0].setFragment && pruned.rows[0].fragment == .null)
        #expect(pruned.prunes.count == 2)
        #expect(pruned.events.map(\.node) == ["m", "m/a", "m"], "events of children pruned later stay: they happened")

        let again = try stage([
            .node(started), .expand(parent: "m", fragment: fragment, position: 3), .prune(parent: "m"),
            .expand(parent: "m", fragment: fragment, position: 3),
        ])
        #expect(again.rows.map(\.key) == ["m", "m/a", "m/b"] && again.rows[1].isInserted)
        // A fragment of a parent the batch did not change is not written.
        #expect(try stage([.expand(parent: "m", fragment: fragment, position: 0)]).rows.map(\.key) == ["m/a", "m/b"])
    }

    @Test func runStatusesDispatchesAndCacheEntries() throws {
        #expect(try stage([]).isEmpty)
        #expect(try stage([.release(key: "a")]).isEmpty, "holds reach the stores as HoldChanges")
        let lookup = CacheLookup(procedure: "p", input: "{}", ttl: 60)
        let staged = try stage([
            .runStatus(.running, error: nil), .event(key: "a", kind: .progress, detail: ["pct": 5]), .runStatus(.failed, error: "boom"),
            .cacheStore(key: "a", lookup: lookup, output: [1]),
        ])
        #expect(staged.runs == [StagedBatch.RunChange(runID: run, status: .failed, error: "boom")])
        #expect(staged.events.map(\.kind) == [.runRunning, .progress, .runFailed])
        #expect(staged.events[2].detail == ["status": "failed", "error": "boom"] && staged.events[2].node == nil)
        #expect(staged.cacheEntries == [StagedBatch.CacheEntry(runID: run, node: "a", lookup: lookup, output: [1])])
        #expect(!staged.queues)
    }

    /// Rows as PostgreSQL gives them (text) and as the twin keeps them (values) read the same.
    @Test func aStoredRowReadsTheSameFromTextOrValue() throws {
        let graph = try GraphDecoder().decode(try JSONParser.parse(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#))
        func load(_ json: (JSON) -> StoredJSON) throws -> RunState {
            var nodes = StoredRunNodes(runID: run)
            try nodes.add(
                StoredNode(
                    key: "b", status: "queued", attempts: 2, input: json(["n": 1]), output: nil, error: nil, worker: nil,
                    scheduler: json(["runs": 1]), fragment: nil, attemptToken: AttemptToken(high: 3, low: 4).text, confirmed: true))
            try nodes.add(
                StoredNode(
                    key: "a", status: "succeeded", attempts: 1, input: json(["n": 2]), output: json(["ok": true]), error: nil, worker: "w",
                    scheduler: nil, fragment: nil, attemptToken: nil, confirmed: true))
            return try nodes.runState(graph: graph, status: .running, error: nil)
        }
        let fromText = try load { .text($0.serialized()) }
        let fromValue = try load { .value($0) }
        #expect(fromText.nodes == fromValue.nodes)
        #expect(fromText.graph.order == ["b", "a"], "the rows' order")
        #expect(fromText.nodes["b"]?.input == ["n": 1] && fromText.nodes["b"]?.publishedAttempt == 2)
        #expect(fromText.nodes["b"]?.attemptToken == AttemptToken(high: 3, low: 4))
        #expect(fromText.nodes["a"]?.input == nil, "only a queued node's input is kept")
        #expect(fromText.nodes["a"]?.publishedAttempt == nil && fromText.nodes["a"]?.output == ["ok": true])
    }

    @Test func aRowThatCannotBeReadNamesTheRunAndNode() throws {
        func failure(_ row: StoredNode) -> String {
            var nodes = StoredRunNodes(runID: run)
            do { try nodes.add(row) } catch let error as StoreError { return error.message } catch { return "\(error)" }
            return "read"
        }
        func row(status: String = "pending", output: StoredJSON? = nil, fragment: StoredJSON? = nil) -> StoredNode {
            StoredNode(
                key: "a", status: status, attempts: 0, input: nil, output: output, error: nil, worker: nil, scheduler: nil, fragment: fragment,
                attemptToken: nil, confirmed: false)
        }
        #expect(failure(row(status: "lost")) == "run \(run): node 'a' has unknown status 'lost'")
        #expect(failure(row(output: .text("{"))).hasPrefix("run \(run): node 'a' cannot be read: "))
        #expect(failure(row(fragment: .text("[]"))).hasPrefix("run \(run): the children of node 'a' cannot be read: "))
        let graph = try GraphDecoder().decode(try JSONParser.parse(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        var nodes = StoredRunNodes(runID: run)
        try nodes.add(row())
        var stray = row()
        stray.key = "z"
        try nodes.add(stray)
        #expect(throws: StoreError.self) { try nodes.runState(graph: graph, status: .running, error: nil) }
    }
}
