import Baton
import BatonPostgres
import Foundation

/// What `submit` stored.
public struct SubmittedRun: Sendable {
    public let id: String
    public let status: RunStatus
    /// False when the idempotency key matched an earlier run, which is returned instead.
    public let created: Bool
}

extension Store {
    /// Stores a validated graph as a new pending run, with its nodes, edges and a
    /// `submitted` event, in one transaction, and wakes the coordinators. The run's input
    /// (`graph.input`) is stored in `baton.runs.input`; an idempotency key matches an earlier run
    /// only with the same graph and the same input.
    public func submit(_ graph: Graph, idempotencyKey: String? = nil) throws -> SubmittedRun {
        let id = UUID().uuidString.lowercased()
        let plan = String(decoding: graph.planBytes(), as: UTF8.self)
        let input = graph.input.serialized()
        return try connection.transaction { c in
            if let key = idempotencyKey {
                let inserted = try c.query(
                    """
                    insert into baton.runs (id, name, status, graph, plan, idempotency_key, input)
                    values ($1::uuid, $2, 'pending', $3::jsonb, $5, $4, $6::jsonb)
                    on conflict (idempotency_key) do nothing
                    returning id
                    """, [id, graph.name, graph.source.serialized(), key, plan, input])
                if inserted.rowCount == 0 {
                    let existing = try c.query(
                        """
                        select id::text, status, graph = $2::jsonb and input = $3::jsonb as same_graph
                        from baton.runs where idempotency_key = $1
                        """, [key, graph.source.serialized(), input])
                    // The key names one submission: another graph or input under it is a mistake, not a request for that run.
                    guard existing.bool(0, "same_graph") == true else {
                        throw IdempotencyKeyConflict(key: key, runID: existing[row: 0, column: "id"]!)
                    }
                    return SubmittedRun(
                        id: existing[row: 0, column: "id"]!,
                        status: RunStatus(rawValue: existing[row: 0, column: "status"]!) ?? .pending, created: false)
                }
            } else {
                try c.execute(
                    """
                    insert into baton.runs (id, name, status, graph, plan, input)
                    values ($1::uuid, $2, 'pending', $3::jsonb, $4, $5::jsonb)
                    """, [id, graph.name, graph.source.serialized(), plan, input])
            }
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
                insert into baton.nodes (run_id, key, procedure, status, template, position, pool)
                select $1::uuid, n.key, n.procedure, 'pending', n.template::jsonb, (n.ord - 1)::int, n.pool
                from unnest($2::text[], $3::text[], $4::text[], $5::text[]) with ordinality as n(key, procedure, template, pool, ord)
                """,
                [id, PGArray.literal(graph.order), PGArray.literal(procedures), PGArray.literal(templates), PGArray.literal(pools)])
            if !from.isEmpty {
                try c.execute(
                    """
                    insert into baton.edges (run_id, from_key, to_key, kind)
                    select $1::uuid, e.from_key, e.to_key, e.kind
                    from unnest($2::text[], $3::text[], $4::text[]) as e(from_key, to_key, kind)
                    """, [id, PGArray.literal(from), PGArray.literal(to), PGArray.literal(kinds)])
            }
            try c.execute(
                """
                insert into baton.events (run_id, kind, detail) values ($1::uuid, 'submitted', $2::jsonb)
                """, [id, JSON(["name": .string(graph.name), "nodes": .int(Int64(graph.order.count))]).serialized()])
            try c.execute("select pg_notify($1, $2)", [Store.runsChannel, id])
            return SubmittedRun(id: id, status: .pending, created: true)
        }
    }
}
