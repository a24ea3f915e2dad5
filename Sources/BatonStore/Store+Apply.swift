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
        let staged = try StagedBatch(batch, now: now, dueText: Timestamp.text)
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
        let queues = staged.queues
        if staged.isEmpty && heartbeats.isEmpty && handledRequests.isEmpty && (confirmedBatch == nil || confirmedPartitions?.isEmpty == true)
            && holds.isEmpty && (fence == nil || batch.isEmpty)
        {
            return nil  // with a fence, a batch of runs whose reports changed nothing still proves them held
        }
        if queues { statement.addBatchNumber() }
        // Written for runs of partitions this coordinator must still hold, under the same epochs.
        if fence != nil, let check = try fenceSQL(for: PartitionFence.runs(of: batch, holds: holds), parameter: { statement.parameter($0) }) {
            statement.addCheck("fence", check)
        }
        let stamp = queues ? "case when u.status = 'queued' then (select id from batch) else n.dispatch_batch end" : "n.dispatch_batch"
        let insertedRows = staged.rows.filter(\.isInserted).map(row)
        let pruned = staged.prunes.map { prune -> JSON in
            ["run_id": .string(prune.runID), "run_submitted_at": submitted(prune.runID), "prefix": .string(prune.prefix)]
        }
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
        let updates = insertedRows.isEmpty ? staged.rows : staged.rows.filter { !$0.isInserted }
        if !updates.isEmpty {
            let source = RecordSource.sql(
                updates.map(row),
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
        if !staged.runs.isEmpty {
            let runs = staged.runs.map { run -> JSON in
                [
                    "id": .string(run.runID), "submitted_at": submitted(run.runID), "status": .string(run.status.rawValue),
                    "error": run.error.map(JSON.string) ?? .null,
                ]
            }
            let runsParameter = statement.parameter(JSON.array(runs).serialized())
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
        if !staged.events.isEmpty {
            let source = RecordSource.sql(
                staged.events.map(event),
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
        if !staged.cacheEntries.isEmpty {
            let cacheRows = staged.cacheEntries.map { c -> JSON in
                [
                    "procedure": .string(c.lookup.procedure), "input": .string(c.lookup.input), "output": c.output, "run_id": .string(c.runID),
                    "node_key": .string(c.node),
                ]
            }
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
        for run in staged.runs where run.status.isTerminal { submittedAt[run.runID] = nil }
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

    /// A staged row as the statement's records carry it (a field left out is NULL; the `set…` and
    /// `reset` flags say how the update treats the stored row).
    private func row(_ u: StagedNodeRow) -> JSON {
        var row: [(key: String, value: JSON)] = []
        row.reserveCapacity(u.isInserted ? 26 : 22)
        row.append(("run_id", .string(u.runID)))
        row.append(("run_submitted_at", submitted(u.runID)))
        row.append(("key", .string(u.key)))
        row.append(("status", .string(u.status.rawValue)))
        row.append(("attempts", .int(Int64(u.attempts))))
        row.append(("set_input", .bool(u.setInput)))
        if let input = u.input { row.append(("input", input)) }
        row.append(("set_output", .bool(u.setOutput)))
        if let output = u.output { row.append(("output", output)) }
        if let error = u.error { row.append(("error", .string(error))) }
        if let errorType = u.errorType { row.append(("error_type", .string(errorType))) }
        if let worker = u.worker { row.append(("worker", .string(worker))) }
        row.append(("reset", .bool(u.reset)))
        if u.setFragment {
            row.append(("set_fragment", true))
            row.append(("fragment", u.fragment ?? .null))
        }
        if let queuedAt = u.queuedAt { row.append(("queued_at", .string(Timestamp.text(queuedAt)))) }
        if let startedAt = u.startedAt { row.append(("started_at", .string(Timestamp.text(startedAt)))) }
        if let finishedAt = u.finishedAt { row.append(("finished_at", .string(Timestamp.text(finishedAt)))) }
        if let dueAt = u.dueAt { row.append(("due_at", .string(Timestamp.text(dueAt)))) }
        if let scheduler = u.scheduler { row.append(("scheduler", scheduler)) }
        if u.setToken {
            row.append(("set_token", true))
            if let token = u.attemptToken { row.append(("attempt_token", .string(token))) }
        }
        if u.isInserted {
            row.append(("procedure", .string(u.procedure ?? "")))
            row.append(("template", u.template ?? .null))
            row.append(("position", .int(Int64(u.position ?? 0))))
            row.append(("pool", .string(u.pool ?? "")))
        }
        return .object(JSONObject(row))
    }

    private func event(_ e: StagedBatch.Event) -> JSON {
        [
            "run_id": .string(e.runID), "run_submitted_at": submitted(e.runID), "node_key": e.node.map(JSON.string) ?? .null,
            "kind": .string(e.kind.rawValue), "at": .string(Timestamp.text(e.at)), "detail": e.detail,
        ]
    }
}
