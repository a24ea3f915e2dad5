import Baton
import BatonPostgres

/// API tokens (migration 22): made, listed, revoked, and checked. Only the SHA-256 of a secret is
/// stored, computed by PostgreSQL (`sha256`), so no secret is kept anywhere after it is shown once.
extension Store {
    /// Columns of `baton.tokens` as `tokenRow` reads them.
    static let tokenColumns = """
        id, name, prefix, array_to_string(scopes, ',') as scopes, extract(epoch from created_at)::float8 as created_at, created_by,
        extract(epoch from expires_at)::float8 as expires_at, extract(epoch from revoked_at)::float8 as revoked_at,
        extract(epoch from last_used_at)::float8 as last_used_at
        """

    static func tokenRow(_ r: PGResult, _ i: Int) -> TokenRow {
        TokenRow(
            id: r.int64(i, "id") ?? 0, name: r[row: i, column: "name"] ?? "", prefix: r[row: i, column: "prefix"] ?? "",
            scopes: Set((r[row: i, column: "scopes"] ?? "").split(separator: ",").compactMap { AccessScope(rawValue: String($0)) }),
            createdAt: r[row: i, column: "created_at"].flatMap(Double.init) ?? 0, createdBy: r[row: i, column: "created_by"],
            expiresAt: r[row: i, column: "expires_at"].flatMap(Double.init), revokedAt: r[row: i, column: "revoked_at"].flatMap(Double.init),
            lastUsedAt: r[row: i, column: "last_used_at"].flatMap(Double.init))
    }

    /// Makes a token named `name` with `scopes`, expiring `expiresIn` seconds from now (nil: never), and
    /// records it in the audit trail in the same statement. Returns it with its secret, the only time
    /// the secret exists outside the caller. Throws `TokenExists` when a token of that name is not revoked.
    public func createToken(
        name: String, scopes: Set<AccessScope>, expiresIn: Double?, audit: AuditEntry
    ) throws -> (
        row: TokenRow, secret: TokenSecret
    ) {
        let secret = TokenSecret.generate()
        let r = try connection.query(
            """
            with made as (
                insert into baton.tokens (name, hash, prefix, scopes, created_by, expires_at)
                select $1, sha256(convert_to($2, 'UTF8')), $3, $4::text[], coalesce($5, $8),
                       case when $6::float8 is null then null else now() + make_interval(secs => $6::float8) end
                on conflict do nothing
                returning \(Self.tokenColumns)
            ), logged as (
                insert into baton.audit (token_name, action, target, source, status) select $5, $7, name, $8, 201 from made returning 1
            )
            select * from made
            """,
            [
                name, secret.text, secret.prefix, PGArray.literal(scopes.sorted().map(\.rawValue)), audit.tokenName,
                expiresIn.map { "\($0)" }, audit.action, audit.source,
            ])
        guard r.rowCount == 1 else { throw TokenExists(name: name) }
        return (Self.tokenRow(r, 0), secret)
    }

    /// The tokens, by name; revoked ones only with `includeRevoked`.
    public func tokens(includeRevoked: Bool = false) throws -> [TokenRow] {
        let r = try connection.query(
            "select \(Self.tokenColumns) from baton.tokens where $1::boolean or revoked_at is null order by name, created_at",
            [includeRevoked ? "true" : "false"])
        return (0..<r.rowCount).map { Self.tokenRow(r, $0) }
    }

    /// Revokes the token named `name` (not revoked yet), recording it in the audit trail in the same
    /// statement; false when there is none. Requests made with it are refused from then on.
    public func revokeToken(_ name: String, audit: AuditEntry) throws -> Bool {
        let r = try connection.query(
            """
            with revoked as (
                update baton.tokens set revoked_at = now() where name = $1 and revoked_at is null returning name
            ), logged as (
                insert into baton.audit (token_name, action, target, source, status) select $2, $3, name, $4, 200 from revoked returning 1
            )
            select count(*)::int as n from revoked
            """, [name, audit.tokenName, audit.action, audit.source])
        return r.int(0, "n") == 1
    }

    /// The live token (neither revoked nor expired) whose secret is `secret`, or nil. Its
    /// `last_used_at` is moved on at most once a minute.
    public func token(secret: TokenSecret) throws -> TokenRow? {
        guard secret.isWellFormed else { return nil }
        let r = try connection.query(
            """
            with found as (
                select id from baton.tokens
                where hash = sha256(convert_to($1, 'UTF8')) and revoked_at is null and (expires_at is null or expires_at > now())
            ), used as (
                update baton.tokens t set last_used_at = now() from found f
                where t.id = f.id and (t.last_used_at is null or t.last_used_at < now() - interval '1 minute')
                returning t.id
            )
            select \(Self.tokenColumns) from baton.tokens where id = (select id from found)
            """, [secret.text])
        return r.rowCount == 1 ? Self.tokenRow(r, 0) : nil
    }
}

extension Store {
    /// Writes `entry` to `baton.audit` with the HTTP `status` answered.
    public func recordAudit(_ entry: AuditEntry, status: Int) throws {
        _ = try connection.execute(
            "insert into baton.audit (token_name, action, target, source, status) values ($1, $2, $3, $4, $5::int)",
            [entry.tokenName, entry.action, entry.target, entry.source, String(status)])
    }
}
