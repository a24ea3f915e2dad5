extension Schema {
    /// Migration 26, pauses (docs/schema.md, "baton.pauses"): one row per paused procedure, pool or
    /// run (`baton pause`). Every coordinator hears a change at once (NOTIFY `baton_pauses`) and reads
    /// the table again on each poll; a row's absence is the resume.
    static let pauses: [String] = [
        """
        create table if not exists baton.pauses (
        kind text not null check (kind in ('procedure', 'pool', 'run')),
        name text not null,
        paused_at timestamptz not null default now(),
        paused_by text,
        primary key (kind, name)
        )
        """
    ]
}
