import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Stores a validated graph as a new pending run, with its nodes, edges and a
    /// `submitted` event, in one transaction, and wakes the coordinators. The run's input
    /// (`graph.input`) is stored in `baton.runs.input`; an idempotency key matches an earlier run
    /// only with the same graph and the same input. `traceparent` is the W3C trace context of the
    /// submitter's span, stored with the run so the coordinator's spans of it join that trace.
    public func submit(_ graph: Graph, idempotencyKey: String? = nil, traceparent: String? = nil) throws -> SubmittedRun {
        do {
            return try insert(graph, idempotencyKey: idempotencyKey, traceparent: traceparent)
        } catch let error as PostgresError where error.code == .checkViolation && error.message.contains("no partition") {
            // No coordinator created this period's partition ahead (none ran): create it, and submit again.
            try ensureHistoryPartitions()
            return try insert(graph, idempotencyKey: idempotencyKey, traceparent: traceparent)
        }
    }

    private func insert(_ graph: Graph, idempotencyKey: String?, traceparent: String?) throws -> SubmittedRun {
        let id = UUID().uuidString.lowercased()
        let plan = String(decoding: graph.planBytes(), as: UTF8.self)
        let input = graph.input.serialized()
        return try connection.transaction { c in
            if let key = idempotencyKey {
                // The key first: a concurrent submit under the same key waits here for this one's commit. Its
                // foreign key is checked at commit, after the run below exists.
                let claimed = try c.query(
                    """
                    insert into baton.idempotency_keys (key, run_id, run_submitted_at) values ($1, $2::uuid, now())
                    on conflict (key) do nothing
                    returning run_id
                    """, [key, id])
                if claimed.rowCount == 0 {
                    let existing = try c.query(
                        """
                        select r.id::text, r.status, r.graph = $2::jsonb and r.input = $3::jsonb as same_graph
                        from baton.idempotency_keys k join baton.runs r on r.id = k.run_id and r.submitted_at = k.run_submitted_at
                        where k.key = $1
                        """, [key, graph.source.serialized(), input])
                    // The key names one submission: another graph or input under it is a mistake, not a request for that run.
                    guard existing.bool(0, "same_graph") == true else {
                        throw IdempotencyKeyConflict(key: key, runID: existing[row: 0, column: "id"]!)
                    }
                    return SubmittedRun(
                        id: existing[row: 0, column: "id"]!,
                        status: RunStatus(rawValue: existing[row: 0, column: "status"]!) ?? .pending, created: false)
                }
            }
            // `now()` is the transaction's start: the run's `submitted_at` and its rows' `run_submitted_at` (the
            // partition key) are the same instant.
            try c.execute(
                """
                insert into baton.runs (id, name, status, graph, plan, idempotency_key, input, submitted_at, traceparent)
                values ($1::uuid, $2, 'pending', $3::jsonb, $4, $5, $6::jsonb, now(), $7)
                """, [id, graph.name, graph.source.serialized(), plan, idempotencyKey, input, traceparent])
            // Column by column, as text arrays: PostgreSQL reads them much faster than JSON records.
            let count = graph.order.count
            var procedures: [String] = [], templates: [String] = [], pools: [String] = []
            var from: [String] = [], to: [String] = [], kinds: [String] = []
            procedures.reserveCapacity(count)
            templates.reserveCapacity(count)
            pools.reserveCapacity(count)
            let written = graph.source["nodes"]?.objectValue
            for key in graph.order {
                let node = graph.nodes[key]!
                procedures.append(node.procedure)
                templates.append((written?[key]?["input"] ?? .object(JSONObject())).serialized())
                pools.append(node.pool)
                let referenced = Set(node.input.references.map(\.node))
                for dependency in node.dependencies {
                    from.append(dependency)
                    to.append(key)
                    kinds.append(referenced.contains(dependency) ? "input" : "after")
                }
            }
            try c.execute(
                """
                insert into baton.nodes (run_id, key, procedure, status, template, position, pool, run_submitted_at, version)
                select $1::uuid, n.key, n.procedure, 'pending', n.template::jsonb, (n.ord - 1)::int, n.pool, now(),
                       case when strpos(n.procedure, '@') = 0 then 1
                            else coalesce(substring(n.procedure from '@([1-9][0-9]{0,4})$')::int, 1) end
                from unnest($2::text[], $3::text[], $4::text[], $5::text[]) with ordinality as n(key, procedure, template, pool, ord)
                """,
                [id, PGArray.literal(graph.order), PGArray.literal(procedures), PGArray.literal(templates), PGArray.literal(pools)])
            if !from.isEmpty {
                try c.execute(
                    """
                    insert into baton.edges (run_id, from_key, to_key, kind, run_submitted_at)
                    select $1::uuid, e.from_key, e.to_key, e.kind, now()
                    from unnest($2::text[], $3::text[], $4::text[]) as e(from_key, to_key, kind)
                    """, [id, PGArray.literal(from), PGArray.literal(to), PGArray.literal(kinds)])
            }
            try c.execute(
                """
                insert into baton.events (run_id, kind, detail, run_submitted_at) values ($1::uuid, 'submitted', $2::jsonb, now())
                """, [id, JSON(["name": .string(graph.name), "nodes": .int(Int64(graph.order.count))]).serialized()])
            try c.execute("select pg_notify($1, $2)", [Store.runsChannel, id])
            return SubmittedRun(id: id, status: .pending, created: true)
        }
    }
}
