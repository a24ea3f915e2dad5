import Baton
import BatonPostgres
import Foundation

extension Store {
    /// The heartbeats as the JSON rows `workerUpsertSQL` reads.
    static func workerRows(_ heartbeats: [WorkerHeartbeat]) -> JSON {
        .array(
            heartbeats.map { h in
                [
                    "id": .string(h.id), "host": .string(h.host), "pid": .int(Int64(h.pid)),
                    "pools": .array(h.pools.map(JSON.string)), "procedures": .array(h.procedures.map(JSON.string)),
                    "slots": .int(Int64(h.slots)), "started_at": .string(Timestamp.text(h.startedAt)), "interval": .double(h.interval),
                    "schemas": h.schemas.map { schemas in .object(JSONObject(schemas.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })) }
                        ?? .null,
                ]
            })
    }

    /// An upsert of worker rows from the JSON array in the parameter `rows` names (`$n`; one row per worker id).
    static func workerUpsertSQL(rows: String) -> String {
        """
        insert into baton.workers (id, host, pid, pools, procedures, slots, started_at, last_seen_at, heartbeat_interval, schemas)
        select w.id, w.host, w.pid,
               array(select jsonb_array_elements_text(w.pools)), array(select jsonb_array_elements_text(w.procedures)),
               w.slots, w.started_at, now(), w.interval, w.schemas
        from jsonb_to_recordset(\(rows)::jsonb) as w(id text, host text, pid int, pools jsonb, procedures jsonb, slots int,
                                                   started_at timestamptz, interval float8, schemas jsonb)
        on conflict (id) do update set
            host = excluded.host, pid = excluded.pid, pools = excluded.pools, procedures = excluded.procedures,
            slots = excluded.slots, started_at = excluded.started_at, last_seen_at = now(),
            heartbeat_interval = excluded.heartbeat_interval,
            -- Most heartbeats carry no schemas (WorkerHeartbeat.schemasEvery): keep the last that did.
            schemas = coalesce(excluded.schemas, baton.workers.schemas)
        """
    }

    /// Seconds since its last heartbeat within which the worker row `alias` counts as live: three of
    /// its heartbeat intervals and a second (SQL over that row's columns).
    static func liveWindow(of alias: String) -> String { "3 * \(alias).heartbeat_interval + 1" }

    /// Workers heard from within `seconds`; by default, within three of their own heartbeat
    /// intervals (plus a second), so a worker that died leaves the list within seconds and one
    /// that stopped cleanly at once (its last heartbeat removes it).
    public func liveWorkers(within seconds: Double? = nil) throws -> [WorkerRow] {
        let r = try connection.query(
            """
            select id, host, pid, array_to_json(pools)::text as pools, array_to_json(procedures)::text as procedures, slots,
                   started_at::text as started_at, last_seen_at::text as last_seen_at,
                   extract(epoch from now() - last_seen_at)::float8 as age, schemas::text as schemas
            from baton.workers w
            where last_seen_at > now() - make_interval(secs => coalesce($1::float8, \(Store.liveWindow(of: "w"))))
            order by id
            """, [seconds.map { String($0) }])
        return try (0..<r.rowCount).map { i in
            WorkerRow(
                id: r[row: i, column: "id"]!, host: r[row: i, column: "host"]!, pid: r.int(i, "pid") ?? 0,
                pools: try stringArray(r[row: i, column: "pools"]), procedures: try stringArray(r[row: i, column: "procedures"]),
                slots: r.int(i, "slots") ?? 0, startedAt: r[row: i, column: "started_at"]!, lastSeenAt: r[row: i, column: "last_seen_at"]!,
                secondsSinceSeen: Double(r[row: i, column: "age"] ?? "0") ?? 0, schemas: try schemas(r[row: i, column: "schemas"]))
        }
    }

    /// The schemas live workers published, by procedure. A procedure whose workers disagree (two
    /// versions deployed at once) has none: its nodes are not checked rather than checked wrongly.
    public static func agreedSchemas(of workers: [WorkerRow]) -> [String: ProcedureSchema] {
        var result: [String: ProcedureSchema] = [:]
        var disputed = Set<String>()
        for worker in workers {
            for (name, schema) in worker.schemas where !disputed.contains(name) {
                if let known = result[name], known != schema {
                    disputed.insert(name)
                    result[name] = nil
                } else {
                    result[name] = schema
                }
            }
        }
        return result
    }

    /// The schemas graph inputs are checked against: `base`'s (what this program was built with),
    /// with what live workers published winning, since they run the procedures.
    public static func inputSchemas(of workers: [WorkerRow], over base: ProcedureRegistry) -> [String: ProcedureSchema] {
        base.checkedSchemas.merging(agreedSchemas(of: workers)) { _, live in live }
    }

    /// The versions of each procedure live workers serve, by pool: what submit plans a node that names
    /// no version on.
    public static func servedVersions(of workers: [WorkerRow]) -> ServedVersions {
        ServedVersions(workers: workers.map { ($0.pools, $0.procedures) })
    }

    /// The procedure names a graph may use: `base`'s own and those live workers serve.
    public static func knownProcedures(of workers: [WorkerRow], beside base: ProcedureRegistry) -> Set<String> {
        Set(base.names).union(workers.flatMap(\.procedures))
    }

    private func schemas(_ text: String?) throws -> [String: ProcedureSchema] {
        guard let text, let members = try JSONParser.parse(text).objectValue else { return [:] }
        return Dictionary(members.map { ($0.key, ProcedureSchema(json: $0.value)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Names of the procedures that live workers serve.
    public func servedProcedures(within seconds: Double? = nil) throws -> Set<String> {
        Set(try liveWorkers(within: seconds).flatMap(\.procedures))
    }

    private func stringArray(_ text: String?) throws -> [String] {
        guard let text else { return [] }
        return try JSONParser.parse(text).arrayValue?.compactMap(\.stringValue) ?? []
    }
}
