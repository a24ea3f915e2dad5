extension Schema {
    /// Migration 24, events in (docs/schema.md, "baton.triggers", "baton.trigger_events",
    /// "baton.trigger_runs"): graphs bound to an event type with filters on the event's data, the
    /// events received (each id once: its primary key), and the run each matching trigger started.
    /// A run is submitted with the key `trigger:NAME:ID`, so an event whose runs were not all recorded
    /// (a crash between the two) heals when it is posted again, without a second run.
    static let triggers: [String] = [
        """
        create table if not exists baton.triggers (
            name text primary key check (name ~ '^[a-z0-9][a-z0-9_.-]{0,127}$'),
            event_type text not null check (event_type ~ '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$'),
            graph jsonb not null,
            filters jsonb not null default '[]' check (jsonb_typeof(filters) = 'array'),
            created_at timestamptz not null default now(),
            created_by text
        )
        """,
        "create index if not exists triggers_event_type_idx on baton.triggers (event_type)",
        """
        create table if not exists baton.trigger_events (
            id text primary key check (char_length(id) between 1 and 128),
            type text not null,
            data jsonb not null,
            received_at timestamptz not null default now(),
            token_name text,
            source text,
            matched text[] not null default '{}'
        )
        """,
        "create index if not exists trigger_events_received_idx on baton.trigger_events (received_at desc)",
        """
        create table if not exists baton.trigger_runs (
            event_id text not null references baton.trigger_events (id) on delete cascade,
            trigger_name text not null,
            run_id uuid,
            error text,
            primary key (event_id, trigger_name)
        )
        """,
    ]
}
