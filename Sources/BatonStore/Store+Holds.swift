import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Notified when holds were granted: their runs' owners tell their nodes (`untoldGrants`).
    public static let grantsChannel = "baton_grants"

    /// The columns `entries` reads.
    static let holdColumns =
        "seq, run_id::text as run_id, node_key, claims::text as claims, cache::text as cache, granted, priority, extract(epoch from granted_at)::float8 as granted_at"

    /// Every mutex, concurrency, rate and cache request as stored, oldest first.
    public func loadHolds() throws -> [AdmissionTable.Entry] {
        try Self.entries(connection.query("select \(Self.holdColumns) from baton.holds order by seq"))
    }

    /// Grants what can go among the waiting holds of every run at `now`, as `AdmissionTable` decides (all
    /// or none, in priority order, then first come first served; rate tokens within their windows), under
    /// a lock every coordinator takes for this: so no two coordinators grant from the same view, and a rate
    /// key's tokens are counted across the cluster. Holds of runs that ended and tokens that expired are
    /// dropped first, except the tokens of grants not told yet: they count (as if taken `now`) until told
    /// or taken back. The grants are written with `told` false (and the tokens they took) and announced.
    public func grantWaiting(now: Date) throws -> HoldGrants {
        try connection.transaction { c in
            try c.execute("select pg_advisory_xact_lock(727276)")
            try c.execute(
                "delete from baton.holds h using baton.runs r where r.id = h.run_id and r.status not in ('pending', 'running')")
            let nowText = Timestamp.text(now)
            // A token of a grant not told yet counts until it is told (which takes it again then) or taken
            // back: the commit that tells it may come after its expiry (a stalled coordinator, a commit
            // retried), and its node is queued only then, beside whatever was granted meanwhile.
            let untold = """
                exists (select 1 from baton.holds h where h.granted and not h.told and h.run_id = t.run_id
                        and h.node_key = t.node_key and h.granted_at = t.taken_at)
                """
            try c.execute("delete from baton.rate_tokens t where t.expires_at <= $1::timestamptz and not \(untold)", [nowText])
            let r = try c.query(
                """
                select t.key, extract(epoch from case when \(untold)
                    then greatest(t.expires_at, $1::timestamptz + (t.expires_at - t.taken_at)) else t.expires_at end)::float8 as expires
                from baton.rate_tokens t
                """, [nowText])
            var tokens: [String: [Date]] = [:]
            for i in 0..<r.rowCount {
                guard let key = r[row: i, column: "key"], let t = r[row: i, column: "expires"].flatMap(Double.init) else { continue }
                tokens[AdmissionClaim.ratePrefix + key, default: []].append(Date(timeIntervalSince1970: t))
            }
            // As `AdmissionTable.shareHeads`: of a fair key's waiters, only the first as many as the live
            // workers' slots allow are read (the one share claim a node has is what the window partitions by).
            let perKey =
                "(select 2 * coalesce(sum(w.slots), 0) + \(AdmissionTable.shareWindow) from baton.workers w where w.last_seen_at > now() - make_interval(secs => \(Store.liveWindow(of: "w"))))"
            var table = AdmissionTable(
                entries: try Self.entries(
                    c.query(
                        """
                        select \(Self.holdColumns) from baton.holds h
                        where h.granted or not exists (select 1 from jsonb_array_elements(h.claims) c where c ? 'key')
                        union all
                        select \(Self.holdColumns) from (
                            select h.*, row_number() over (partition by c->>'name', c->>'key' order by h.priority desc, h.seq) as rn
                            from baton.holds h cross join lateral jsonb_array_elements(h.claims) c
                            where not h.granted and c ? 'key') h
                        where h.rn <= \(perKey)
                        order by seq
                        """)),
                tokens: tokens, now: now)
            let shares = table.shareClaims
            if !shares.isEmpty { table.shareLimits = try Self.shareLimits(for: shares, connection: c) }
            let granted = table.grantWaiting().compactMap { change -> AdmissionTable.Entry? in
                if case let .granted(entry) = change { entry } else { nil }
            }
            let next = table.nextToken
            guard !granted.isEmpty else { return HoldGrants(nextTokenAt: next) }
            try c.execute(
                "update baton.holds set granted = true, told = false, granted_at = $2::timestamptz where seq = any($1::bigint[])",
                [PGArray.literal(granted.map { String($0.seq) }), nowText])
            var taken: [JSON] = []
            for entry in granted {
                for claim in entry.claims {
                    guard let key = claim.rateKey, let per = claim.per, let lifetime = claim.tokenLifetime else { continue }
                    taken.append([
                        "key": .string(key), "expires": .string(Timestamp.text(now.addingTimeInterval(lifetime))), "limit": .int(Int64(claim.limit)),
                        "per": .double(per), "run_id": .string(entry.runID), "node_key": .string(entry.key),
                    ])
                }
            }
            if !taken.isEmpty {
                try c.execute(
                    """
                    insert into baton.rate_tokens (key, taken_at, expires_at, "limit", per_seconds, run_id, node_key)
                    select t->>'key', $2::timestamptz, (t->>'expires')::timestamptz, (t->>'limit')::int, (t->>'per')::float8,
                           (t->>'run_id')::uuid, t->>'node_key'
                    from jsonb_array_elements($1::jsonb) as x(t)
                    """, [JSON.array(taken).serialized(), nowText])
            }
            try c.execute("select pg_notify($1, '')", [Store.grantsChannel])
            return HoldGrants(granted: granted, nextTokenAt: next)
        }
    }

    /// How many may hold each share claim of `names` now: `AdmissionTable.shareLimits` of the live
    /// workers (heard from within their lease, as `liveWorkers` counts them).
    static func shareLimits(for names: Set<String>, connection c: PGConnection) throws -> [String: Int] {
        let r = try c.query(
            """
            select array_to_json(pools)::text as pools, array_to_json(procedures)::text as procedures, slots from baton.workers w
            where last_seen_at > now() - make_interval(secs => \(Store.liveWindow(of: "w")))
            """)
        var workers: [(pools: [String], procedures: [String], slots: Int)] = []
        for i in 0..<r.rowCount {
            let pools = try JSONParser.parse(r[row: i, column: "pools"] ?? "[]").arrayValue?.compactMap(\.stringValue) ?? []
            let procedures = try JSONParser.parse(r[row: i, column: "procedures"] ?? "[]").arrayValue?.compactMap(\.stringValue) ?? []
            workers.append((pools, procedures, r.int(i, "slots") ?? 0))
        }
        return AdmissionTable.shareLimits(for: names, workers: workers)
    }

    /// `CoordinatorStore.revokeGrant`, under `grantWaiting`'s lock.
    public func revokeGrant(_ entry: AdmissionTable.Entry, grantedBefore cutoff: Date) throws -> Bool {
        try connection.transaction { c in
            try c.execute("select pg_advisory_xact_lock(727276)")
            let parameters = [String(entry.seq), Timestamp.text(cutoff)]
            try c.execute(
                """
                delete from baton.rate_tokens t using baton.holds h
                where h.seq = $1::bigint and h.granted and not h.told and h.granted_at < $2::timestamptz
                  and t.run_id = h.run_id and t.node_key = h.node_key and t.taken_at = h.granted_at
                """, parameters)
            let r = try c.query(
                """
                update baton.holds set granted = false, granted_at = null, told = true
                where seq = $1::bigint and granted and not told and granted_at < $2::timestamptz returning seq
                """, parameters)
            return r.rowCount == 1
        }
    }

    /// Granted holds whose node was not told yet, of the partitions held (all without a fence), oldest first.
    public func untoldGrants() throws -> [AdmissionTable.Entry] {
        let columns = Self.holdColumns
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
                        return AdmissionClaim(
                            name: name, limit: limit, per: c["per"]?.numberValue, shareKey: c["key"]?.stringValue, weight: c["weight"]?.intValue)
                    }, cache: cache, granted: r.bool(i, "granted") ?? false, priority: Int(r.int64(i, "priority") ?? 0),
                    grantedAt: r[row: i, column: "granted_at"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }))
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
    /// nets a request and its release within one batch). A grant told now has its rate tokens taken
    /// again `now` (the time its node's `queued` change is written): they count from when it is queued.
    func addHolds(_ holds: [HoldChange], to statement: inout ApplyStatement, now: String) {
        var inserts: [JSON] = []
        var releases: [JSON] = []
        var told: [JSON] = []
        for change in holds {
            switch change {
            case let .insert(runID, request):
                inserts.append([
                    "run_id": .string(runID), "node_key": .string(request.key),
                    "claims": .array(
                        request.claims.map { c in
                            .object(
                                JSONObject(
                                    [("name", .string(c.name)), ("limit", .int(Int64(c.limit)))] + (c.per.map { [("per", .double($0))] } ?? [])
                                        + (c.shareKey.map { [("key", .string($0))] } ?? []) + (c.weight.map { [("weight", .int(Int64($0)))] } ?? [])))
                        }), "priority": .int(Int64(request.priority)),
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
                insert into baton.holds (run_id, node_key, claims, cache, granted, told, priority)
                select (h->>'run_id')::uuid, h->>'node_key', h->'claims',
                       case when jsonb_typeof(h->'cache') = 'object' then h->'cache' end, false, true, (h->>'priority')::int
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
            let n = statement.parameter(now)
            statement.add(
                "hold_told",
                """
                update baton.holds set told = true, granted_at = case when granted_at is null then null else \(n)::timestamptz end
                where seq in (select jsonb_array_elements_text(\(p)::jsonb)::bigint)
                """)
            statement.add(
                "rate_retaken",
                """
                update baton.rate_tokens t set expires_at = \(n)::timestamptz + (t.expires_at - t.taken_at), taken_at = \(n)::timestamptz
                from baton.holds h
                where h.seq in (select jsonb_array_elements_text(\(p)::jsonb)::bigint) and not h.told
                  and t.run_id = h.run_id and t.node_key = h.node_key and t.taken_at = h.granted_at and t.taken_at < \(n)::timestamptz
                """)
        }
    }
}

extension Store {
    /// Event kinds after which a node no longer holds what it was admitted with.
    public static let holdEndingEvents: Set<EventKind> = [
        .awaitingAdmission, .awaitingRate, .awaitingShare, .succeeded, .failed, .cancelled, .retrying, .repeating, .timedOut, .leaseExpired,
        .deadLettered,
        .spawned,
    ]

    /// Each span in which a node of `nodes` held its admission: from a `queued` event to the next event
    /// that ends the hold (`holdEndingEvents`), in seconds since 1970; a span still open ends at +infinity.
    /// The spans of two holders of one mutex must never overlap.
    public func holdSpans(ofRun id: String, nodes: Set<String>) throws -> [(node: String, from: Double, to: Double)] {
        let r = try connection.query(
            """
            select node_key, kind, extract(epoch from at)::float8 as t from baton.events
            where run_id = $1::uuid and node_key is not null and kind = any($2::text[]) order by id
            """, [id, "{" + (Store.holdEndingEvents.map(\.rawValue).sorted() + [EventKind.queued.rawValue]).joined(separator: ",") + "}"])
        var open: [String: Double] = [:]
        var spans: [(node: String, from: Double, to: Double)] = []
        for i in 0..<r.rowCount {
            guard let key = r[row: i, column: "node_key"], nodes.contains(key), let t = r[row: i, column: "t"].flatMap(Double.init) else { continue }
            if r[row: i, column: "kind"].flatMap(EventKind.init(rawValue:)) == .queued {
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
