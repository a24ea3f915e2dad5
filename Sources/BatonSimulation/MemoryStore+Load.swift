import Baton
import BatonStore
import Foundation

extension MemoryStore {
    /// `Store.loadRun`: the graph from the stored plan, node states read from the rows in position
    /// order by `StoredRunNodes`, as `Store` reads them.
    func loadRun(_ id: String) throws -> RunState? {
        try Self.requireUUID(id)
        guard let run = tables.runs[id] else { return nil }
        let graph: Graph
        do { graph = try Graph(plan: run.plan) } catch { throw StoreError("run \(id): the stored graph cannot be read: \(error)") }
        var nodes = StoredRunNodes(runID: id)
        func confirmed(_ batch: Int64) -> Bool { batch <= tables.partitions[RunPartition.of(id, count: tables.partitions.count)].confirmedThrough }
        for row in self.nodes(ofRun: id) {
            try nodes.add(
                StoredNode(
                    key: row.key, status: row.status.rawValue, attempts: row.attempts, input: row.input.map(StoredJSON.value),
                    output: row.output.map(StoredJSON.value), error: row.error, worker: row.worker, scheduler: .value(row.scheduler),
                    fragment: row.fragment.flatMap { $0.isNull ? nil : .value($0) }, attemptToken: row.attemptToken,
                    confirmed: row.status == .queued && row.dispatchBatch.map(confirmed) == true))
        }
        return try nodes.runState(graph: graph, status: run.status, error: run.error)
    }

    /// `Store.failRun`: ends an unfinished run as failed with `error`, releasing its holds, with a `run_failed` event.
    func failRun(_ id: String, error: String) throws {
        try Self.requireUUID(id)
        let error = error.replacingOccurrences(of: "\u{0}", with: "")
        var t = tables
        for (seq, entry) in t.holds where entry.runID == id {
            t.holds[seq] = nil
            t.untold.remove(seq)
        }
        if var run = t.runs[id], run.status == .pending || run.status == .running {
            let now = self.now
            run.status = .failed
            run.error = error
            run.finishedAt = now
            run.startedAt = run.startedAt ?? now
            t.runs[id] = run
            appendEvent(
                to: &t, run: id, node: nil, kind: EventKind.runFailed.rawValue, at: now, detail: ["status": "failed", "error": .string(error)])
        }
        tables = t
    }

    /// Ids of runs pending or running, oldest first.
    func activeRunIDs(fence: PartitionFence?) -> [String] {
        tables.runs.values.filter { ($0.status == .pending || $0.status == .running) && fence?.holds($0.id) != false }
            .sorted { ($0.submittedAt, $0.sequence) < ($1.submittedAt, $1.sequence) }.map(\.id)
    }

    /// Requests not handled yet, oldest first (at most 1,000, as `Store` reads them).
    func openRequests(fence: PartitionFence?) -> [RunRequest] {
        tables.requests.lazy.filter { $0.handledAt == nil && fence?.holds($0.request.runID) != false }.prefix(1000).map(\.request)
    }

    /// `Store.cacheLookup`: the newest output for the procedure and input within the ttl.
    func cacheLookup(_ lookup: CacheLookup, now: Date) throws -> CacheHit? {
        let since = MemoryTimestamp.rounded(now.addingTimeInterval(-lookup.ttl))
        let hits = tables.cache.filter { $0.procedure == lookup.procedure && $0.input == lookup.input && $0.succeededAt >= since }
        guard let newest = hits.max(by: { ($0.succeededAt, $0.id) < ($1.succeededAt, $1.id) }) else { return nil }
        return CacheHit(output: newest.output, sourceRun: newest.runID, sourceNode: newest.node)
    }

    /// `Store.liveWorkers`: workers heard from within `seconds` of the clock, or within three of
    /// their own heartbeat intervals and a second; by id.
    public func liveWorkers(within seconds: Double?) throws -> [WorkerRow] {
        let now = self.now
        return workers.filter { now.timeIntervalSince($0.lastSeenAt) < (seconds ?? 3 * $0.interval + 1) }.map { w in
            WorkerRow(
                id: w.id, host: w.host, pid: w.pid, pools: w.pools, procedures: w.procedures, slots: w.slots,
                startedAt: MemoryTimestamp.text(w.startedAt), lastSeenAt: MemoryTimestamp.text(w.lastSeenAt),
                secondsSinceSeen: now.timeIntervalSince(w.lastSeenAt), schemas: w.schemas ?? [:])
        }
    }
}
