import Baton
import BatonStore
import Foundation
import Testing

/// The columns both stores write (`NodeColumn.all`) and their update rules, with no services.
@Suite("Each node column is written by one rule for both stores")
struct NodeColumnTests {
    let run = "00000000-0000-4000-8000-000000000001"
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The staged row of `changes` to node `n`.
    func staged(_ changes: NodeChange...) throws -> StagedNodeRow {
        let batch = try StagedBatch([(run, changes.map { .node($0) })], now: now, dueText: { "\($0)" })
        return try #require(batch.rows.first)
    }

    /// `name`'s new value over `stored`, by its rule, for the staged row `row`.
    func updated(_ name: String, over stored: ColumnValue?, by row: StagedNodeRow) -> ColumnValue? {
        let column = NodeColumn.all[NodeColumn.index(name)]
        return column.updated(stored, staged: column.value(row), by: row)
    }

    @Test func everyColumnIsNamedOnceAndEveryFlagIsUsed() {
        let names = NodeColumn.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(!names.contains("run_id") && !names.contains("key") && !names.contains("dispatch_batch"), "those the stores write themselves")
        let flags = Set(NodeColumn.all.compactMap { if case let .replaceIf(flag, _) = $0.update { flag } else { nil } })
        #expect(flags.union([.reset]) == Set(NodeFlag.allCases))
    }

    @Test func aStatusIsReplacedAWorkerKeptAndAResetClearsWhatCameBefore() throws {
        let running = try staged(NodeChange(key: "n", status: .running, attempt: 2))
        #expect(updated("status", over: .text("queued"), by: running) == .text("running"))
        #expect(updated("worker", over: .text("w1"), by: running) == .text("w1"), "no worker in the batch: the stored one stays")
        #expect(updated("error", over: .text("old"), by: running) == nil, "replaced, nil clearing it")
        #expect(updated("procedure", over: .text("p"), by: running) == .text("p"), "inserted only")
        var reset = NodeChange(key: "n", status: .pending, attempt: 2)
        reset.reset = true
        let again = try staged(reset)
        #expect(updated("worker", over: .text("w1"), by: again) == nil)
        #expect(updated("output", over: .json(["a": 1]), by: again) == nil)
        #expect(updated("started_at", over: .time(now), by: again) == nil)
        #expect(updated("queued_at", over: .time(now), by: again) == .time(now), "not cleared by a reset")
        #expect(updated("input", over: .json(["x": 1]), by: again) == .json(["x": 1]), "no input set: kept")
    }

    @Test func aFlaggedColumnIsReplacedOnlyWhenItsFlagIsSet() throws {
        var queued = NodeChange(key: "n", status: .queued, attempt: 1, input: ["x": 2])
        queued.attemptToken = AttemptToken(high: 1, low: 2)
        let row = try staged(queued)
        #expect(updated("input", over: .json(["x": 1]), by: row) == .json(["x": 2]))
        #expect(updated("attempt_token", over: .text("old"), by: row) == .text(AttemptToken(high: 1, low: 2).text))
        let ended = try staged(NodeChange(key: "n", status: .succeeded, attempt: 1, output: .null))
        #expect(updated("output", over: .json(["a": 1]), by: ended) == nil, "JSON null is stored as NULL")
        #expect(updated("attempt_token", over: .text("old"), by: ended) == .text("old"))
    }

    @Test func aRowInsertedTakesTheDefaultsWhereTheBatchHasNoValue() throws {
        let row = try staged(NodeChange(key: "n", status: .pending, attempt: 0))
        let inserted = NodeColumn.all.map { ($0.name, $0.inserted(row)) }
        #expect(inserted.first { $0.0 == "scheduler" }?.1 == .json(.object(JSONObject())))
        #expect(inserted.first { $0.0 == "worker" }?.1 == nil)
    }
}
