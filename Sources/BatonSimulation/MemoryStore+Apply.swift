import Baton
import BatonStore
import Foundation

extension MemoryStore {
    /// `Store.apply` on the tables, from the same `StagedBatch`: one transaction (on a copy, stored
    /// back only if every part succeeds), the same rows, events, holds, workers and batch numbers, and PostgreSQL's errors
    /// for what it would reject (a run id that is not a UUID, a row of a run that does not exist,
    /// a hold inserted twice, text with a NUL character, JSON it cannot store).
    func apply(
        _ batch: [(runID: String, commands: [SchedulerCommand])], heartbeats: [WorkerHeartbeat], handledRequests: [Int],
        confirmedBatch: Int64?, confirmedPartitions: [Int]? = nil, holds: [HoldChange], now: Date, fence: PartitionFence? = nil
    ) throws -> Int64? {
        if maxStatementBytes < .max {
            let bytes = batch.reduce(0) { total, run in run.commands.reduce(total) { $0 + $1.estimatedBytes } }
            if bytes > maxStatementBytes {
                throw DatabaseError.statement(
                    "the statement is \(bytes) bytes, more than the \(maxStatementBytes)-byte limit of one PostgreSQL message",
                    sqlState: "54000")
            }
        }
        let now = MemoryTimestamp.rounded(now)
        let staged = try StagedBatch(batch, now: now, dueText: MemoryTimestamp.iso)
        var latest: [String: WorkerHeartbeat] = [:]
        for h in heartbeats { latest[h.id] = h.schemas == nil ? h.carrying(schemas: latest[h.id]?.schemas) : h }
        let queues = staged.queues
        if staged.isEmpty && heartbeats.isEmpty && handledRequests.isEmpty && (confirmedBatch == nil || confirmedPartitions?.isEmpty == true)
            && holds.isEmpty
        {
            return nil
        }
        try Self.checkBinding(updates: staged.rows.filter { !$0.isInserted }, events: staged.events)
        // The statement runs from here: a sequence's number is drawn even if it then fails.
        let batchNumber = queues ? nextBatch : nil
        if queues { nextBatch += 1 }
        let clock = self.now  // now() of the transaction
        var t = tables
        let before = t  // every part sees the tables as they were (one statement's snapshot)

        let inserted = Set(staged.rows.lazy.filter(\.isInserted).map { $0.runID + "\u{0}" + $0.key })
        for prune in staged.prunes {
            let run = prune.runID
            try Self.requireUUID(run)
            for key in (t.nodes[run] ?? [:]).keys where key.hasPrefix(prune.prefix) && !inserted.contains(run + "\u{0}" + key) {
                t.nodes[run]![key] = nil
            }
        }
        // Each column by its rule in `NodeColumn.all`, as `Store.apply`'s statement writes it.
        for u in staged.rows where u.isInserted {
            try Self.requireUUID(u.runID)
            guard before.runs[u.runID] != nil else { throw Self.missingRun(u.runID, table: "nodes") }
            t.nodes[u.runID, default: [:]][u.key] = MemoryNodeRow(
                runID: u.runID, key: try Self.text(u.key), values: try NodeColumn.all.map { try $0.inserted(u).map(Self.stored) },
                dispatchBatch: u.status == .queued ? batchNumber : nil)
        }
        for u in staged.rows where !u.isInserted {
            try Self.requireUUID(u.runID)
            _ = try Self.text(u.key)
            // Bound (and so checked) whether or not the row is there.
            let values = try NodeColumn.all.map { $0.update == .insertOnly ? nil : try $0.value(u).map(Self.stored) }
            guard var n = before.nodes[u.runID]?[u.key], t.nodes[u.runID]?[u.key] != nil else { continue }
            for (i, column) in NodeColumn.all.enumerated() {
                n.values[i] = column.updated(n.values[i], staged: values[i], by: u)
            }
            if queues && u.status == .queued { n.dispatchBatch = batchNumber }
            t.nodes[u.runID]![u.key] = n
        }
        for change in staged.runs {
            let (run, status, error) = (change.runID, change.status, change.error)
            try Self.requireUUID(run)
            guard var r = before.runs[run] else { continue }
            r.status = status
            r.error = try Self.text(error)
            r.startedAt = r.startedAt ?? now
            r.finishedAt = status.isTerminal ? now : nil
            t.runs[run] = r
        }
        for e in staged.events {
            try Self.requireUUID(e.runID)
            guard before.runs[e.runID] != nil else { throw Self.missingRun(e.runID, table: "events") }
            _ = try Self.text(e.node)
            appendEvent(to: &t, run: e.runID, node: e.node, kind: e.kind.rawValue, at: e.at, detail: try Self.json(e.detail)!)
        }
        if !handledRequests.isEmpty {
            let handled = Set(handledRequests)
            for i in t.requests.indices where handled.contains(t.requests[i].id) { t.requests[i].handledAt = clock }
        }
        for id in latest.keys.sorted() {
            let h = latest[id]!
            guard !h.stopping else {
                t.workers[id] = nil
                continue
            }
            for text in [h.id, h.host] + h.pools + h.procedures { _ = try Self.text(text) }
            t.workers[id] = MemoryWorkerRow(
                id: h.id, host: h.host, pid: h.pid, pools: h.pools, procedures: h.procedures, slots: h.slots,
                startedAt: MemoryTimestamp.rounded(h.startedAt), lastSeenAt: clock, interval: h.interval,
                schemas: h.schemas.map { $0.mapValues { ProcedureSchema(json: $0.json) } } ?? before.workers[id]?.schemas)
        }
        try applyHolds(holds, to: &t, before: before, now: now)
        for c in staged.cacheEntries {
            _ = try (Self.text(c.lookup.procedure), Self.text(c.lookup.input), Self.text(c.node))
            try Self.requireUUID(c.runID)
            t.cache.append(
                MemoryCacheRow(
                    id: nextCacheID, procedure: c.lookup.procedure, input: c.lookup.input, output: try Self.json(c.output)!, runID: c.runID,
                    node: c.node, succeededAt: now))
            nextCacheID += 1
        }
        if let confirmedBatch {  // the partitions held (all without a fence) taken before the batch
            for i in t.partitions.indices
            where t.partitions[i].floor <= confirmedBatch && fence.map({ $0.epochs[i] != nil }) ?? true
                && confirmedPartitions.map({ $0.contains(i) }) ?? true
            {
                t.partitions[i].confirmedThrough = max(t.partitions[i].confirmedThrough, confirmedBatch)
            }
        }
        tables = t
        return batchNumber
    }

    /// Writes `holds` to `t`; releases and `told` see only the rows that were there before the batch.
    private func applyHolds(_ holds: [HoldChange], to t: inout MemoryTables, before: MemoryTables, now: Date) throws {
        for change in holds {
            switch change {
            case let .insert(runID, request):
                try Self.requireUUID(runID)
                guard before.runs[runID] != nil else { throw Self.missingRun(runID, table: "holds") }
                _ = try Self.text(request.key)
                for claim in request.claims { _ = try Self.text(claim.name) }
                t.holds[nextHoldSeq] = AdmissionTable.Entry(
                    seq: nextHoldSeq, runID: runID, key: request.key, claims: request.claims, cache: request.cache, granted: false,
                    priority: request.priority)
                nextHoldSeq += 1  // a sequence: drawn even if the statement then fails
            case let .release(runID, key):
                for (seq, entry) in before.holds where entry.runID == runID && entry.key == key {
                    t.holds[seq] = nil
                    t.untold.remove(seq)
                }
            case let .told(_, seq):
                guard let row = before.holds[seq] else { break }
                if before.untold.contains(seq), let grantedAt = row.grantedAt, grantedAt < now {  // its rate tokens count from now
                    for claim in row.claims {
                        guard let lifetime = claim.tokenLifetime,
                            let i = t.rateTokens[claim.name]?.firstIndex(of: grantedAt.addingTimeInterval(lifetime))
                        else { continue }
                        t.rateTokens[claim.name]![i] = now.addingTimeInterval(lifetime)
                        t.rateTokens[claim.name]!.sort()
                    }
                    t.holds[seq]?.grantedAt = now
                }
                t.untold.remove(seq)
            }
        }
    }

    /// `Store.grantWaiting`: drops holds of runs that ended and expired rate tokens (but those of grants
    /// not told yet, which count as if taken `now`), grants what can go at `now`, marks the grants untold
    /// and keeps the tokens they took.
    func grantWaiting(now: Date) -> HoldGrants {
        for (seq, entry) in tables.holds where tables.runs[entry.runID].map({ $0.status.isTerminal }) ?? true {
            tables.holds[seq] = nil
            tables.untold.remove(seq)
        }
        // The tokens of grants not told yet count (as if taken now) until told or taken back, expired or not.
        var untold: [String: [(expires: Date, lifetime: Double)]] = [:]
        for seq in tables.untold {
            guard let row = tables.holds[seq], row.granted, let grantedAt = row.grantedAt else { continue }
            for claim in row.claims {
                guard let lifetime = claim.tokenLifetime else { continue }
                untold[claim.name, default: []].append((grantedAt.addingTimeInterval(lifetime), lifetime))
            }
        }
        var kept: [String: [Date]] = [:]
        var counted: [String: [Date]] = [:]
        for (name, expiries) in tables.rateTokens {
            for expires in expiries {
                if let i = untold[name]?.firstIndex(where: { $0.expires == expires }) {
                    let lifetime = untold[name]!.remove(at: i).lifetime
                    kept[name, default: []].append(expires)
                    counted[name, default: []].append(max(expires, now.addingTimeInterval(lifetime)))
                } else if expires > now {
                    kept[name, default: []].append(expires)
                    counted[name, default: []].append(expires)
                }
            }
        }
        let clock = self.now
        let live = tables.workers.values.filter { clock.timeIntervalSince($0.lastSeenAt) < 3 * $0.interval + 1 }
        let perKey = AdmissionTable.shareLimit(slots: live.reduce(0) { $0 + $1.slots })
        let before = AdmissionTable.shareHeads(Array(tables.holds.values), perKey: perKey)  // as `Store.grantWaiting` reads them
        var table = AdmissionTable(entries: before, tokens: counted, now: now)
        let shares = table.shareClaims
        if !shares.isEmpty {  // the live workers' slots, as `Store.shareLimits` counts them
            table.shareLimits = AdmissionTable.shareLimits(for: shares, workers: live.map { ($0.pools, $0.procedures, $0.slots) })
        }
        let granted = table.grantWaiting().compactMap { change -> AdmissionTable.Entry? in
            if case let .granted(entry) = change { entry } else { nil }
        }
        if granted.contains(where: { $0.claims.contains(where: \.isShare) }) { sharePasses.append((before, granted.map(\.seq))) }
        for entry in granted {
            tables.holds[entry.seq]?.granted = true
            tables.holds[entry.seq]?.grantedAt = now
            tables.untold.insert(entry.seq)
            for claim in entry.claims {
                guard let lifetime = claim.tokenLifetime else { continue }
                kept[claim.name, default: []].append(now.addingTimeInterval(lifetime))
            }
        }
        tables.rateTokens = kept.mapValues { $0.sorted() }
        if !granted.isEmpty { notify(.grants) }
        return HoldGrants(granted: granted, nextTokenAt: table.nextToken)
    }

    /// `Store.revokeGrant`: the grant goes back to waiting, its tokens are freed.
    func revokeGrant(_ entry: AdmissionTable.Entry, grantedBefore cutoff: Date) -> Bool {
        guard var row = tables.holds[entry.seq], row.granted, tables.untold.contains(entry.seq), let grantedAt = row.grantedAt, grantedAt < cutoff
        else { return false }
        for claim in row.claims {
            guard let lifetime = claim.tokenLifetime, let i = tables.rateTokens[claim.name]?.firstIndex(of: grantedAt.addingTimeInterval(lifetime))
            else { continue }
            tables.rateTokens[claim.name]!.remove(at: i)
        }
        row.granted = false
        row.grantedAt = nil
        tables.holds[entry.seq] = row
        tables.untold.remove(entry.seq)
        return true
    }

    /// `Store.untoldGrants`.
    func untoldGrants(fence: PartitionFence?) -> [AdmissionTable.Entry] {
        tables.untold.sorted().compactMap { tables.holds[$0] }.filter { fence?.holds($0.runID) != false }
    }

    /// What libpq refuses before the statement runs, as `Store.apply` binds it: from 32 rows on
    /// (`RecordSource.arraysFrom`) node updates and events go as text arrays, whose text columns
    /// cannot carry a NUL character; `PGConnection` refuses it as data (22021), as PostgreSQL
    /// rejects it in one JSON document (fewer rows).
    private static func checkBinding(
        updates: [StagedNodeRow], events: [StagedBatch.Event]
    ) throws {
        let arraysFrom = 32
        let nul: (String?) -> Bool = { $0?.utf8.contains(0) ?? false }
        if updates.count >= arraysFrom && updates.contains(where: { nul($0.key) || nul($0.error) || nul($0.errorType) || nul($0.worker) })
            || events.count >= arraysFrom && events.contains(where: { nul($0.node) })
        {
            throw DatabaseError.statement("parameter contains a NUL byte", sqlState: "22021")
        }
    }

    /// `text` as a text column takes it: PostgreSQL rejects a NUL character.
    static func text(_ text: String?) throws -> String? {
        guard let text, text.utf8.contains(0) else { return text }
        throw DatabaseError.statement(
            "unsupported Unicode escape sequence", sqlState: "22P05", detail: "\\u0000 cannot be converted to text.")
    }

    static func text(_ text: String) throws -> String { try Self.text(Optional(text))! }

    /// A column's value as the table keeps it (text and JSON checked as `text` and `json` do, times
    /// to PostgreSQL's microseconds).
    static func stored(_ value: ColumnValue) throws -> ColumnValue {
        switch value {
        case let .text(text): .text(try Self.text(text))
        case let .json(json): .json(try Self.json(json)!)
        case let .time(date): .time(MemoryTimestamp.rounded(date))
        case .int: value
        }
    }

    /// `value` as a jsonb column stores it: what its text reads back as; an error for text that is
    /// not JSON (a number that is not finite) or a string with a NUL character.
    static func json(_ value: JSON?) throws -> JSON? {
        guard let value else { return nil }
        let text = value.serialized()
        if text.contains("\\u0000") {
            throw DatabaseError.statement(
                "unsupported Unicode escape sequence", sqlState: "22P05", detail: "\\u0000 cannot be converted to text.")
        }
        do { return try JSONParser.parse(text, maxDepth: 100_000) } catch {
            throw DatabaseError.statement("invalid input syntax for type json", sqlState: "22P02", detail: "\(error)")
        }
    }

    /// Counts a failure to apply `batch` (its runs' commands, as text): the same batch failing again
    /// and again is a batch sent unchanged, which the coordinator must split or back off from.
    func failedToApply(_ batch: [(runID: String, commands: [SchedulerCommand])]) {
        guard !batch.isEmpty else { return }
        let key = batch.map { "\($0.runID):\($0.commands)" }.joined(separator: "|")
        let count = (failedBatches[key] ?? 0) + 1
        failedBatches[key] = count
        mostFailuresOfOneBatch = max(mostFailuresOfOneBatch, count)
        if failedBatches.count > 10_000 { failedBatches = [:] }
    }
}
