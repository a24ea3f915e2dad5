import Baton
import BatonPostgres

/// The dashboard's sessions (migration 25): made when a token signs in, found by the cookie's secret,
/// ended by signing out. Only the SHA-256 of a session's secret is stored.
extension Store {
    /// Starts a session for the live token whose secret is `secret`, lasting `lifetime` seconds (never
    /// beyond the token's own expiry), and records the sign-in in the audit trail. Returns the
    /// session's secret (for the cookie) and the token, or nil when the token is not live. Expired
    /// sessions are swept in the same statement.
    public func startSession(secret: TokenSecret, lifetime: Double, source: String?) throws -> (session: TokenSecret, token: TokenRow)? {
        guard secret.isWellFormed, let token = try token(secret: secret) else { return nil }
        let session = TokenSecret.generate()
        _ = try connection.query(
            """
            with swept as (
                delete from baton.sessions where expires_at < now() returning 1
            ), made as (
                insert into baton.sessions (hash, token_id, expires_at, source)
                select sha256(convert_to($1, 'UTF8')), t.id,
                       least(now() + make_interval(secs => $3::float8), coalesce(t.expires_at, 'infinity')), $4
                from baton.tokens t where t.id = $2::bigint and t.revoked_at is null
                returning token_id
            ), logged as (
                insert into baton.audit (token_name, action, target, source, status)
                select $5, 'session.start', $5, $4, 303 from made returning 1
            )
            select count(*)::int as n from made
            """, [session.text, String(token.id), "\(lifetime)", source, token.name])
        return (session, token)
    }

    /// The live token of the unexpired session whose secret is `session`, or nil (no such session,
    /// expired, or its token revoked or expired).
    public func sessionToken(_ session: TokenSecret) throws -> TokenRow? {
        guard session.isWellFormed else { return nil }
        let r = try connection.query(
            """
            select \(Self.tokenColumns) from baton.tokens
            where id = (select token_id from baton.sessions where hash = sha256(convert_to($1, 'UTF8')) and expires_at > now())
              and revoked_at is null and (expires_at is null or expires_at > now())
            """, [session.text])
        return r.rowCount == 1 ? Self.tokenRow(r, 0) : nil
    }

    /// Ends the session whose secret is `session` (signing out); false when there was none.
    public func endSession(_ session: TokenSecret) throws -> Bool {
        guard session.isWellFormed else { return false }
        let r = try connection.query(
            "with gone as (delete from baton.sessions where hash = sha256(convert_to($1, 'UTF8')) returning 1) select count(*)::int as n from gone",
            [session.text])
        return r.int(0, "n") == 1
    }
}
