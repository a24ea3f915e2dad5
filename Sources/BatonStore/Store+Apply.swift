import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Persists what the scheduler decided for a batch of events, for any number of
    /// runs, in one transaction: node rows, one event per transition, run statuses.
    /// Dispatch commands are ignored here; the caller publishes them after this returns.
    ///
    /// `published` are tasks the broker confirmed since the last batch: their nodes are marked so a
    /// restarted coordinator does not publish them again. A heartbeat saying its worker stops
    /// removes that worker's row.
    public func apply(
        _ batch: [(runID: String, commands: [SchedulerCommand])], heartbeats: [WorkerHeartbeat] = [],
        handledRequests: [Int] = [], published: [PublishedTask] = [], now: Date = Date()
    ) throws {
        let nowText = Timestamp.text(now)
        var rows: [String: JSON] = [:]  // "run\u{0}key" -> merged row
        var rowOrder: [String] = []
        var events: [JSON] = []
        var runs: [String: JSON] = [:]  // run id -> its last status in this batch
        for (runID, commands) in batch {
            for command in commands {
                switch command {
                case let .node(change):
                    let id = runID + "\u{0}" + change.key
                    if rows[id] == nil { rowOrder.append(id) }
                    rows[id] = merge(rows[id], change, runID: runID, now: nowText)
                    events.append(event(for: change, runID: runID, now: nowText))
                case let .runStatus(status, error):
                    runs[runID] = ["id": .string(runID), "status": .string(status.rawValue), "error": error.map(JSON.string) ?? .null]
                    var detail: JSON = ["status": .string(status.rawValue)]
                    if let error { detail = ["status": .string(status.rawValue), "error": .string(error)] }
                    events.append([
                        "run_id": .string(runID), "node_key": .null, "kind": .string("run_\(status.rawValue)"),
                        "at": .string(nowText), "detail": detail,
                    ])
                case let .event(key, kind, detail):
                    events.append([
                        "run_id": .string(runID), "node_key": .string(key), "kind": .string(kind),
                        "at": .string(nowText), "detail": detail,
                    ])
                case .dispatch, .cancelTasks:
                    break
                }
            }
        }
        // A mark for a node this batch also writes goes into that row: one statement may not update a row twice.
        var marks: [JSON] = []
        for task in published {
            let id = task.runID + "\u{0}" + task.key
            if var row = rows[id]?.objectValue {
                if row["attempts"]?.intValue == task.attempt { row["published_attempt"] = .int(Int64(task.attempt)) }
                rows[id] = .object(row)
            } else {
                marks.append(["run_id": .string(task.runID), "key": .string(task.key), "attempt": .int(Int64(task.attempt))])
            }
        }
        if rows.isEmpty && runs.isEmpty && heartbeats.isEmpty && events.isEmpty && handledRequests.isEmpty && marks.isEmpty { return }
        // One statement, so one round trip, and atomic on its own: no BEGIN/COMMIT needed.
        var latest: [String: WorkerHeartbeat] = [:]
        for h in heartbeats { latest[h.id] = h }  // one row per worker, or the upsert touches a row twice
        let live = latest.values.filter { !$0.stopping }
        let stopped = latest.values.filter(\.stopping).map { JSON.string($0.id) }
        // Only the parts this batch needs: a smaller statement plans faster, and the hot path
        // (a result and the next task) writes nodes, events and perhaps a run, nothing else.
        var statement = ApplyStatement()
        if !rowOrder.isEmpty {
            let rowsParameter = statement.parameter(JSON.array(rowOrder.map { rows[$0]! }).serialized())
            statement.add(
                "node_updates",
                """
                update baton.nodes n set
                    status = u.status,
                    attempts = u.attempts,
                    input = case when u.set_input then u.input else n.input end,
                    output = case when u.set_output then u.output when u.reset then null else n.output end,
                    error = u.error,
                    worker = case when u.reset then u.worker else coalesce(u.worker, n.worker) end,
                    due_at = u.due_at,
                    scheduler = coalesce(u.scheduler, n.scheduler),
                    published_attempt = case when u.reset or u.status <> 'queued' then u.published_attempt
                                             else coalesce(u.published_attempt, n.published_attempt) end,
                    queued_at = coalesce(u.queued_at, n.queued_at),
                    started_at = case when u.reset then u.started_at else coalesce(u.started_at, n.started_at) end,
                    finished_at = case when u.reset then u.finished_at else coalesce(u.finished_at, n.finished_at) end
                from jsonb_to_recordset(\(rowsParameter)::jsonb) as u(
                    run_id uuid, key text, status text, attempts int, set_input bool, input jsonb,
                    set_output bool, output jsonb, error text, worker text, reset bool,
                    queued_at timestamptz, started_at timestamptz, finished_at timestamptz, due_at timestamptz, scheduler jsonb,
                    published_attempt int)
                where n.run_id = u.run_id and n.key = u.key
                """)
        }
        if !runs.isEmpty {
            let runsParameter = statement.parameter(JSON.array(Array(runs.values)).serialized())
            let nowParameter = statement.parameter(nowText)
            statement.add(
                "run_updates",
                """
                update baton.runs r set
                    status = u.status,
                    error = u.error,
                    started_at = coalesce(r.started_at, \(nowParameter)::timestamptz),
                    finished_at = case when u.status in ('succeeded', 'failed', 'cancelled') then \(nowParameter)::timestamptz else null end
                from jsonb_to_recordset(\(runsParameter)::jsonb) as u(id uuid, status text, error text)
                where r.id = u.id
                """)
        }
        if !events.isEmpty {
            let eventsParameter = statement.parameter(JSON.array(events).serialized())
            statement.add(
                "new_events",
                """
                insert into baton.events (run_id, node_key, kind, at, detail)
                select (e->>'run_id')::uuid, e->>'node_key', e->>'kind', (e->>'at')::timestamptz, e->'detail'
                from jsonb_array_elements(\(eventsParameter)::jsonb) with ordinality as t(e, ord)
                order by t.ord
                """)
        }
        if !handledRequests.isEmpty {
            let requestsParameter = statement.parameter(JSON.array(handledRequests.map { .int(Int64($0)) }).serialized())
            statement.add(
                "handled",
                """
                update baton.requests set handled_at = now()
                where id in (select jsonb_array_elements_text(\(requestsParameter)::jsonb)::bigint)
                """)
        }
        if !live.isEmpty {
            statement.add("worker_upserts", Store.workerUpsertSQL(rows: statement.parameter(Store.workerRows(live).serialized())))
        }
        if !stopped.isEmpty {
            let stoppedParameter = statement.parameter(JSON.array(stopped).serialized())
            statement.add("worker_exits", "delete from baton.workers where id in (select jsonb_array_elements_text(\(stoppedParameter)::jsonb))")
        }
        if !marks.isEmpty {
            let marksParameter = statement.parameter(JSON.array(marks).serialized())
            statement.add(
                "publish_marks",
                """
                update baton.nodes n set published_attempt = m.attempt
                from jsonb_to_recordset(\(marksParameter)::jsonb) as m(run_id uuid, key text, attempt int)
                where n.run_id = m.run_id and n.key = m.key and n.attempts = m.attempt and n.status = 'queued'
                """)
        }
        try connection.execute(statement.sql, statement.parameters)
    }

    /// Folds a node's transitions within one batch into the row it ends as.
    private func merge(_ previous: JSON?, _ change: NodeChange, runID: String, now: String) -> JSON {
        var row =
            previous?.objectValue
            ?? JSONObject([
                ("run_id", .string(runID)), ("key", .string(change.key)), ("set_input", false), ("set_output", false), ("reset", false),
            ])
        row["status"] = .string(change.status.rawValue)
        row["attempts"] = .int(Int64(change.attempt))
        row["error"] = change.error.map(JSON.string) ?? .null
        if let input = change.input { row["set_input"] = true; row["input"] = input }
        if let output = change.output { row["set_output"] = true; row["output"] = output }
        if let worker = change.worker { row["worker"] = .string(worker) }
        if let bookkeeping = change.bookkeeping { row["scheduler"] = bookkeeping }
        row["due_at"] = change.dueAt.map { .string(Timestamp.text($0)) } ?? .null
        if change.reset {  // what this batch sets later still lands; what came before is cleared
            row["reset"] = true
            row["worker"] = nil
            row["started_at"] = nil
            row["finished_at"] = nil
            row["output"] = nil
            row["set_output"] = false
        }
        switch change.status {
        case .queued:
            row["queued_at"] = .string(now)
        case .running:
            row["started_at"] = .string(change.startedAt.map(Timestamp.text) ?? now)
        default:
            if let started = change.startedAt { row["started_at"] = .string(Timestamp.text(started)) }
            if change.status.isTerminal { row["finished_at"] = .string(change.finishedAt.map(Timestamp.text) ?? now) }
        }
        return .object(row)
    }

    private func event(for change: NodeChange, runID: String, now: String) -> JSON {
        var detail: [(key: String, value: JSON)] = [("attempt", .int(Int64(change.attempt)))]
        if let error = change.error { detail.append((change.status == .skipped || change.status == .cancelled ? "reason" : "error", .string(error))) }
        if let worker = change.worker { detail.append(("worker", .string(worker))) }
        if let due = change.dueAt { detail.append(("due_at", .string(Timestamp.text(due)))) }
        let kind: String
        let at: Date?
        switch change.status {
        case .running: kind = change.event ?? "started"; at = change.startedAt
        default: kind = change.event ?? change.status.rawValue; at = change.status.isTerminal ? change.finishedAt : nil
        }
        return [
            "run_id": .string(runID), "node_key": .string(change.key), "kind": .string(kind),
            "at": .string(at.map(Timestamp.text) ?? now), "detail": .object(JSONObject(detail)),
        ]
    }
}
