import Baton
import BatonPostgres
import Foundation

/// Stores a run the way a Baton from before time partitions did (schema versions 3 to 14: no
/// `run_submitted_at`, the idempotency key on the run), for tests of upgrading such a database.
enum LegacySubmit {
    /// Inserts `graph` as a pending run submitted `daysAgo` days ago, and returns its id.
    static func insert(_ graph: Graph, daysAgo: Int = 0, idempotencyKey: String? = nil, sql: PGConnection) throws -> String {
        let id = UUID().uuidString.lowercased()
        try sql.transaction { c in
            try c.execute(
                """
                insert into baton.runs (id, name, status, graph, plan, idempotency_key, submitted_at)
                values ($1::uuid, $2, 'pending', $3::jsonb, $4, $5, now() - make_interval(days => $6::int))
                """,
                [
                    id, graph.name, graph.source.serialized(), String(decoding: graph.planBytes(), as: UTF8.self), idempotencyKey,
                    String(daysAgo),
                ])
            let written = graph.source["nodes"]?.objectValue
            for (position, key) in graph.order.enumerated() {
                let node = graph.nodes[key]!
                try c.execute(
                    """
                    insert into baton.nodes (run_id, key, procedure, status, template, position, pool)
                    values ($1::uuid, $2, $3, 'pending', $4::jsonb, $5::int, $6)
                    """,
                    [
                        id, key, node.procedure, (written?[key]?["input"] ?? .object(JSONObject())).serialized(), String(position),
                        node.pool,
                    ])
                let referenced = Set(node.input.references.map(\.node))
                for dependency in node.dependencies {
                    try c.execute(
                        "insert into baton.edges (run_id, from_key, to_key, kind) values ($1::uuid, $2, $3, $4)",
                        [id, dependency, key, referenced.contains(dependency) ? "input" : "after"])
                }
            }
            try c.execute(
                "insert into baton.events (run_id, kind, detail) values ($1::uuid, 'submitted', $2::jsonb)",
                [id, JSON(["name": .string(graph.name), "nodes": .int(Int64(graph.order.count))]).serialized()])
        }
        return id
    }
}
