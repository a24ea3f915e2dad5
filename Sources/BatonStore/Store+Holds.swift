import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Notified when holds were granted: their runs' owners tell their nodes (`untoldGrants`).
    public static let grantsChannel = "baton_grants"

    /// Every mutex, concurrency and cache request as stored, oldest first.
    public func loadHolds() throws -> [AdmissionTable.Entry] {
        try Self.entries(
            connection.query(
                "select seq, run_id::text as run_id, node_key, claims::text as claims, cache::text as cache, granted from baton.holds order by seq"
            ))
    }

    /// Grants what can go among the waiting holds of every run, as `AdmissionTable` decides (all or
    /// none, first come first served), under a lock every coordinator takes for this: so no two
    /// coordinators grant from the same view. Holds of runs that ended are dropped first (no one is
    /// left to release them). The grants are written with `told` false and announced; returns them.
    public func grantWaiting() throws -> [AdmissionTable.Entry] {
        try connection.transaction { c in
            try c.execute("select pg_advisory_xact_lock(727276)")
            try c.execute(
                "delete from baton.holds h using baton.runs r where r.id = h.run_id and r.status not in ('pending', 'running')")
            var table = AdmissionTable(
                entries: try Self.entries(
                    c.query(
                        """
                        select seq, run_id::text as run_id, node_key, claims::text as claims, cache::text as cache, granted
                        from baton.holds order by seq
                        """)))
            let granted = table.grantWaiting().compactMap { change -> AdmissionTable.Entry? in
                if case let .granted(entry) = change { entry } else { nil }
            }
            guard !granted.isEmpty else { return [] }
            try c.execute(
                "update baton.holds set granted = true, told = false where seq = any($1::bigint[])",
                [PGArray.literal(granted.map { String($0.seq) })])
            try c.execute("select pg_notify($1, '')", [Store.grantsChannel])
            return granted
        }
    }

    /// Granted holds whose node was not told yet, of the partitions held (all without a fence), oldest first.
    public func untoldGrants() throws -> [AdmissionTable.Entry] {
        let columns = "seq, run_id::text as run_id, node_key, claims::text as claims, cache::text as cache, granted"
        if let fence {
            return try Self.entries(
                connection.query(
                    """
                    select \(columns) from baton.holds
                    where granted and not told and baton.partition_of(run_id, $1::int) = any($2::int[]) order by seq
                    """, [String(fence.count), fence.heldParameter]))
        }
        return try Self.entries(connection.query("select \(columns) from baton.holds where granted and not told order by seq"))
    }

    private static func entries(_ r: PGResult) throws -> [AdmissionTable.Entry] {
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

    /// Adds the parts that write `holds` to a batch's statement. The parts see the table as it was
    /// before the statement, so a release deletes only rows from earlier batches (`PendingBatch`
    /// nets a request and its release within one batch).
    func addHolds(_ holds: [HoldChange], to statement: inout ApplyStatement) {
        var inserts: [JSON] = []
        var releases: [JSON] = []
        var told: [JSON] = []
        for change in holds {
            switch change {
            case let .insert(runID, request):
                inserts.append([
                    "run_id": .string(runID), "node_key": .string(request.key),
                    "claims": .array(request.claims.map { ["name": .string($0.name), "limit": .int(Int64($0.limit))] }),
                    "cache": request.cache.map { ["procedure": .string($0.procedure), "input": .string($0.input), "ttl": .double($0.ttl)] }
                        ?? .null,
                ])
            case let .release(runID, key): releases.append(["run_id": .string(runID), "node_key": .string(key)])
            case let .told(_, seq): told.append(.int(seq))
            }
        }
        if !inserts.isEmpty {
            let p = statement.parameter(JSON.array(inserts).serialized())
            statement.add(
                "hold_inserts",
                """
                insert into baton.holds (run_id, node_key, claims, cache, granted, told)
                select (h->>'run_id')::uuid, h->>'node_key', h->'claims',
                       case when jsonb_typeof(h->'cache') = 'object' then h->'cache' end, false, true
                from jsonb_array_elements(\(p)::jsonb) as t(h)
                """)
        }
        if !releases.isEmpty {
            let p = statement.parameter(JSON.array(releases).serialized())
            statement.add(
                "hold_releases",
                """
                delete from baton.holds h using jsonb_array_elements(\(p)::jsonb) as t(r)
                where h.run_id = (r->>'run_id')::uuid and h.node_key = r->>'node_key'
                """)
        }
        if !told.isEmpty {
            let p = statement.parameter(JSON.array(told).serialized())
            statement.add(
                "hold_told", "update baton.holds set told = true where seq in (select jsonb_array_elements_text(\(p)::jsonb)::bigint)")
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
