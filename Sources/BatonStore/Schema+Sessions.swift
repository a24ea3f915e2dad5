extension Schema {
    /// Migration 25, the dashboard's sign-in (docs/schema.md, "baton.sessions"): one row per signed-in
    /// browser, holding only the SHA-256 of the cookie's secret. A session lives at most until
    /// `expires_at` and is only honoured while its token is live (not revoked, not expired); deleting
    /// a token deletes its sessions.
    static let sessions: [String] = [
        """
        create table if not exists baton.sessions (
            id bigint generated always as identity primary key,
            hash bytea not null unique,
            token_id bigint not null references baton.tokens (id) on delete cascade,
            created_at timestamptz not null default now(),
            expires_at timestamptz not null,
            source text
        )
        """,
        "create index if not exists sessions_expires_idx on baton.sessions (expires_at)",
        "create index if not exists sessions_token_idx on baton.sessions (token_id)",
    ]
}
