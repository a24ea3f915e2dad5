/// The PostgreSQL roles Baton's programs run as, and the least each needs (docs/operations.md,
/// "Database roles"): `baton db-grants ROLE` prints these grants. Re-run it after each `baton
/// migrate`: a migration's new tables are granted to no one.
public enum DatabaseRole: String, CaseIterable, Sendable {
    /// `baton coordinator`, `prune`: writes every table and creates and drops the history's
    /// partitions, which only their owner may: a member of the role that ran `baton migrate`.
    case coordinator
    /// `baton server`: reads every table; inserts runs and requests; keeps tokens, schedules and
    /// the audit trail. No UPDATE or DELETE on the history: it cannot rewrite a run.
    case server
    /// SQL on the run history (a report, a notebook): SELECT on the history, never on tokens or
    /// webhooks (their secrets).
    case read

    /// Tables `server` may insert into.
    static let serverInserts = [
        "runs", "nodes", "edges", "events", "idempotency_keys", "requests", "schedules", "tokens", "audit", "triggers", "trigger_events",
        "trigger_runs", "webhooks", "pauses",
    ]
    /// Tables `read` may select from: the history and the cluster, not the secrets.
    static let readable = [
        "runs", "nodes", "edges", "events", "requests", "idempotency_keys", "workers", "coordinators", "partitions", "schedules",
        "history_partitions", "settings", "audit", "rates", "triggers", "trigger_events", "trigger_runs", "webhook_deliveries",
        "webhook_attempts", "pauses",
    ]
    /// Sequences whose numbers the server's inserts take.
    static let serverSequences = ["events_id_seq", "requests_id_seq", "tokens_id_seq", "audit_id_seq"]

    /// What is wrong with `text` as a role, or nil.
    public static func problem(_ text: String) -> String? {
        DatabaseRole(rawValue: text) == nil
            ? "'\(text)' is not a role: give \(allCases.map(\.rawValue).joined(separator: ", "))" : nil
    }

    /// The statements that give `user` this role, in a database whose Baton tables `owner` owns.
    public func grants(to user: String, owner: String) -> [String] {
        let who = Self.identifier(user)
        let tables = { (names: [String]) in names.map { "baton." + Self.identifier($0) }.joined(separator: ", ") }
        switch self {
        case .coordinator:
            return ["grant \(Self.identifier(owner)) to \(who)"]
        case .server:
            return [
                "grant usage on schema baton to \(who)",
                "grant select on all tables in schema baton to \(who)",
                "grant insert on \(tables(Self.serverInserts)) to \(who)",
                "grant update (revoked_at, last_used_at) on baton.tokens to \(who)",
                "grant update, delete on baton.schedules to \(who)",
                "grant update on baton.trigger_runs to \(who)",
                "grant delete on baton.triggers, baton.webhooks, baton.pauses to \(who)",
                "grant usage on sequence \(tables(Self.serverSequences)) to \(who)",
            ]
        case .read:
            return ["grant usage on schema baton to \(who)", "grant select on \(tables(Self.readable)) to \(who)"]
        }
    }

    /// `name` as a quoted SQL identifier.
    static func identifier(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
