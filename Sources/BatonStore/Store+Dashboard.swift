import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Runs newest first, a page at a time: only those with `status` (if given) whose name contains
    /// `nameContains` (case-insensitive, as plain text: no wildcards), and how many match in all.
    /// The page's ids come first (an index walk), so only its own runs' nodes are counted, however
    /// deep the page.
    public func runs(status: RunStatus?, nameContains: String?, limit: Int, offset: Int) throws -> (rows: [RunRow], total: Int) {
        let filter = "($1::text is null or r.status = $1) and ($2::text is null or strpos(lower(r.name), lower($2)) > 0)"
        let parameters = [status?.rawValue, nameContains]
        let r = try connection.query(
            """
            select \(Store.runColumns)
            from (select r.id, r.submitted_at from baton.runs r where \(filter)
                  order by r.submitted_at desc, r.id limit $3::int offset $4::int) page
            join baton.runs r on r.id = page.id and r.submitted_at = page.submitted_at
            order by page.submitted_at desc, page.id
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

    /// The failed nodes of runs `ids`, grouped by procedure and error type, the largest groups
    /// first, at most `limit` groups.
    public func failureGroups(ofRuns ids: [String], limit: Int = 20) throws -> [FailureGroup] {
        guard !ids.isEmpty else { return [] }
        let r = try connection.query(
            """
            with failed as (
                select n.run_id, n.key, n.procedure, n.error_type, n.error, n.finished_at from baton.nodes n
                where n.run_id = any($1::uuid[]) and n.status = 'failed' and n.error is not null),
            latest as (
                select distinct on (procedure, error_type) procedure, error_type, run_id, key, error, finished_at from failed
                order by procedure, error_type, finished_at desc nulls last, run_id, key)
            select f.procedure, f.error_type, count(*) as nodes, count(distinct f.run_id) as runs, l.run_id::text as latest_run,
                   l.key as latest_node, l.error as latest_error, l.finished_at::text as latest_at
            from failed f join latest l on l.procedure = f.procedure and l.error_type is not distinct from f.error_type
            group by f.procedure, f.error_type, l.run_id, l.key, l.error, l.finished_at
            order by nodes desc, f.procedure, f.error_type nulls last limit $2::int
            """, [PGArray.literal(ids), String(limit)])
        return (0..<r.rowCount).map { i in
            FailureGroup(
                procedure: r[row: i, column: "procedure"]!, errorType: r[row: i, column: "error_type"], nodes: r.int(i, "nodes") ?? 0,
                runs: r.int(i, "runs") ?? 0, latestError: r[row: i, column: "latest_error"], latestRunID: r[row: i, column: "latest_run"]!,
                latestNode: r[row: i, column: "latest_node"]!, latestAt: r[row: i, column: "latest_at"])
        }
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
