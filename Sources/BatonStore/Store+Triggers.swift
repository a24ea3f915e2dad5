import Baton
import BatonPostgres

/// Triggers (migration 24): graphs started by events posted to `POST /api/v1/events`, once per event
/// id. The event's row is the claim on its id; each run is submitted under `trigger:NAME:ID`, so a
/// repost after a crash between the two starts what is missing and nothing twice.
extension Store {
    private static let triggerColumns = """
        name, event_type, graph::text as graph, filters::text as filters, created_at::text as created_at, created_by
        """

    /// Stores a new trigger (its graph validated by the caller) with its audit entry, in one
    /// transaction; throws `TriggerExists` if the name is taken. Returns it as stored.
    public func addTrigger(_ trigger: TriggerRow, audit: AuditEntry) throws -> TriggerRow {
        try connection.transaction { c in
            let r = try c.query(
                """
                insert into baton.triggers (name, event_type, graph, filters, created_by)
                values ($1, $2, $3::jsonb, $4::jsonb, coalesce($5, $6))
                on conflict (name) do nothing
                returning \(Self.triggerColumns)
                """,
                [
                    trigger.name, trigger.eventType, trigger.graph.serialized(), JSON.array(trigger.filters.map(\.json)).serialized(),
                    audit.tokenName, audit.source,
                ])
            guard r.rowCount == 1 else { throw TriggerExists(name: trigger.name) }
            try recordAudit(audit, status: 201)
            return try Self.triggerRow(r, 0)
        }
    }

    /// The triggers by name; only those of `eventType` when given.
    public func triggers(eventType: String? = nil) throws -> [TriggerRow] {
        let r = try connection.query(
            "select \(Self.triggerColumns) from baton.triggers where $1::text is null or event_type = $1 order by name", [eventType])
        return try (0..<r.rowCount).map { try Self.triggerRow(r, $0) }
    }

    /// The trigger named `name`, or nil.
    public func trigger(named name: String) throws -> TriggerRow? {
        let r = try connection.query("select \(Self.triggerColumns) from baton.triggers where name = $1", [name])
        return r.rowCount == 0 ? nil : try Self.triggerRow(r, 0)
    }

    /// Removes a trigger (the events and runs it started stay), audited; false if there was none.
    public func deleteTrigger(_ name: String, audit: AuditEntry) throws -> Bool {
        try connection.transaction { c in
            guard try c.execute("delete from baton.triggers where name = $1", [name]) == 1 else { return false }
            try recordAudit(audit, status: 204)
            return true
        }
    }

    /// Receives event `id` of `type` with `data`: on its first post, records it with the triggers it
    /// matches (and the audit entry) and starts their runs with `data` as the input; on a repost with
    /// the same type and data, answers the same runs, starting any that did not start the first time
    /// (a crash, a failed submit). Throws `EventIDConflict` for the same id with another type or data.
    /// A trigger whose graph does not validate with `data` gets an error instead of a run.
    public func receiveEvent(id: String, type: String, data: JSON, limits: GraphLimits, audit: AuditEntry) throws -> EventReceipt {
        let candidates = try triggers(eventType: type)
        let matching = candidates.filter { $0.matches(data) }.map(\.name)
        let (matched, duplicate) = try connection.transaction { c -> ([String], Bool) in
            let claimed = try c.query(
                """
                insert into baton.trigger_events (id, type, data, token_name, source, matched)
                values ($1, $2, $3::jsonb, $4, $5, $6::text[])
                on conflict (id) do nothing
                returning id
                """, [id, type, data.serialized(), audit.tokenName, audit.source, PGArray.literal(matching)])
            if claimed.rowCount == 1 {
                try recordAudit(audit, status: 202)
                return (matching, false)
            }
            // A concurrent first post of the same id waited above for its commit, so its row is here.
            let existing = try c.query(
                """
                select type = $2 and data = $3::jsonb as same, array_to_json(matched)::text as matched
                from baton.trigger_events where id = $1
                """, [id, type, data.serialized()])
            guard existing.rowCount == 1, existing.bool(0, "same") == true else { throw EventIDConflict(id: id) }
            let names = try JSONParser.parse(existing[row: 0, column: "matched"] ?? "[]").arrayValue?.compactMap(\.stringValue) ?? []
            try recordAudit(audit, status: 200)
            return (names, true)
        }
        let recorded = try eventRuns(of: [id])[id] ?? []
        var runs: [TriggerEventRow.Run] = []
        for name in matched {
            if let done = recorded.first(where: { $0.trigger == name && $0.runID != nil }) {
                runs.append(done)
                continue
            }
            let run = try startRun(trigger: candidates.first { $0.name == name }, name: name, eventID: id, data: data, limits: limits)
            let stored = try connection.query(
                """
                insert into baton.trigger_runs (event_id, trigger_name, run_id, error) values ($1, $2, $3::uuid, $4)
                on conflict (event_id, trigger_name) do update
                    set run_id = coalesce(baton.trigger_runs.run_id, excluded.run_id),
                        error = case when coalesce(baton.trigger_runs.run_id, excluded.run_id) is null then excluded.error end
                returning run_id::text as run_id, error
                """, [id, name, run.runID, run.error])
            runs.append(TriggerEventRow.Run(trigger: name, runID: stored[row: 0, column: "run_id"], error: stored[row: 0, column: "error"]))
        }
        return EventReceipt(eventID: id, type: type, duplicate: duplicate, runs: runs)
    }

    /// Starts `trigger`'s run for event `eventID` under its idempotency key (a run started before, by
    /// a post that crashed before recording it, is found by the key), or says why it cannot.
    private func startRun(trigger: TriggerRow?, name: String, eventID: String, data: JSON, limits: GraphLimits) throws -> TriggerEventRow.Run {
        let key = TriggerRow.idempotencyKey(name: name, eventID: eventID)
        guard let trigger else {
            let earlier = try connection.query("select run_id::text as run_id from baton.idempotency_keys where key = $1", [key])
            if let runID = earlier[row: 0, column: "run_id"] { return .init(trigger: name, runID: runID, error: nil) }
            return .init(trigger: name, runID: nil, error: "trigger \(name) was deleted before its run started")
        }
        let graph: Graph
        var decoder = GraphDecoder(limits: limits)
        // Planned as `submit` plans: a node that names no version runs the newest one live workers serve.
        decoder.servedVersions = Self.servedVersions(of: try liveWorkers())
        do {
            graph = try decoder.decode(trigger.graph, input: data, defaultName: trigger.name, measuringInputs: true)
        } catch {
            let problems = error.problems.map(\.description).joined(separator: "; ")
            return .init(trigger: name, runID: nil, error: "trigger \(name): the graph does not validate with this event's data: \(problems)")
        }
        do {
            return .init(trigger: name, runID: try submit(graph, idempotencyKey: key).id, error: nil)
        } catch let conflict as IdempotencyKeyConflict {
            return .init(
                trigger: name, runID: nil,
                error: "trigger \(name): key \(conflict.key) already belongs to run \(conflict.runID), of another graph (the trigger was replaced)")
        }
    }

    /// The received events, newest first (those received before `before`, an event id, when given;
    /// only those of `type` when given), each with its runs and their status now.
    public func triggerEvents(type: String? = nil, before: String? = nil, limit: Int = 100) throws -> [TriggerEventRow] {
        let r = try connection.query(
            """
            select e.id, e.type, e.data::text as data, e.received_at::text as received_at, e.token_name, e.source,
                   array_to_json(e.matched)::text as matched
            from baton.trigger_events e
            where ($1::text is null or e.type = $1)
              and ($2::text is null or (e.received_at, e.id) < (select b.received_at, b.id from baton.trigger_events b where b.id = $2))
            order by e.received_at desc, e.id desc limit $3::int
            """, [type, before, String(limit)])
        let ids = (0..<r.rowCount).compactMap { r[row: $0, column: "id"] }
        let runs = try eventRuns(of: ids)
        return try (0..<r.rowCount).map { i in
            let id = r[row: i, column: "id"] ?? ""
            return TriggerEventRow(
                id: id, type: r[row: i, column: "type"] ?? "", data: try JSONParser.parse(r[row: i, column: "data"] ?? "{}"),
                receivedAt: r[row: i, column: "received_at"] ?? "", tokenName: r[row: i, column: "token_name"],
                source: r[row: i, column: "source"],
                matched: try JSONParser.parse(r[row: i, column: "matched"] ?? "[]").arrayValue?.compactMap(\.stringValue) ?? [],
                runs: runs[id] ?? [])
        }
    }

    /// The recorded runs of each event in `ids`, by trigger name, with each run's status now.
    private func eventRuns(of ids: [String]) throws -> [String: [TriggerEventRow.Run]] {
        guard !ids.isEmpty else { return [:] }
        let r = try connection.query(
            """
            select t.event_id, t.trigger_name, t.run_id::text as run_id, t.error,
                   (select r.status from baton.runs r where r.id = t.run_id limit 1) as status
            from baton.trigger_runs t where t.event_id = any($1::text[]) order by t.event_id, t.trigger_name
            """, [PGArray.literal(ids)])
        var runs: [String: [TriggerEventRow.Run]] = [:]
        for i in 0..<r.rowCount {
            runs[r[row: i, column: "event_id"] ?? "", default: []].append(
                TriggerEventRow.Run(
                    trigger: r[row: i, column: "trigger_name"] ?? "", runID: r[row: i, column: "run_id"], error: r[row: i, column: "error"],
                    status: r[row: i, column: "status"].flatMap(RunStatus.init(rawValue:))))
        }
        return runs
    }

    private static func triggerRow(_ r: PGResult, _ i: Int) throws -> TriggerRow {
        let filters = try JSONParser.parse(r[row: i, column: "filters"] ?? "[]").arrayValue ?? []
        return TriggerRow(
            name: r[row: i, column: "name"] ?? "", eventType: r[row: i, column: "event_type"] ?? "",
            graph: try JSONParser.parse(r[row: i, column: "graph"] ?? "{}"),
            filters: filters.compactMap { try? TriggerFilter.parse($0).get() }, createdAt: r[row: i, column: "created_at"] ?? "",
            createdBy: r[row: i, column: "created_by"])
    }
}
