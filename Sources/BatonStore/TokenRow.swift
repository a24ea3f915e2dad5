import Baton

/// An API token as `baton token list` and `GET /api/v1/tokens` show it: never its secret, nor its hash.
public struct TokenRow: Sendable, Equatable {
    /// The row's id (`baton.tokens.id`).
    public var id: Int64
    public var name: String
    /// The secret's first characters (`TokenSecret.prefix`), to tell tokens apart.
    public var prefix: String
    public var scopes: Set<AccessScope>
    /// Times in seconds since the epoch.
    public var createdAt: Double
    public var createdBy: String?
    public var expiresAt: Double?
    public var revokedAt: Double?
    public var lastUsedAt: Double?

    public init(
        id: Int64 = 0, name: String, prefix: String, scopes: Set<AccessScope>, createdAt: Double, createdBy: String? = nil, expiresAt: Double? = nil,
        revokedAt: Double? = nil, lastUsedAt: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.prefix = prefix
        self.scopes = scopes
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
    }

    /// `live`, `expired` or `revoked` at `now` (seconds since the epoch).
    public func state(at now: Double) -> String {
        if revokedAt != nil { return "revoked" }
        if let expiresAt, expiresAt <= now { return "expired" }
        return "live"
    }

    /// The token as `--json` gives it: times as ISO-8601 UTC, scopes in their order.
    public func json(at now: Double) -> JSON {
        func time(_ t: Double?) -> JSON { t.map { .string(CivilDate.iso8601($0)) } ?? .null }
        return .object(
            JSONObject([
                ("id", .int(id)), ("name", .string(name)), ("prefix", .string(prefix)),
                ("scopes", .array(scopes.sorted().map { .string($0.rawValue) })),
                ("state", .string(state(at: now))), ("created_at", time(createdAt)), ("created_by", createdBy.map(JSON.string) ?? .null),
                ("expires_at", time(expiresAt)), ("revoked_at", time(revokedAt)), ("last_used_at", time(lastUsedAt)),
            ]))
    }
}
