import Baton
import BatonStore
import Testing

/// What `baton procedures` lists: each version served or still needed, with its unfinished runs.
@Suite("procedure versions listed")
struct ProcedureVersionRowTests {
    static func worker(_ id: String, _ procedures: [String]) -> WorkerRow {
        WorkerRow(
            id: id, host: "h", pid: 1, pools: ["default"], procedures: procedures, slots: 1, startedAt: "", lastSeenAt: "",
            secondsSinceSeen: 0)
    }

    @Test func everyVersionServedOrNeededIsListedByNameThenVersion() throws {
        let schema = ProcedureSchema(input: .string, output: .any)
        let rows = ProcedureVersionRow.rows(
            workers: [Self.worker("a", ["acme.greet@2", "baton.echo"]), Self.worker("b", ["acme.greet@10"])],
            schemas: ["acme.greet@2": schema], unfinished: ["acme.greet": 3, "acme.greet@2": 1])
        #expect(rows.map(\.name) == ["acme.greet", "acme.greet@2", "acme.greet@10", "baton.echo"])
        #expect(rows.map(\.version) == [1, 2, 10, 1])
        #expect(rows.map(\.served) == [false, true, true, true])
        #expect(rows.map(\.unfinishedRuns) == [3, 1, 0, 0])
        #expect(rows[1].input == .string && rows[0].input == nil)
        // The API's JSON reads back as the same row (the CLI's remote mode).
        for row in rows { #expect(ProcedureVersionRow(json: row.json) == row) }
        #expect(rows[1].json["procedure"] == "acme.greet" && rows[1].json["unfinished_runs"] == 1)
    }
}
