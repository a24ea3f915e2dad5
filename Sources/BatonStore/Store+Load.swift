import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Ids of runs that are not finished, oldest first.
    public func activeRunIDs() throws -> [String] {
        let r =
            if let fence {
                try connection.query(
                    """
                    select id::text from baton.runs
                    where status in ('pending', 'running') and baton.partition_of(id, $1::int) = any($2::int[])
                    order by submitted_at
                    """, [String(fence.count), fence.heldParameter])
            } else {
                try connection.query("select id::text from baton.runs where status in ('pending', 'running') order by submitted_at")
            }
        return (0..<r.rowCount).map { r[row: $0, column: "id"]! }
    }

    /// A run's graph (from its plan, or its source for runs stored before plans), status and error.
    private func loadGraph(_ id: String) throws -> (Graph, RunStatus, String?)? {
        let run = try connection.query(
            """
            select status, error, plan::text as plan, case when plan is null then graph::text end as graph,
                   submitted_at::text as submitted_at
            from baton.runs where id = $1::uuid
            """, [id])
        guard run.rowCount == 1 else { return nil }
        submittedAt[id] = run[row: 0, column: "submitted_at"]
        let graph = try Self.storedGraph(run, of: id)
        guard let status = RunStatus(rawValue: run[row: 0, column: "status"] ?? "") else {
            throw StoreError("run \(id): unknown run status '\(run[row: 0, column: "status"] ?? "")'")
        }
        return (graph, status, run[row: 0, column: "error"])
    }

    /// The graph in a row with `plan` and `graph` (the source, read only when there is no plan):
    /// the plan decoded, not validated again; a source decoded once. One that cannot be read throws
    /// a `StoreError` naming the run.
    static func storedGraph(_ run: PGResult, of id: String) throws -> Graph {
        do {
            if let plan = run[row: 0, column: "plan"] { return try Graph(plan: plan) }
            let source = try JSONParser.parse(run[row: 0, column: "graph"] ?? "", maxDepth: 1024)
            return try GraphDecoder(limits: GraphLimits(maxNodes: .max, maxGraphBytes: .max, maxDepth: 1024)).decode(source)
        } catch {
            throw StoreError("run \(id): the stored graph cannot be read: \(error)")
        }
    }

    /// The scheduler state of a run as stored, or nil if there is no such run. The graph comes
    /// from the stored plan (decoded, not validated again); runs stored before plans existed are
    /// decoded from their source once. A row that cannot be read throws a `StoreError` naming the
    /// run (and node): that run is broken, not the database.
    public func loadRun(_ id: String) throws -> RunState? {
        // The graph first, so the plan's text and parse are freed before the node rows arrive: for a
        // 100,000-node run each is large, and holding both at once set the coordinator's peak memory.
        guard case (let graph, let runStatus, let runError)? = try loadGraph(id) else { return nil }
        // Only a queued node's `input` is read (its task may have to be published again as it was): the
        // scheduler holds no other (`RunState+Inputs`), and of the 140 ended nodes injecting an 8 MiB
        // output, reading theirs would load 1.1 GB to drop it. The rows come
        // through a cursor, 5,000 at a time: for a 100,000-node run, the whole result at once (in
        // libpq, then copied out) was the largest thing a load held beside the graph.
        var nodes = StoredRunNodes(runID: id)
        try connection.transaction { c in
            try c.execute(
                """
                declare run_nodes no scroll cursor for
                select key, status, attempts, case when status = 'queued' then input::text end as input, output::text as output,
                       error, worker, scheduler::text as scheduler, fragment::text as fragment, attempt_token,
                       dispatch_batch is not null and dispatch_batch <= (
                           select confirmed_through from baton.publications
                           where id = baton.partition_of($1::uuid, (select count(*) from baton.partitions)::int)) as confirmed
                from baton.nodes where run_id = $1::uuid order by position
                """, [id])
            while true {
                let rows = try c.query("fetch 5000 from run_nodes")
                if rows.rowCount == 0 { break }
                for i in 0..<rows.rowCount { try nodes.add(Self.storedNode(rows, i)) }
            }
            try c.execute("close run_nodes")
        }
        return try nodes.runState(graph: graph, status: runStatus, error: runError)
    }

    /// Row `i` of `loadRun`'s node query, as both stores hand a row to `StoredRunNodes`.
    private static func storedNode(_ rows: PGResult, _ i: Int) -> StoredNode {
        StoredNode(
            key: rows[row: i, column: "key"]!, status: rows[row: i, column: "status"] ?? "", attempts: rows.int(i, "attempts") ?? 0,
            input: rows[row: i, column: "input"].map(StoredJSON.text), output: rows[row: i, column: "output"].map(StoredJSON.text),
            error: rows[row: i, column: "error"], worker: rows[row: i, column: "worker"],
            scheduler: rows[row: i, column: "scheduler"].map(StoredJSON.text), fragment: rows[row: i, column: "fragment"].map(StoredJSON.text),
            attemptToken: rows[row: i, column: "attempt_token"], confirmed: rows.bool(i, "confirmed") == true)
    }

    /// Ends a run that cannot go on (its stored state cannot be read or written), with `error`,
    /// so the coordinator stops trying and every other run goes on. Its holds are released.
    public func failRun(_ id: String, error: String) throws {
        let error = error.replacingOccurrences(of: "\u{0}", with: "")  // a NUL cannot be sent as a text parameter
        var fenceParameters: [String?] = []
        let fence = try fenceSQL(for: [id]) { value in
            fenceParameters.append(value)
            return "$\(fenceParameters.count)"
        }
        try connection.transaction { c in
            // The fence first, and always (as the twin checks it): its row locks hold until the commit.
            if let fence { _ = try c.query(fence, fenceParameters) }
            try c.execute(
                """
                with released as (delete from baton.holds where run_id = $1::uuid),
                failed as (
                    update baton.runs set status = 'failed', error = $2, finished_at = now(), started_at = coalesce(started_at, now())
                    where id = $1::uuid and status in ('pending', 'running')
                    returning id, submitted_at
                )
                insert into baton.events (run_id, kind, detail, run_submitted_at)
                select id, 'run_failed', jsonb_build_object('status', 'failed', 'error', $2::text), submitted_at from failed
                """, [id, error])
        }
        submittedAt[id] = nil  // ended, as a commit's terminal status ends it in `apply`
    }
}
