extension Schema {
    /// Migration 16, schedules (docs/schema.md, "baton.schedules"): each fires its graph as runs with the
    /// idempotency key `schedule:NAME:TIME`. A schedule belongs to a partition derived from its name
    /// (`baton.schedule_partition`, the first 32 bits of its MD5 as a run's are of its id), and the
    /// coordinator holding that partition's lease fires it.
    static let schedules: [String] = [
        """
        create or replace function baton.schedule_partition(name text, partitions int) returns int
        language sql immutable strict parallel safe
        as $$ select (('x' || substr(md5(name), 1, 8))::bit(32)::bigint % partitions)::int $$
        """,
        """
        create table if not exists baton.schedules (
            name text primary key,
            graph jsonb not null,
            input jsonb,
            cron text,
            every_seconds float8,
            timezone text not null default 'UTC',
            overlap text not null default 'skip' check (overlap in ('skip', 'queue', 'allow')),
            catch_up text not null default 'last' check (catch_up in ('none', 'last', 'all')),
            paused boolean not null default false,
            created_at timestamptz not null default now(),
            last_fired_at timestamptz,
            next_fire_at timestamptz,
            queued_at timestamptz,
            last_run_id uuid,
            skipped bigint not null default 0,
            last_skipped_at timestamptz,
            last_skip_reason text,
            last_error text,
            partition int not null,
            check ((cron is null) <> (every_seconds is null))
        )
        """,
        "create index if not exists schedules_partition_idx on baton.schedules (partition) where not paused",
    ]
}
