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
        let r = try connection.query(
            """
            select key, procedure, status, attempts, input::text as input, output::text as output, error, worker,
                   queued_at::text as queued_at, started_at::text as started_at, finished_at::text as finished_at,
                   extract(epoch from finished_at - started_at)::float8 as seconds
            from baton.nodes where run_id = $1::uuid and key = $2
            """, [id, key])
        guard r.rowCount == 1 else { return nil }
        return NodeRow(
            key: r[row: 0, column: "key"]!, procedure: r[row: 0, column: "procedure"]!, status: r[row: 0, column: "status"]!,
            attempts: r.int(0, "attempts") ?? 0,
            input: r[row: 0, column: "input"].flatMap { try? JSONParser.parse($0, maxDepth: 1024) },
            output: r[row: 0, column: "output"].flatMap { try? JSONParser.parse($0, maxDepth: 1024) },
            error: r[row: 0, column: "error"], worker: r[row: 0, column: "worker"],
            queuedAt: r[row: 0, column: "queued_at"], startedAt: r[row: 0, column: "started_at"],
            finishedAt: r[row: 0, column: "finished_at"], seconds: r[row: 0, column: "seconds"].flatMap(Double.init))
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
