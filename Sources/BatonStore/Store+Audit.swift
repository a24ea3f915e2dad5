import Baton
import BatonPostgres

/// The audit trail read back (migration 22): newest first, a page at a time by id.
extension Store {
    /// At most `limit` entries with ids below `before` (nil: from the newest), newest first, only of
    /// `action` and `tokenName` when given.
    public func auditEntries(action: String? = nil, tokenName: String? = nil, before: Int64? = nil, limit: Int = 100) throws -> [AuditRow] {
        let r = try connection.query(
            """
            select id, at::text as at, token_name, action, target, source, status, detail::text as detail from baton.audit
            where ($1::text is null or action = $1) and ($2::text is null or token_name = $2) and ($3::bigint is null or id < $3::bigint)
            order by id desc limit $4::int
            """, [action, tokenName, before.map { String($0) }, String(limit)])
        return (0..<r.rowCount).map { i in
            AuditRow(
                id: r.int64(i, "id") ?? 0, at: r[row: i, column: "at"] ?? "", tokenName: r[row: i, column: "token_name"],
                action: r[row: i, column: "action"] ?? "", target: r[row: i, column: "target"], source: r[row: i, column: "source"],
                status: r[row: i, column: "status"].flatMap { Int($0) },
                detail: r[row: i, column: "detail"].flatMap { try? JSONParser.parse($0) } ?? [:])
        }
    }
}
