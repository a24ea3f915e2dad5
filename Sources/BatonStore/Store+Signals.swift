import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Delivers `value` to the signal node `node` of run `runID` (its full id), durably: a `signal`
    /// request in `baton.requests` that the coordinator owning the run applies (`RunState+Signals`);
    /// returns its id. Refused with a `SignalRefusal`, storing nothing: an unknown run or node, a node
    /// that is not a signal, a run or node that ended, a node that already has a signal (applied or
    /// not), a value over `maxBytes` (the output limit). Concurrent signals to one node take an advisory
    /// lock on it in turn, so only the first is stored (not the row's lock: that needs UPDATE on
    /// nodes, which a server's role does not hold).
    @discardableResult
    public func signal(run runID: String, node: String, value: JSON = .null, maxBytes: Int = GraphLimits().maxOutputBytes) throws -> Int {
        let text = value.serialized()
        let size = text.utf8.count
        guard size <= maxBytes else {
            throw SignalRefusal("the signal's value is \(size) bytes, more than the output limit of \(maxBytes) (BATON_MAX_OUTPUT_BYTES)")
        }
        let id = runID.lowercased()
        guard UUID(uuidString: id) != nil else { throw SignalRefusal("no run with id '\(runID)'", missing: true) }
        return try connection.transaction { c in
            let run = try c.query("select status from baton.runs where id = $1::uuid", [id])
            guard run.rowCount == 1, let runStatus = RunStatus(rawValue: run[row: 0, column: "status"] ?? "") else {
                throw SignalRefusal("no run with id \(id)", missing: true)
            }
            guard !runStatus.isTerminal else { throw SignalRefusal("run \(id) already ended (\(runStatus.rawValue)); it takes no signal") }
            try c.execute("select pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))", [id, node])
            let row = try c.query(
                "select procedure, status, scheduler ? 'signal' as kept from baton.nodes where run_id = $1::uuid and key = $2", [id, node])
            guard row.rowCount == 1 else {
                let keys = try c.query("select key from baton.nodes where run_id = $1::uuid and procedure = $2", [id, SignalSpec.procedureName])
                let signals = (0..<keys.rowCount).compactMap { keys[row: $0, column: "key"] }
                let near = NearestName.suggestion(for: node, among: Set(signals)).map { " (did you mean '\($0)'?)" } ?? ""
                throw SignalRefusal("run \(id) has no node '\(node)'\(near)", missing: true)
            }
            let procedure = row[row: 0, column: "procedure"] ?? ""
            guard procedure == SignalSpec.procedureName else {
                throw SignalRefusal("node '\(node)' is not a signal node (it runs \(procedure)); only a node of kind signal takes a signal")
            }
            let status = NodeStatus(rawValue: row[row: 0, column: "status"] ?? "") ?? .pending
            if status == .succeeded { throw SignalRefusal("node '\(node)' already received its signal; a second one is refused") }
            if status.isTerminal { throw SignalRefusal("node '\(node)' already ended (\(status.rawValue)); it takes no signal") }
            if row.bool(0, "kept") == true {
                throw SignalRefusal("node '\(node)' already has a signal, kept until it waits for one; a second one is refused")
            }
            let open = try c.query(
                "select 1 from baton.requests where run_id = $1::uuid and node_key = $2 and kind = 'signal' and handled_at is null", [id, node])
            guard open.rowCount == 0 else {
                throw SignalRefusal("node '\(node)' already has a signal on its way to the coordinator; a second one is refused")
            }
            let r = try c.query(
                "insert into baton.requests (run_id, kind, node_key, value) values ($1::uuid, 'signal', $2, $3::jsonb) returning id",
                [id, node, text])
            try c.execute("select pg_notify($1, $2)", [Store.requestsChannel, id])
            return r.int(0, "id") ?? 0
        }
    }
}

extension Store {
    /// One node's status, or nil when the run has no such node.
    public func nodeStatus(run runID: String, key: String) throws -> NodeStatus? {
        let r = try connection.query("select status from baton.nodes where run_id = $1::uuid and key = $2", [runID, key])
        return r.rowCount == 1 ? NodeStatus(rawValue: r[row: 0, column: "status"] ?? "") : nil
    }
}
