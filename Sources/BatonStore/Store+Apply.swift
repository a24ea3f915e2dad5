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
                insert into baton.nodes as n (run_id, key, \(NodeColumnSQL.insertColumns), dispatch_batch, run_submitted_at)
                select u.run_id, u.key, \(NodeColumnSQL.insertValues), \(insertStamp), u.run_submitted_at
                from jsonb_to_recordset(\(insertsParameter)::jsonb) as u(
                    run_id uuid, key text, \(NodeColumnSQL.insertTypes), run_submitted_at timestamptz)
                on conflict (run_id, key, run_submitted_at) do update set
                    \(NodeColumnSQL.conflictSet), dispatch_batch = excluded.dispatch_batch
                """)
        }
        let updates = insertedRows.isEmpty ? staged.rows : staged.rows.filter { !$0.isInserted }
        if !updates.isEmpty {
            let source = RecordSource.sql(updates.map(row), columns: NodeColumnSQL.updateColumns, alias: "u", in: &statement)
            statement.add(
                "node_updates",
                """
                update baton.nodes n set
                    \(NodeColumnSQL.updateSet),
                    dispatch_batch = \(stamp)
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

    /// A staged row as the statement's records carry it: its identity, the flags set, and each
    /// column with a value (an inserted row's own columns only when it is inserted); a field left
    /// out is NULL.
    private func row(_ u: StagedNodeRow) -> JSON {
        var row: [(key: String, value: JSON)] = []
        row.reserveCapacity(NodeColumn.all.count + 5)
        row.append(("run_id", .string(u.runID)))
        row.append(("run_submitted_at", submitted(u.runID)))
        row.append(("key", .string(u.key)))
        for flag in NodeFlag.allCases where flag.isSet(in: u) { row.append((flag.rawValue, true)) }
        for column in NodeColumn.all where u.isInserted || column.update != .insertOnly {
            guard let value = column.value(u) else { continue }
            switch value {
            case let .text(text): row.append((column.name, .string(text)))
            case let .int(number): row.append((column.name, .int(number)))
            case let .json(json): row.append((column.name, json))
            case let .time(date): row.append((column.name, .string(Timestamp.text(date))))
            }
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
