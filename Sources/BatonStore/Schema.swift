/// The schema as numbered migrations. Tables and columns named in SPEC.md are a
/// public interface: a migration may add to them, never rename or drop.
enum Schema {
    static let migrations: [(version: Int, statements: [String])] = [
        (
            1,
            [
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
            ]
        ),
        (
            2,
            [
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
            ]
        ),
        (
            3,
            [
                // The decoded graph, so a run is loaded without parsing and validating its file again.
                "alter table baton.runs add column if not exists plan jsonb",
                // A node's input as written (with its references); `input` is only ever what the procedure received.
                "alter table baton.nodes add column if not exists template jsonb",
                """
                update baton.nodes n set template = coalesce(r.graph -> 'nodes' -> n.key -> 'input', '{}'::jsonb)
                from baton.runs r where r.id = n.run_id and n.template is null
                """,
                "update baton.nodes set input = null where status = 'pending'",
                // Which commit queued a node, and through which commit the broker confirmed every task:
                // a restarted coordinator publishes again only what may not have reached the broker.
                "alter table baton.nodes add column if not exists dispatch_batch bigint",
                "create sequence if not exists baton.dispatch_batches",
                """
                create table if not exists baton.publications (
                    id int primary key check (id = 1),
                    confirmed_through bigint not null
                )
                """,
                "insert into baton.publications (id, confirmed_through) values (1, 0) on conflict (id) do nothing",
                // How often a worker said it would heartbeat, so a silent one drops out of `baton workers`.
                "alter table baton.workers add column if not exists heartbeat_interval float8 not null default 5",
            ]
        ),
        (
            4,
            [
                // The children a group, map or spawning node added (their definitions, as the scheduler keeps
                // them), so a restarted coordinator rebuilds the run with them.
                "alter table baton.nodes add column if not exists fragment jsonb"
            ]
        ),
        (
            5,
            [
                // The run's input: the graph's `input` defaults with `submit --input` merged over them.
                "alter table baton.runs add column if not exists input jsonb not null default '{}'::jsonb"
            ]
        ),
        (
            6,
            [
                // Each served procedure's input and output schema ({"name": {"input": ..., "output": ...}}), from the
                // worker's heartbeats; null until one carried them. `submit` type-checks graphs against them.
                "alter table baton.workers add column if not exists schemas jsonb"
            ]
        ),
        (
            7,
            [
                // Mutex, concurrency and in-flight cache requests across runs: one row per node that waits
                // or holds, granted all or none, first come (lowest seq) first served. Written with the node changes.
                """
                create table if not exists baton.holds (
                    seq bigint primary key,
                    run_id uuid not null references baton.runs (id) on delete cascade,
                    node_key text not null,
                    claims jsonb not null,
                    cache jsonb,
                    granted boolean not null,
                    requested_at timestamptz not null default now()
                )
                """,
                "create index if not exists holds_run_idx on baton.holds (run_id, node_key)",
                // Outputs of nodes with `cache`, by procedure and canonical input (compared in full; the hash only finds it).
                """
                create table if not exists baton.cache (
                    id bigserial primary key,
                    procedure text not null,
                    input_hash bytea not null,
                    input text not null,
                    output jsonb not null,
                    run_id uuid not null,
                    node_key text not null,
                    succeeded_at timestamptz not null
                )
                """,
                "create index if not exists cache_lookup_idx on baton.cache (procedure, input_hash, succeeded_at desc)",
            ]
        ),
        (
            8,
            [
                // The plan is written and read only by Baton, never queried inside: as text it is stored as
                // sent, without the jsonb parse (about 0.5 s of a 100,000-node submit) or jsonb's reordering.
                "alter table baton.runs alter column plan type text using plan::text",
                // lz4 compresses a large plan in a third of pglz's time, where the server has it (PostgreSQL 14 and later, built with lz4).
                """
                do $$ begin
                    if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then
                        alter table baton.runs alter column plan set compression lz4;
                    end if;
                end $$
                """,
            ]
        ),
        (
            9,
            [
                // A node row is updated twice or more after its insert (queued, then its result): room on its
                // page lets those be HOT updates, which touch no index (before, 99% of them rewrote nodes_pkey).
                "alter table baton.nodes set (fillfactor = 70)"
            ]
        ),
        (
            10,
            [
                // The type name of the error a failed node's procedure threw (`AttemptResult.errorType`), beside
                // its message: failures group by procedure and error type in SQL and on the dashboard.
                "alter table baton.nodes add column if not exists error_type text"
            ]
        ),
        (
            11,
            [
                // Runs belong to partitions (`RunPartition`): the first 32 bits of the id modulo the count, which
                // `baton migrate --partitions N` fixes when this migration runs (64 by default) as the number of rows.
                """
                create or replace function baton.partition_of(run uuid, partitions int) returns int
                language sql immutable strict parallel safe
                as $$ select (('x' || substr(replace(run::text, '-', ''), 1, 8))::bit(32)::bigint % partitions)::int $$
                """,
                // Each partition is owned by at most one live coordinator, through a lease on the database's clock;
                // the epoch grows at every change of owner, and every commit for the partition checks it (fencing).
                """
                create table if not exists baton.partitions (
                    partition int primary key,
                    owner text,
                    epoch bigint not null default 0,
                    lease_until timestamptz,
                    changed_at timestamptz
                )
                """,
                """
                insert into baton.partitions (partition)
                select generate_series(0, coalesce(nullif(current_setting('baton.partitions', true), '')::int, 64) - 1)
                on conflict do nothing
                """,
                // Live coordinators, each renewing its row: how many share the partitions.
                """
                create table if not exists baton.coordinators (
                    id text primary key,
                    host text not null,
                    pid int not null,
                    started_at timestamptz not null default now(),
                    last_seen_at timestamptz not null default now(),
                    lease_seconds float8 not null,
                    runs int not null default 0,
                    nodes_per_second float8 not null default 0
                )
                """,
                // Raised by a commit whose coordinator no longer holds a partition's epoch (SQLSTATE BT001).
                """
                create or replace function baton.require_epochs(coordinator text, parts int[], epochs bigint[]) returns int
                language plpgsql
                as $$
                declare held int;
                begin
                    select count(*) into held from (
                        select 1 from baton.partitions p join unnest(parts, epochs) as e(partition, epoch)
                            on p.partition = e.partition and p.epoch = e.epoch
                        where p.owner = coordinator
                        for share of p) as h;
                    if held <> cardinality(parts) then
                        raise exception 'baton: coordinator % no longer holds all of partitions %', coordinator, parts
                            using errcode = 'BT001';
                    end if;
                    return held;
                end $$
                """,
            ]
        ),
        (
            12,
            [
                // A coordinator's database session (its backend pid): a partition whose owner's session ended
                // (a crash, a kill -9) is free at once, without waiting for its lease to run out.
                "alter table baton.coordinators add column if not exists session int",
                // Through which dispatch batch the broker confirmed every task, per partition (the row's id):
                // one coordinator's confirms must not vouch for another's tasks. `floor` is a batch number
                // drawn when the partition last changed owner: only batches from after it count for it.
                "alter table baton.publications drop constraint if exists publications_id_check",
                "alter table baton.publications add column if not exists floor bigint not null default 0",
                """
                insert into baton.publications (id, confirmed_through)
                select partition, coalesce((select confirmed_through from baton.publications where id = 1), 0) from baton.partitions
                on conflict (id) do nothing
                """,
                // Admission across coordinators: any coordinator grants waiting holds (of any run) under one lock,
                // in `Store.grantWaiting`; `told` is false until the run's owner has told its node. Numbers
                // come from a sequence, so requests of every coordinator line up first come, first served.
                "alter table baton.holds add column if not exists told boolean not null default true",
                "create sequence if not exists baton.hold_seqs",
                "select setval('baton.hold_seqs', greatest((select max(seq) from baton.holds), 1))",
                "alter table baton.holds alter column seq set default nextval('baton.hold_seqs')",
                "create index if not exists holds_untold_idx on baton.holds (run_id) where granted and not told",
                // Whether `owner`'s database session has ended (it announced one, and no backend has that pid).
                """
                create or replace function baton.owner_gone(owner text) returns boolean
                language sql stable
                as $$
                    select exists (
                        select 1 from baton.coordinators c
                        where c.id = owner and c.session is not null
                          and not exists (select 1 from pg_stat_activity a where a.pid = c.session))
                $$
                """,
            ]
        ),
        (
            13,
            [
                // Settings every process must agree on, set by `baton migrate` (`queue_type`: classic or quorum).
                """
                create table if not exists baton.settings (
                name text primary key,
                value text not null,
                changed_at timestamptz not null default now()
                )
                """,
                "insert into baton.settings (name, value) values ('queue_type', 'classic') on conflict (name) do nothing",
            ]
        ),
        (
            14,
            [
                // A year of history (docs/performance.md): the runs page, its totals and counts read an index
                // instead of the heap; a status filter pages without a sort; short ids find their run.
                "create index if not exists runs_list_idx on baton.runs (submitted_at desc, id) include (status, name)",
                "drop index if exists baton.runs_submitted_idx",
                "create index if not exists runs_status_list_idx on baton.runs (status, submitted_at desc, id) include (name)",
                "create index if not exists runs_id_text_idx on baton.runs ((id::text) text_pattern_ops)",
                // A run's redelivered and lease-expired events (every run page and `baton show`) are rare.
                "create index if not exists events_lost_idx on baton.events (run_id) where kind in ('redelivered', 'lease_expired')",
                // The failures card; an index that does not name status keeps status updates HOT.
                "create index if not exists nodes_error_idx on baton.nodes (run_id) where error is not null",
                // Retention (`baton prune`, the coordinator's --retention) finds the oldest finished runs.
                "create index if not exists runs_finished_idx on baton.runs (finished_at) where finished_at is not null",
                "create index if not exists cache_age_idx on baton.cache (succeeded_at)",
            ]
        ),
        (15, timePartitions),
        (16, schedules),
        (17, signals),
        (18, rates),
        (19, traceContext),
        (20, attemptTokens),
        (21, ratesCountUntoldGrants),
        (22, access),
        (23, webhooks),
        (24, triggers),
        (25, sessions),
        (26, pauses),
        (27, versions),
    ]
}
