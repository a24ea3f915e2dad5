import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Persists what the scheduler decided for a batch of events, for any number of
    /// runs, in one transaction: node rows, one event per transition, run statuses.
    /// Dispatch commands are ignored here; the caller publishes them after this returns.
    ///
    /// Nodes queued by this batch are stamped with a new batch number, which is returned; after the
    /// broker confirmed the batch's tasks, a later call passes it as `confirmedBatch`, so a restarted
    /// coordinator does not publish them again (one row written per batch, not one per task).
    /// A heartbeat saying its worker stops removes that worker's row.
    public func apply(
        _ batch: [(runID: String, commands: [SchedulerCommand])], heartbeats: [WorkerHeartbeat] = [],
        handledRequests: [Int] = [], confirmedBatch: Int64? = nil, confirmedPartitions: [Int]? = nil, holds: [HoldChange] = [],
        now: Date = Date()
    ) throws -> Int64? {
        let nowText = Timestamp.text(now)
        try learnSubmittedAt(of: batch.map(\.runID))
        var rows: [String: JSON] = [:]  // "run\u{0}key" -> merged row
        var rowOrder: [String] = []
        var events: [JSON] = []
        var runs: [String: JSON] = [:]  // run id -> its last status in this batch
        var cacheRows: [JSON] = []
        var inserted = Set<String>()  // rows of children added by this batch (inserted, not updated)
        var pruned: [JSON] = []  // {run_id, prefix}: children rows to delete unless this batch inserts them
        var fragments: [String: JSON] = [:]  // "run\u{0}parent" -> the fragment column's new value
        func dropChildren(_ runID: String, of parent: String) {
            let prefix = runID + "\u{0}" + parent + "/"
            for id in rowOrder where id.hasPrefix(prefix) {
                rows[id] = nil
                inserted.remove(id)
            }
            rowOrder.removeAll { $0.hasPrefix(prefix) }
            pruned.append(["run_id": .string(runID), "run_submitted_at": submitted(runID), "prefix": .string(parent + "/")])
        }
        for (runID, commands) in batch {
            for command in commands {
                switch command {
                case let .expand(parent, fragment, position):
                    dropChildren(runID, of: parent)
                    // A fragment that cannot be written fails the batch (and so, found by splitting, its run):
                    // storing null instead would make its children vanish on the next load.
                    do { fragments[runID + "\u{0}" + parent] = try JSON(encoding: fragment) } catch {
                        throw StoreError("run \(runID): the children of node '\(parent)' cannot be stored: \(error)")
                    }
                    for (offset, key) in fragment.order.enumerated() {
                        let node = fragment.nodes[key]!
                        let id = runID + "\u{0}" + key
                        inserted.insert(id)
                        rowOrder.append(id)
                        rows[id] = .object(
                            JSONObject([
                                ("run_id", .string(runID)), ("run_submitted_at", submitted(runID)), ("key", .string(key)),
                                ("procedure", .string(node.procedure)),
                                ("template", node.input.written), ("position", .int(Int64(position + offset))), ("pool", .string(node.pool)),
                                ("status", "pending"), ("attempts", 0), ("set_input", false), ("set_output", false), ("reset", false),
                            ]))
                    }
                case let .prune(parent):
                    dropChildren(runID, of: parent)
                    fragments[runID + "\u{0}" + parent] = .null
                case let .node(change):
                    let id = runID + "\u{0}" + change.key
                    if rows[id] == nil { rowOrder.append(id) }
                    rows[id] = merge(rows[id], change, runID: runID, now: nowText)
                    events.append(event(for: change, runID: runID, now: nowText))
                case let .runStatus(status, error):
                    runs[runID] = [
                        "id": .string(runID), "submitted_at": submitted(runID), "status": .string(status.rawValue),
                        "error": error.map(JSON.string) ?? .null,
                    ]
                    var detail: JSON = ["status": .string(status.rawValue)]
                    if let error { detail = ["status": .string(status.rawValue), "error": .string(error)] }
                    events.append([
                        "run_id": .string(runID), "run_submitted_at": submitted(runID), "node_key": .null,
                        "kind": .string(EventKind(run: status).rawValue),
                        "at": .string(nowText), "detail": detail,
                    ])
                case let .event(key, kind, detail):
                    events.append([
                        "run_id": .string(runID), "run_submitted_at": submitted(runID), "node_key": .string(key), "kind": .string(kind.rawValue),
                        "at": .string(nowText), "detail": detail,
                    ])
                case let .cacheStore(key, lookup, output):
                    cacheRows.append([
                        "procedure": .string(lookup.procedure), "input": .string(lookup.input), "output": output,
                        "run_id": .string(runID), "node_key": .string(key),
                    ])
                case .dispatch, .cancelTasks, .acquire, .release:
                    break  // holds come as `holds`, netted by the caller
                }
            }
        }
        for (id, fragment) in fragments {
            // The scheduler changes the parent in the same event, so its row is in this batch.
            guard case var .object(row)? = rows[id] else { continue }
            row["set_fragment"] = true
            row["fragment"] = fragment
            rows[id] = .object(row)
        }
        // One statement, so one round trip, and atomic on its own: no BEGIN/COMMIT needed.
        var latest: [String: WorkerHeartbeat] = [:]
        for h in heartbeats {  // one row per worker, or the upsert touches a row twice
            // A later heartbeat without schemas must not drop those of an earlier one in the same batch.
            latest[h.id] = h.schemas == nil ? h.carrying(schemas: latest[h.id]?.schemas) : h
        }
        let live = latest.values.filter { !$0.stopping }
        let stopped = latest.values.filter(\.stopping).map { JSON.string($0.id) }
        // Only the parts this batch needs: a smaller statement plans faster, and the hot path
        // (a result and the next task) writes nodes, events and perhaps a run, nothing else.
        var statement = ApplyStatement()
        // A batch that publishes tasks gets a number: its queued rows carry it, and once the broker
        // confirmed the batch, recording the number covers every task it published (also tasks
        // published again on recovery, whose rows an earlier batch stamped).
        let queues = batch.contains { $0.commands.contains { if case .dispatch = $0 { true } else { false } } }
        if !queues && rows.isEmpty && pruned.isEmpty && runs.isEmpty && heartbeats.isEmpty && events.isEmpty && handledRequests.isEmpty
            && (confirmedBatch == nil || confirmedPartitions?.isEmpty == true) && holds.isEmpty && cacheRows.isEmpty
            && (fence == nil || batch.isEmpty)
        {
            return nil  // with a fence, a batch of runs whose reports changed nothing still proves them held
        }
        if queues { statement.addBatchNumber() }
        // Written for runs of partitions this coordinator must still hold, under the same epochs.
        if fence != nil, let check = try fenceSQL(for: PartitionFence.runs(of: batch, holds: holds), parameter: { statement.parameter($0) }) {
            statement.addCheck("fence", check)
        }
        let stamp = queues ? "case when u.status = 'queued' then (select id from batch) else n.dispatch_batch end" : "n.dispatch_batch"
        let insertedRows = rowOrder.filter(inserted.contains).map { rows[$0]! }
        // The children rows this batch inserts: the insert writes them, and the delete keeps them.
        let insertsParameter =
            insertedRows.isEmpty && pruned.isEmpty ? "" : statement.parameter(JSON.array(insertedRows).serialized())
        if !pruned.isEmpty {
            let prunedParameter = statement.parameter(JSON.array(pruned).serialized())
            statement.add(
                "children_removed",
                """
                delete from baton.nodes n
                using jsonb_to_recordset(\(prunedParameter)::jsonb) as d(run_id uuid, run_submitted_at timestamptz, prefix text)
                where n.run_id = d.run_id and n.run_submitted_at = d.run_submitted_at and left(n.key, length(d.prefix)) = d.prefix
                and not exists (
                    select 1 from jsonb_to_recordset(\(insertsParameter)::jsonb) as i(run_id uuid, key text)
                    where i.run_id = n.run_id and i.key = n.key)
                """)
        }
        if !insertedRows.isEmpty {
            let insertStamp = queues ? "case when u.status = 'queued' then (select id from batch) end" : "null::bigint"
            statement.add(
                "children_added",
                """
                insert into baton.nodes as n (
                    run_id, key, procedure, status, attempts, input, output, error, error_type, worker, template, position, pool,
                    due_at, scheduler, dispatch_batch, queued_at, started_at, finished_at, fragment, run_submitted_at, attempt_token)
                select u.run_id, u.key, u.procedure, u.status, u.attempts, u.input, u.output, u.error, u.error_type, u.worker, u.template,
                    u.position, u.pool, u.due_at, coalesce(u.scheduler, '{}'::jsonb), \(insertStamp), u.queued_at, u.started_at,
                    u.finished_at, u.fragment, u.run_submitted_at, u.attempt_token
                from jsonb_to_recordset(\(insertsParameter)::jsonb) as u(
                    run_id uuid, key text, procedure text, status text, attempts int, input jsonb, output jsonb, error text,
                    error_type text, worker text, template jsonb, position int, pool text, due_at timestamptz, scheduler jsonb,
                    queued_at timestamptz, started_at timestamptz, finished_at timestamptz, fragment jsonb, run_submitted_at timestamptz,
                    attempt_token text)
                on conflict (run_id, key, run_submitted_at) do update set
                    procedure = excluded.procedure, status = excluded.status, attempts = excluded.attempts, input = excluded.input,
                    output = excluded.output, error = excluded.error, error_type = excluded.error_type, worker = excluded.worker, template = excluded.template,
                    position = excluded.position, pool = excluded.pool, due_at = excluded.due_at, scheduler = excluded.scheduler,
                    dispatch_batch = excluded.dispatch_batch, queued_at = excluded.queued_at, started_at = excluded.started_at,
                    finished_at = excluded.finished_at, fragment = excluded.fragment, attempt_token = excluded.attempt_token
                """)
        }
        let updates = inserted.isEmpty ? rowOrder : rowOrder.filter { !inserted.contains($0) }
        if !updates.isEmpty {
            let source = RecordSource.sql(
                updates.map { rows[$0]! },
                columns: [
                    .init(name: "run_id", type: "uuid"), .init(name: "run_submitted_at", type: "timestamptz"),
                    .init(name: "key", type: "text"), .init(name: "status", type: "text"), .init(name: "attempts", type: "int"),
                    .init(name: "set_input", type: "bool"), .init(name: "input", type: "jsonb"),
                    .init(name: "set_output", type: "bool"), .init(name: "output", type: "jsonb"), .init(name: "error", type: "text"),
                    .init(name: "error_type", type: "text"), .init(name: "worker", type: "text"), .init(name: "reset", type: "bool"),
                    .init(name: "set_fragment", type: "bool"),
                    .init(name: "fragment", type: "jsonb"), .init(name: "queued_at", type: "timestamptz"),
                    .init(name: "started_at", type: "timestamptz"), .init(name: "finished_at", type: "timestamptz"),
                    .init(name: "due_at", type: "timestamptz"), .init(name: "scheduler", type: "jsonb"),
                    .init(name: "set_token", type: "bool"), .init(name: "attempt_token", type: "text"),
                ], alias: "u", in: &statement)
            statement.add(
                "node_updates",
                """
                update baton.nodes n set
                    status = u.status,
                    attempts = u.attempts,
                    input = case when u.set_input then u.input else n.input end,
                    output = case when u.set_output then u.output when u.reset then null else n.output end,
                    error = u.error,
                    error_type = u.error_type,
                    worker = case when u.reset then u.worker else coalesce(u.worker, n.worker) end,
                    due_at = u.due_at,
                    scheduler = coalesce(u.scheduler, n.scheduler),
                    fragment = case when u.set_fragment then u.fragment else n.fragment end,
                    dispatch_batch = \(stamp),
                    attempt_token = case when u.set_token then u.attempt_token else n.attempt_token end,
                    queued_at = coalesce(u.queued_at, n.queued_at),
                    started_at = case when u.reset then u.started_at else coalesce(u.started_at, n.started_at) end,
                    finished_at = case when u.reset then u.finished_at else coalesce(u.finished_at, n.finished_at) end
                from \(source)
                where n.run_id = u.run_id and n.key = u.key and n.run_submitted_at = u.run_submitted_at
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
                from jsonb_to_recordset(\(runsParameter)::jsonb) as u(id uuid, submitted_at timestamptz, status text, error text)
                where r.id = u.id and r.submitted_at = u.submitted_at
                """)
        }
        if !events.isEmpty {
            let source = RecordSource.sql(
                events,
                columns: [
                    .init(name: "run_id", type: "uuid"), .init(name: "run_submitted_at", type: "timestamptz"),
                    .init(name: "node_key", type: "text"), .init(name: "kind", type: "text"), .init(name: "at", type: "timestamptz"),
                    .init(name: "detail", type: "jsonb"),
                ], alias: "e", in: &statement)
            statement.add(
                "new_events",
                """
                insert into baton.events (run_id, node_key, kind, at, detail, run_submitted_at)
                select e.run_id, e.node_key, e.kind, e.at, e.detail, e.run_submitted_at
                from \(source)
                order by e.ord
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
        addHolds(holds, to: &statement, now: nowText)
        if !cacheRows.isEmpty {
            let cacheParameter = statement.parameter(JSON.array(cacheRows).serialized())
            let nowParameter = statement.parameter(nowText)
            statement.add(
                "cache_inserts",
                """
                insert into baton.cache (procedure, input_hash, input, output, run_id, node_key, succeeded_at)
                select c->>'procedure', sha256(convert_to(c->>'input', 'UTF8')), c->>'input', c->'output',
                       (c->>'run_id')::uuid, c->>'node_key', \(nowParameter)::timestamptz
                from jsonb_array_elements(\(cacheParameter)::jsonb) as t(c)
                """)
        }
        if let confirmedBatch, confirmedPartitions?.isEmpty != true {
            // For the partitions held only (all without a fence), and only those taken before the batch; of
            // those, the ones the confirmed batches published tasks for (updating every row each time
            // would write a row per partition per commit).
            let confirmedParameter = statement.parameter(String(confirmedBatch))
            var held = fence.map { " and id = any(\(statement.parameter($0.heldParameter))::int[])" } ?? ""
            if let confirmedPartitions {
                held += " and id = any(\(statement.parameter(PGArray.literal(confirmedPartitions.sorted().map(String.init))))::int[])"
            }
            statement.add(
                "confirmed",
                """
                update baton.publications set confirmed_through = greatest(confirmed_through, \(confirmedParameter)::bigint)
                where floor <= \(confirmedParameter)::bigint\(held)
                """)
        }
        // Prepared once per shape (which parts the batch needs): the hot path skips parsing and planning.
        let result = try connection.preparedQuery(statement.sql, statement.parameters)
        for (id, run) in runs where RunStatus(rawValue: run["status"]?.stringValue ?? "")?.isTerminal == true {
            submittedAt[id] = nil
        }
        return queues ? result.int64(0, "batch") : nil
    }

    /// Reads the `submitted_at` of runs this store has not loaded (one query for all of them).
    private func learnSubmittedAt(of ids: [String]) throws {
        let missing = Set(ids.filter { submittedAt[$0] == nil })
        guard !missing.isEmpty else { return }
        if submittedAt.count > 100_000 { submittedAt = [:] }  // runs that never ended here (taken over, deleted)
        let r = try connection.query(
            "select id::text, submitted_at::text as submitted_at from baton.runs where id = any($1::uuid[])",
            [PGArray.literal(missing.sorted())])
        for i in 0..<r.rowCount { submittedAt[r[row: i, column: "id"]!] = r[row: i, column: "submitted_at"] }
    }

    /// A run's partition key for the rows of a commit (null for a run that is gone: nothing of it is written).
    private func submitted(_ runID: String) -> JSON { submittedAt[runID].map(JSON.string) ?? .null }

    /// Folds a node's transitions within one batch into the row it ends as.
    private func merge(_ previous: JSON?, _ change: NodeChange, runID: String, now: String) -> JSON {
        var row =
            previous?.objectValue
            ?? JSONObject([
                ("run_id", .string(runID)), ("run_submitted_at", submitted(runID)), ("key", .string(change.key)), ("set_input", false),
                ("set_output", false), ("reset", false),
            ])
        row["status"] = .string(change.status.rawValue)
        row["attempts"] = .int(Int64(change.attempt))
        // A text column cannot hold NUL (a worker's message may): it is dropped rather than failing the run.
        row["error"] = change.error.map { .string($0.replacingOccurrences(of: "\u{0}", with: "")) } ?? .null
        row["error_type"] = change.errorType.map(JSON.string) ?? .null
        if let input = change.input { row["set_input"] = true; row["input"] = input }
        if let output = change.output { row["set_output"] = true; row["output"] = output }
        if let worker = change.worker { row["worker"] = .string(worker) }
        if let bookkeeping = change.bookkeeping { row["scheduler"] = bookkeeping }
        if change.status == .queued {  // a new attempt's token, kept through what the batch does next (started, ended)
            row["set_token"] = true
            row["attempt_token"] = change.attemptToken.map { .string($0.text) } ?? .null
        }
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
        let (kind, at, detail) = change.eventRecord(dueText: Timestamp.text)
        return [
            "run_id": .string(runID), "run_submitted_at": submitted(runID), "node_key": .string(change.key), "kind": .string(kind),
            "at": .string(at.map(Timestamp.text) ?? now), "detail": detail,
        ]
    }
}
