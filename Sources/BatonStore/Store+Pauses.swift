import Baton
import BatonPostgres
import BatonSeams
import Foundation

/// Pauses (`baton pause`, `baton.pauses`): written here by the CLI and the API, read by every
/// coordinator, which hears each change at once on `baton_pauses` and reads the table again on
/// every poll as the safety net.
extension Store {
    /// Channel on which a NOTIFY announces a pause or a resume (payload: `kind:name`).
    public static let pausesChannel = "baton_pauses"

    /// Pauses `target` (a run by its id or a unique prefix of it; the pause names the full id);
    /// returns the target as stored and whether it was not paused before. A run that does not exist
    /// or has ended is refused; a procedure or pool need not be known (no worker may serve it yet).
    public func pause(_ target: PauseTarget, by who: String? = nil, audit: AuditEntry? = nil) throws -> (target: PauseTarget, changed: Bool) {
        if let problem = PauseTarget.problem(kind: target.kind, name: target.name) { throw PauseRefusal(problem) }
        return try connection.transaction { c in
            var stored = target
            if target.kind == .run {
                stored.name = try pausedRunID(target.name)
                let r = try c.query("select status from baton.runs where id = $1::uuid", [stored.name])
                if let status = r[row: 0, column: "status"].flatMap(RunStatus.init(rawValue:)), status.isTerminal {
                    throw PauseRefusal("run \(stored.name) has ended (\(status.rawValue)): there is nothing to pause")
                }
            }
            let changed =
                try c.execute(
                    "insert into baton.pauses (kind, name, paused_by) values ($1, $2, $3) on conflict (kind, name) do nothing",
                    [stored.kind.rawValue, stored.name, who]) == 1
            if changed { try c.execute("select pg_notify($1, $2)", [Store.pausesChannel, "\(stored.kind.rawValue):\(stored.name)"]) }
            if let audit { try recordAudit(audit, status: 200) }
            return (stored, changed)
        }
    }

    /// Ends the pause of `target` (a run by its id or a unique prefix); returns the target as stored
    /// and whether it was paused.
    public func resume(_ target: PauseTarget, audit: AuditEntry? = nil) throws -> (target: PauseTarget, changed: Bool) {
        if let problem = PauseTarget.problem(kind: target.kind, name: target.name) { throw PauseRefusal(problem) }
        return try connection.transaction { c in
            var stored = target
            if target.kind == .run { stored.name = try pausedRunID(target.name) }
            let changed =
                try c.execute("delete from baton.pauses where kind = $1 and name = $2", [stored.kind.rawValue, stored.name]) == 1
            if changed { try c.execute("select pg_notify($1, $2)", [Store.pausesChannel, "\(stored.kind.rawValue):\(stored.name)"]) }
            if let audit { try recordAudit(audit, status: 200) }
            return (stored, changed)
        }
    }

    /// The whole id of the run `text` names (an id or a unique prefix), or why it names none.
    private func pausedRunID(_ text: String) throws -> String {
        do { return try resolveRunID(text) } catch let error as StoreError {
            throw PauseRefusal(error.description, missing: error.description.hasPrefix("no run"))
        }
    }

    /// Every pause, by kind then name.
    public func pauseRows() throws -> [PauseRow] {
        let r = try connection.query(
            """
            select kind, name, paused_by, extract(epoch from paused_at)::float8 as paused_at from baton.pauses
            order by case kind when 'run' then 0 when 'pool' then 1 else 2 end, name
            """)
        return (0..<r.rowCount).compactMap { i in
            guard let kind = PauseKind(rawValue: r[row: i, column: "kind"] ?? ""), let name = r[row: i, column: "name"] else { return nil }
            return PauseRow(
                target: PauseTarget(kind, name), pausedAt: r[row: i, column: "paused_at"].flatMap(Double.init) ?? 0,
                pausedBy: r[row: i, column: "paused_by"])
        }
    }

    /// What is paused, as the coordinator hands it to its runs.
    public func loadPauses() throws -> Pauses {
        let r = try connection.query("select kind, name from baton.pauses")
        return Pauses(
            (0..<r.rowCount).compactMap { i in
                PauseKind(rawValue: r[row: i, column: "kind"] ?? "").map { PauseTarget($0, r[row: i, column: "name"] ?? "") }
            })
    }
}
