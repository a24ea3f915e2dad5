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
        let plan = String(decoding: WireFormat.encode(graph), as: UTF8.self)
        let input = graph.input.serialized()
        return try connection.transaction { c in
            if let key = idempotencyKey {
                let inserted = try c.query(
                    """
                    insert into baton.runs (id, name, status, graph, plan, idempotency_key, input)
                    values ($1::uuid, $2, 'pending', $3::jsonb, $5::jsonb, $4, $6::jsonb)
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
                    values ($1::uuid, $2, 'pending', $3::jsonb, $4::jsonb, $5::jsonb)
                    """, [id, graph.name, graph.source.serialized(), plan, input])
            }
            var nodes: [JSON] = []
            var edges: [JSON] = []
            nodes.reserveCapacity(graph.order.count)
            for (position, key) in graph.order.enumerated() {
                let node = graph.nodes[key]!
                let template = graph.source["nodes"]?[key]?["input"] ?? .object(JSONObject())
                nodes.append([
                    "key": .string(key), "procedure": .string(node.procedure), "template": template,
                    "position": .int(Int64(position)), "pool": .string(node.pool),
                ])
                let referenced = Set(node.input.references.map(\.node))
                for dependency in node.dependencies {
                    edges.append([
                        "from": .string(dependency), "to": .string(key),
                        "kind": .string(referenced.contains(dependency) ? "input" : "after"),
                    ])
                }
            }
            try c.execute(
                """
                insert into baton.nodes (run_id, key, procedure, status, template, position, pool)
                select $1::uuid, n.key, n.procedure, 'pending', n.template, n.position, n.pool
                from jsonb_to_recordset($2::jsonb) as n(key text, procedure text, template jsonb, position int, pool text)
                """, [id, JSON.array(nodes).serialized()])
            if !edges.isEmpty {
                try c.execute(
                    """
                    insert into baton.edges (run_id, from_key, to_key, kind)
                    select $1::uuid, e."from", e."to", e.kind
                    from jsonb_to_recordset($2::jsonb) as e("from" text, "to" text, kind text)
                    """, [id, JSON.array(edges).serialized()])
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
