import Baton
import BatonPostgres
import Foundation

extension Store {
    static let runColumns = """
        r.id::text as id, r.name, r.status, r.submitted_at::text as submitted_at, r.started_at::text as started_at,
        r.finished_at::text as finished_at, r.error, r.input::text as input,
        (select count(*) from baton.nodes n where n.run_id = r.id and n.run_submitted_at = r.submitted_at) as nodes,
        (select count(*) from baton.nodes n where n.run_id = r.id and n.run_submitted_at = r.submitted_at
            and n.status in ('succeeded', 'failed', 'cancelled', 'skipped')) as done,
        exists (select 1 from baton.pauses p where p.kind = 'run' and p.name = r.id::text) as paused
        """

    func runRow(_ r: PGResult, _ i: Int) -> RunRow {
        var row = RunRow(
            id: r[row: i, column: "id"]!, name: r[row: i, column: "name"]!,
            status: RunStatus(rawValue: r[row: i, column: "status"]!) ?? .pending,
            submittedAt: r[row: i, column: "submitted_at"]!, startedAt: r[row: i, column: "started_at"],
            finishedAt: r[row: i, column: "finished_at"], error: r[row: i, column: "error"],
            nodeCount: r.int(i, "nodes") ?? 0, nodesDone: r.int(i, "done") ?? 0)
        if let input = r[row: i, column: "input"].flatMap({ try? JSONParser.parse($0, maxDepth: 1024) }) { row.input = input }
        row.paused = r.bool(i, "paused") == true  // never nil here: `--json` says false, as through the API
        return row
    }

    /// Recent runs, newest first, optionally only those with `status`.
    public func runs(status: RunStatus? = nil, limit: Int = 20) throws -> [RunRow] {
        let r = try connection.query(
            """
            select \(Store.runColumns) from baton.runs r
            where ($1::text is null or r.status = $1) order by r.submitted_at desc limit $2::int
            """, [status?.rawValue, String(limit)])
        return (0..<r.rowCount).map { runRow(r, $0) }
    }

    /// One run, or nil. `id` may be a unique prefix of the run id.
    public func run(_ id: String) throws -> RunRow? {
        let r = try connection.query("select \(Store.runColumns) from baton.runs r where r.id = $1::uuid", [try resolveRunID(id)])
        return r.rowCount == 1 ? runRow(r, 0) : nil
    }

    /// The full run id for an id or a unique prefix of one; a clear error otherwise.
    public func resolveRunID(_ text: String) throws -> String {
        let lowered = text.lowercased()
        if UUID(uuidString: lowered) != nil {
            let r = try connection.query("select 1 from baton.runs where id = $1::uuid", [lowered])
            if r.rowCount == 1 { return lowered }
            throw StoreError("no run with id \(lowered)")
        }
        guard lowered.count >= 4, lowered.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError("'\(text)' is not a run id (a UUID, or at least 4 of its first characters)")
        }
        let r = try connection.query("select id::text from baton.runs where id::text like $1 || '%' limit 2", [lowered])
        switch r.rowCount {
        case 0: throw StoreError("no run whose id starts with '\(lowered)'")
        case 1: return r[row: 0, column: "id"]!
        default: throw StoreError("'\(lowered)' matches several runs; give more of the id")
        }
    }

    /// The nodes of a run in graph order, each child (`parent/child`) after its parent.
    public func nodes(ofRun id: String) throws -> [NodeRow] {
        let r = try connection.query(NodeRow.select() + " order by n.position", [id])
        let rows = (0..<r.rowCount).map { NodeRow(r, row: $0) }
        guard rows.contains(where: { $0.key.contains("/") }) else { return rows }
        var byKey: [String: NodeRow] = [:]
        for row in rows { byKey[row.key] = row }
        return NodeKey.treeOrder(rows.map(\.key)).map { byKey[$0]! }
    }

    /// A page of a run's nodes in the order they were stored (graph order, children as they were
    /// added), after `position`, at most `limit`, of one `status` if given; with the last one's position.
    public func nodePage(ofRun id: String, status: String?, afterPosition: Int, limit: Int) throws -> (rows: [NodeRow], last: Int?) {
        let r = try connection.query(
            NodeRow.select(andWhere: "n.position > $2::int and ($3::text is null or n.status = $3)") + " order by n.position limit $4::int",
            [id, String(afterPosition), status, String(limit)])
        return ((0..<r.rowCount).map { NodeRow(r, row: $0) }, r.rowCount > 0 ? r.int(r.rowCount - 1, "position") : nil)
    }

    /// A run's events with id greater than `after`, oldest first.
    public func events(ofRun id: String, after: Int = 0, limit: Int = 10_000) throws -> [EventRow] {
        let r = try connection.query(
            """
            select id, node_key, kind, at::text as at, detail::text as detail from baton.events
            where run_id = $1::uuid and id > $2::bigint order by id limit $3::int
            """, [id, String(after), String(limit)])
        return (0..<r.rowCount).map { i in
            EventRow(
                id: r.int(i, "id") ?? 0, node: r[row: i, column: "node_key"], kind: r[row: i, column: "kind"]!,
                at: r[row: i, column: "at"]!, detail: r[row: i, column: "detail"].flatMap { try? JSONParser.parse($0) } ?? .null)
        }
    }

    /// Keys of a run's running nodes, in graph order (at most `limit`).
    public func runningNodes(ofRun id: String, limit: Int = 5) throws -> [String] {
        let r = try connection.query(
            """
            select key from baton.nodes where run_id = $1::uuid and status = 'running' order by position limit $2::int
            """, [id, String(limit)])
        return (0..<r.rowCount).map { r[row: $0, column: "key"]! }
    }

    /// The run's own status, and how many of its nodes are in each status.
    public func progress(ofRun id: String) throws -> RunProgress {
        let run = try connection.query("select status, error from baton.runs where id = $1::uuid", [id])
        guard run.rowCount == 1 else { throw StoreError("no run with id \(id)") }
        let r = try connection.query(
            """
            select status, strpos(key, '/') > 0 as child, count(*) as n from baton.nodes where run_id = $1::uuid group by 1, 2
            """, [id])
        var progress = RunProgress(
            status: RunStatus(rawValue: run[row: 0, column: "status"]!) ?? .pending, error: run[row: 0, column: "error"], top: [:])
        for i in 0..<r.rowCount {
            guard let status = NodeStatus(rawValue: r[row: i, column: "status"]!) else { continue }
            if r[row: i, column: "child"] == "t" {
                progress.children[status, default: 0] += r.int(i, "n") ?? 0
            } else {
                progress.top[status, default: 0] += r.int(i, "n") ?? 0
            }
        }
        return progress
    }
}

extension Store {
    /// A run's status, or nil if there is no such run.
    public func runStatus(_ id: String) throws -> RunStatus? {
        let r = try connection.query("select status from baton.runs where id = $1::uuid", [id])
        return r.rowCount == 1 ? r[row: 0, column: "status"].flatMap(RunStatus.init(rawValue:)) : nil
    }

    /// How many `succeeded` events each node of a run has: exactly one per node that succeeded,
    /// unless a result was recorded twice.
    public func successEventCounts(ofRun id: String) throws -> [String: Int] {
        let r = try connection.query(
            """
            select node_key, count(*) as n from baton.events where run_id = $1::uuid and kind = 'succeeded' group by node_key
            """, [id])
        var counts: [String: Int] = [:]
        for i in 0..<r.rowCount { counts[r[row: i, column: "node_key"]!] = r.int(i, "n") ?? 0 }
        return counts
    }

    /// When each node of a run was queued, started and finished (seconds since 1970), in graph order.
    public func nodeTimings(ofRun id: String) throws -> [(queued: Double, started: Double, finished: Double)] {
        let r = try connection.query(
            """
            select extract(epoch from queued_at)::float8 as q, extract(epoch from started_at)::float8 as s,
                   extract(epoch from finished_at)::float8 as f
            from baton.nodes where run_id = $1::uuid order by position
            """, [id])
        return (0..<r.rowCount).map { i in
            (Double(r[row: i, column: "q"] ?? "0") ?? 0, Double(r[row: i, column: "s"] ?? "0") ?? 0, Double(r[row: i, column: "f"] ?? "0") ?? 0)
        }
    }

    /// Queued nodes of a run whose procedure no live worker serves in the node's pool:
    /// they wait until such a worker starts.
    public func unservedNodes(ofRun id: String, limit: Int = 5) throws -> [UnservedNode] {
        let r = try connection.query(
            """
            select n.key, n.procedure, n.pool from baton.nodes n
            where n.run_id = $1::uuid and n.status = 'queued' and not exists (
                select 1 from baton.workers w
                where w.last_seen_at > now() - make_interval(secs => \(Store.liveWindow(of: "w")))
                  and n.pool = any(w.pools) and n.procedure = any(w.procedures))
            order by n.position limit $2::int
            """, [id, String(limit)])
        return (0..<r.rowCount).map {
            UnservedNode(key: r[row: $0, column: "key"]!, procedure: r[row: $0, column: "procedure"]!, pool: r[row: $0, column: "pool"]!)
        }
    }
}
