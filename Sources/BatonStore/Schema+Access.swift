extension Schema {
    /// Migration 22, the front door's access (docs/schema.md, "baton.tokens", "baton.audit"): API
    /// tokens, of which only the SHA-256 of the secret is kept, and the audit trail of writes made
    /// with them (and of tokens made and revoked). A name is unique among tokens not revoked, so a
    /// revoked token's name can be used again; ids are identity columns (no sequence to grant).
    static let access: [String] = [
        """
        create table if not exists baton.tokens (
            id bigint generated always as identity primary key,
            name text not null check (name ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
            hash bytea not null unique,
            prefix text not null,
            scopes text[] not null check (cardinality(scopes) > 0 and scopes <@ array['read', 'submit', 'operate', 'admin']),
            created_at timestamptz not null default now(),
            created_by text,
            expires_at timestamptz,
            revoked_at timestamptz,
            last_used_at timestamptz
        )
        """,
        "create unique index if not exists tokens_live_name_idx on baton.tokens (name) where revoked_at is null",
        """
        create table if not exists baton.audit (
            id bigint generated always as identity primary key,
            at timestamptz not null default now(),
            token_name text,
            action text not null,
            target text,
            source text,
            status int,
            detail jsonb not null default '{}'
        )
        """,
        "create index if not exists audit_at_idx on baton.audit (at desc)",
    ]
}
