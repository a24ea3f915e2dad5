import Baton

/// One row of `baton.audit` as the dashboard's Audit page and `GET /api/v1/audit` show it.
public struct AuditRow: Sendable, Equatable {
    public var id: Int64
    /// PostgreSQL's `timestamptz` text in UTC.
    public var at: String
    public var tokenName: String?
    public var action: String
    public var target: String?
    public var source: String?
    public var status: Int?
    /// The `detail` object (`{}` when none).
    public var detail: JSON

    public init(
        id: Int64, at: String, tokenName: String?, action: String, target: String?, source: String?, status: Int?, detail: JSON = [:]
    ) {
        self.id = id
        self.at = at
        self.tokenName = tokenName
        self.action = action
        self.target = target
        self.source = source
        self.status = status
        self.detail = detail
    }

    /// The entry as the API gives it (docs/api/openapi.json, `AuditEntry`).
    public var json: JSON {
        .object(
            JSONObject([
                ("id", .int(id)), ("at", .string(at)), ("token_name", tokenName.map(JSON.string) ?? .null), ("action", .string(action)),
                ("target", target.map(JSON.string) ?? .null), ("source", source.map(JSON.string) ?? .null),
                ("status", status.map { .int(Int64($0)) } ?? .null), ("detail", detail),
            ]))
    }
}
