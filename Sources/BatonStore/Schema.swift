/// The schema as numbered migrations. Tables and columns named in SPEC.md are a
/// public interface: a migration may add to them, never rename or drop.
enum Schema {
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            create table if not exists baton.runs (
            id uuid primary key,
            name text not null,
            status text not null,
            submitted_at timestamptz not null default now(),
            started_at timestamptz,
            finished_at timestamptz,
            graph jsonb not null,
            error text,
            idempotency_key text unique
            )
            """,
            """
            create index if not exists runs_status_idx on baton.runs (status) where status in ('pending', 'running')
            """,
            """
            create index if not exists runs_submitted_idx on baton.runs (submitted_at desc)
            """,
            """
            create table if not exists baton.nodes (
            run_id uuid not null references baton.runs (id) on delete cascade,
            key text not null,
            procedure text not null,
            status text not null,
            attempts int not null default 0,
            input jsonb,
            output jsonb,
            error text,
            worker text,
            queued_at timestamptz,
            started_at timestamptz,
            finished_at timestamptz,
            position int not null,
            pool text not null default 'default',
            primary key (run_id, key)
            )
            """,
            """
            create table if not exists baton.edges (
            run_id uuid not null references baton.runs (id) on delete cascade,
            from_key text not null,
            to_key text not null,
            kind text not null,
            primary key (run_id, from_key, to_key)
            )
            """,
            """
            create table if not exists baton.events (
            id bigserial primary key,
            run_id uuid not null references baton.runs (id) on delete cascade,
            node_key text,
            kind text not null,
            at timestamptz not null default clock_timestamp(),
            detail jsonb not null default '{}'::jsonb
            )
            """,
            """
            create index if not exists events_run_idx on baton.events (run_id, id)
            """,
            """
            create table if not exists baton.workers (
            id text primary key,
            host text not null,
            pid int not null,
            pools text[] not null,
            procedures text[] not null,
            slots int not null,
            started_at timestamptz not null,
            last_seen_at timestamptz not null
            )
            """,
        ]),
        (2, [
            // Timers (retry back-off, repeat waits, delays) and scheduler bookkeeping survive restarts.
            "alter table baton.nodes add column if not exists due_at timestamptz",
            "alter table baton.nodes add column if not exists scheduler jsonb not null default '{}'::jsonb",
            // What users ask of a run (cancel, retry); only the coordinator changes run state.
            """
            create table if not exists baton.requests (
                id bigserial primary key,
                run_id uuid not null references baton.runs (id) on delete cascade,
                kind text not null,
                node_key text,
                reason text,
                requested_at timestamptz not null default now(),
                handled_at timestamptz
            )
            """,
            "create index if not exists requests_open_idx on baton.requests (id) where handled_at is null",
        ]),
    ]
}
