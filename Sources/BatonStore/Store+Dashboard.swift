import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Runs newest first, a page at a time: only those with `status` (if given) whose name contains
    /// `nameContains` (case-insensitive, as plain text: no wildcards), and how many match in all.
    public func runs(status: RunStatus?, nameContains: String?, limit: Int, offset: Int) throws -> (rows: [RunRow], total: Int) {
        let filter = "($1::text is null or r.status = $1) and ($2::text is null or strpos(lower(r.name), lower($2)) > 0)"
        let parameters = [status?.rawValue, nameContains]
        let r = try connection.query(
            """
            select \(Store.runColumns) from baton.runs r where \(filter)
            order by r.submitted_at desc, r.id limit $3::int offset $4::int
            """, parameters + [String(limit), String(offset)])
        let total = try connection.query("select count(*) as n from baton.runs r where \(filter)", parameters).int(0, "n") ?? 0
        return ((0..<r.rowCount).map { runRow(r, $0) }, total)
    }

    /// How many runs there are in each status (statuses with none are left out).
    public func runCounts() throws -> [RunStatus: Int] {
        let r = try connection.query("select status, count(*) as n from baton.runs group by status")
        var counts: [RunStatus: Int] = [:]
        for i in 0..<r.rowCount {
            if let status = RunStatus(rawValue: r[row: i, column: "status"] ?? "") { counts[status] = r.int(i, "n") ?? 0 }
        }
        return counts
    }

    /// One node of a run, or nil if the run has no node `key`.
    public func node(ofRun id: String, key: String) throws -> NodeRow? {
        let r = try connection.query(NodeRow.select(andWhere: "n.key = $2"), [id, key])
        return r.rowCount == 1 ? NodeRow(r, row: 0) : nil
    }

    /// The events of one node of a run (its progress and log lines among them), oldest first, at most `limit`.
    public func events(ofRun id: String, node: String, limit: Int = 1000) throws -> [EventRow] {
        let r = try connection.query(
            """
            select id, node_key, kind, at::text as at, detail::text as detail from baton.events
            where run_id = $1::uuid and node_key = $2 order by id limit $3::int
            """, [id, node, String(limit)])
        return (0..<r.rowCount).map { i in
            EventRow(
                id: r.int(i, "id") ?? 0, node: r[row: i, column: "node_key"], kind: r[row: i, column: "kind"]!,
                at: r[row: i, column: "at"]!, detail: r[row: i, column: "detail"].flatMap { try? JSONParser.parse($0) } ?? .null)
        }
    }
}
