import Baton
import BatonStore
import Foundation

extension MemoryStore {
    /// Stores a validated graph as a new pending run, as `Store.submit` does (its nodes pending in
    /// graph order, a `submitted` event), and wakes the listening connections. Returns the run's id:
    /// a UUID whose last digits count the runs submitted (`00000000-0000-4000-8000-000000000001`, …).
    public func submit(_ graph: Graph) -> String {
        runsSubmitted += 1
        let digits = String(runsSubmitted, radix: 16)
        let id = "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        let now = self.now
        tables.runs[id] = MemoryRunRow(
            id: id, name: graph.name, status: .pending, error: nil, plan: graph.planBytes(), input: graph.input, submittedAt: now,
            startedAt: nil, finishedAt: nil, sequence: runsSubmitted)
        let written = graph.source["nodes"]?.objectValue
        var rows: [String: MemoryNodeRow] = [:]
        for (position, key) in graph.order.enumerated() {
            let node = graph.nodes[key]!
            rows[key] = MemoryNodeRow(
                runID: id, key: key, procedure: node.procedure, template: written?[key]?["input"] ?? .object(JSONObject()),
                position: position, pool: node.pool)
        }
        tables.nodes[id] = rows
        appendEvent(
            to: &tables, run: id, node: nil, kind: EventKind.submitted.rawValue, at: now,
            detail: ["name": .string(graph.name), "nodes": .int(Int64(graph.order.count))])
        notify(.newRun(id))
        return id
    }

    /// Records a user's request about a run, as `Store.request` does, and wakes the listening
    /// connections; returns its id. Throws PostgreSQL's error for a run that does not exist.
    @discardableResult
    public func request(_ kind: RunRequest.Kind, runID: String, node: String? = nil, reason: String? = nil) throws -> Int {
        try Self.requireUUID(runID)
        guard tables.runs[runID] != nil else { throw Self.missingRun(runID, table: "requests") }
        let id = nextRequestID
        nextRequestID += 1
        tables.requests.append(MemoryRequestRow(id: id, runID: runID, kind: kind, node: node, reason: reason, handledAt: nil))
        notify(.newRequest(runID: runID))
        return id
    }

    /// Asks the coordinator to cancel a run (see `request`).
    @discardableResult
    public func requestCancel(runID: String, reason: String? = nil) throws -> Int {
        try request(.cancel, runID: runID, reason: reason)
    }

    /// Adds an event with the next id to `tables`, with its webhook deliveries (the trigger's).
    func appendEvent(to tables: inout MemoryTables, run: String, node: String?, kind: String, at: Date, detail: JSON) {
        tables.events[run, default: []].append(
            MemoryEventRow(id: nextEventID, runID: run, node: node, kind: kind, at: MemoryTimestamp.rounded(at), detail: detail))
        if !tables.webhooks.isEmpty { enqueueWebhooks(to: &tables, event: tables.events[run]!.last!) }
        nextEventID += 1
    }
}
