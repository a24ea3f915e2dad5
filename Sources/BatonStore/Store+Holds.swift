import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Every mutex, concurrency and cache request as stored, oldest first: the coordinator's
    /// `AdmissionTable` after a restart or a standby's take-over.
    public func loadHolds() throws -> [AdmissionTable.Entry] {
        let r = try connection.query(
            "select seq, run_id::text as run_id, node_key, claims::text as claims, cache::text as cache, granted from baton.holds order by seq")
        var entries: [AdmissionTable.Entry] = []
        for i in 0..<r.rowCount {
            let claims = try JSONParser.parse(r[row: i, column: "claims"] ?? "[]").arrayValue ?? []
            var cache: CacheLookup?
            if let text = r[row: i, column: "cache"], case let .object(c) = try JSONParser.parse(text),
                let procedure = c["procedure"]?.stringValue, let input = c["input"]?.stringValue, let ttl = c["ttl"]?.numberValue
            {
                cache = CacheLookup(procedure: procedure, input: input, ttl: ttl)
            }
            entries.append(
                AdmissionTable.Entry(
                    seq: r.int64(i, "seq") ?? 0, runID: r[row: i, column: "run_id"]!, key: r[row: i, column: "node_key"]!,
                    claims: claims.compactMap { c in
                        guard let name = c["name"]?.stringValue, let limit = c["limit"]?.intValue else { return nil }
                        return AdmissionClaim(name: name, limit: limit)
                    }, cache: cache, granted: r.bool(i, "granted") ?? false))
        }
        return entries
    }

    /// The newest output stored for `lookup`'s procedure and canonical input within its ttl, if any.
    public func cacheLookup(_ lookup: CacheLookup, now: Date = Date()) throws -> CacheHit? {
        let r = try connection.query(
            """
            select output::text as output, run_id::text as run_id, node_key from baton.cache
            where procedure = $1 and input_hash = sha256(convert_to($2, 'UTF8')) and input = $2
              and succeeded_at >= $3::timestamptz
            order by succeeded_at desc limit 1
            """, [lookup.procedure, lookup.input, Timestamp.text(now.addingTimeInterval(-lookup.ttl))])
        guard r.rowCount == 1 else { return nil }
        return CacheHit(
            output: try JSONParser.parse(r[row: 0, column: "output"] ?? "null", maxDepth: 1024),
            sourceRun: r[row: 0, column: "run_id"]!, sourceNode: r[row: 0, column: "node_key"]!)
    }

    /// Adds the parts that write `holds` to a batch's statement.
    func addHolds(_ holds: [HoldChange], to statement: inout ApplyStatement) {
        var inserts: [JSON] = []
        var grants: [JSON] = []
        var deletes: [JSON] = []
        for change in holds {
            switch change {
            case let .insert(e):
                inserts.append([
                    "seq": .int(e.seq), "run_id": .string(e.runID), "node_key": .string(e.key),
                    "claims": .array(e.claims.map { ["name": .string($0.name), "limit": .int(Int64($0.limit))] }),
                    "cache": e.cache.map { ["procedure": .string($0.procedure), "input": .string($0.input), "ttl": .double($0.ttl)] } ?? .null,
                    "granted": .bool(e.granted),
                ])
            case let .grant(seq): grants.append(.int(seq))
            case let .delete(seq): deletes.append(.int(seq))
            }
        }
        if !inserts.isEmpty {
            let p = statement.parameter(JSON.array(inserts).serialized())
            statement.add(
                "hold_inserts",
                """
                insert into baton.holds (seq, run_id, node_key, claims, cache, granted)
                select (h->>'seq')::bigint, (h->>'run_id')::uuid, h->>'node_key', h->'claims',
                       case when jsonb_typeof(h->'cache') = 'object' then h->'cache' end, (h->>'granted')::boolean
                from jsonb_array_elements(\(p)::jsonb) as t(h)
                """)
        }
        if !grants.isEmpty {
            let p = statement.parameter(JSON.array(grants).serialized())
            statement.add(
                "hold_grants", "update baton.holds set granted = true where seq in (select jsonb_array_elements_text(\(p)::jsonb)::bigint)")
        }
        if !deletes.isEmpty {
            let p = statement.parameter(JSON.array(deletes).serialized())
            statement.add("hold_deletes", "delete from baton.holds where seq in (select jsonb_array_elements_text(\(p)::jsonb)::bigint)")
        }
    }
}

extension Store {
    /// Event kinds after which a node no longer holds what it was admitted with.
    public static let holdEndingEvents: Set<String> = [
        "awaiting_admission", "succeeded", "failed", "cancelled", "retrying", "repeating", "timed_out", "lease_expired", "dead_lettered",
        "spawned",
    ]

    /// Each span in which a node of `nodes` held its admission: from a `queued` event to the next event
    /// that ends the hold (`holdEndingEvents`), in seconds since 1970; a span still open ends at +infinity.
    /// The spans of two holders of one mutex must never overlap.
    public func holdSpans(ofRun id: String, nodes: Set<String>) throws -> [(node: String, from: Double, to: Double)] {
        let r = try connection.query(
            """
            select node_key, kind, extract(epoch from at)::float8 as t from baton.events
            where run_id = $1::uuid and node_key is not null and kind = any($2::text[]) order by id
            """, [id, "{" + (Store.holdEndingEvents.sorted() + ["queued"]).joined(separator: ",") + "}"])
        var open: [String: Double] = [:]
        var spans: [(node: String, from: Double, to: Double)] = []
        for i in 0..<r.rowCount {
            guard let key = r[row: i, column: "node_key"], nodes.contains(key), let t = r[row: i, column: "t"].flatMap(Double.init) else { continue }
            if r[row: i, column: "kind"] == "queued" {
                open[key] = t
            } else if let from = open.removeValue(forKey: key) {
                spans.append((key, from, t))
            }
        }
        for (key, from) in open { spans.append((key, from, .infinity)) }
        return spans
    }

    /// How many spans start before an earlier-starting span has ended (0: they never overlap).
    public static func overlaps(_ spans: [(node: String, from: Double, to: Double)]) -> Int {
        var end = -Double.infinity
        var count = 0
        for span in spans.sorted(by: { $0.from < $1.from }) {
            if span.from < end { count += 1 }
            end = max(end, span.to)
        }
        return count
    }
}
