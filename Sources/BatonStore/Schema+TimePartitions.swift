extension Schema {
    /// Migration 15, the history partitioned by time (docs/schema.md, "Partitions by time"): runs by `submitted_at`, their nodes, edges
    /// and events by the run's, in `baton.history_partitions`; the coordinator creates them ahead
    /// (`ensure_history_partition`), `prune` drops whole ones. Existing rows move into monthly partitions.
    static let timePartitions: [String] = [
        """
        create table if not exists baton.history_partitions (
            suffix text primary key,
            from_at timestamptz not null,
            to_at timestamptz not null,
            check (from_at < to_at)
        )
        """,
        """
        insert into baton.settings (name, value) values ('partition_by', 'month') on conflict (name) do nothing
        """,
        """
        create or replace function baton.create_history_partition(lo timestamptz, hi timestamptz, suffix text) returns text
        language plpgsql as $f$
        begin
            execute format('create table baton.%I partition of baton.runs for values from (%L) to (%L)', 'runs_' || suffix, lo, hi);
            execute format('create table baton.%I partition of baton.nodes for values from (%L) to (%L) with (fillfactor = 70)', 'nodes_' || suffix, lo, hi);
            execute format('create table baton.%I partition of baton.edges for values from (%L) to (%L)', 'edges_' || suffix, lo, hi);
            execute format('create table baton.%I partition of baton.events for values from (%L) to (%L)', 'events_' || suffix, lo, hi);
            insert into baton.history_partitions (suffix, from_at, to_at) values (suffix, lo, hi);
            return suffix;
        end
        $f$
        """,
        """
        create or replace function baton.ensure_history_partition(at timestamptz) returns text
        language plpgsql as $f$
        declare
            unit text := coalesce((select value from baton.settings where name = 'partition_by'), 'month');
            found_suffix text;
            lo timestamptz;
            hi timestamptz;
            below timestamptz;
            above timestamptz;
        begin
            select p.suffix into found_suffix from baton.history_partitions p where p.from_at <= at and at < p.to_at;
            if found_suffix is not null then return found_suffix; end if;
            perform pg_advisory_xact_lock(727276);
            select p.suffix into found_suffix from baton.history_partitions p where p.from_at <= at and at < p.to_at;
            if found_suffix is not null then return found_suffix; end if;
            lo := date_trunc(unit, at, 'UTC');
            hi := ((lo at time zone 'UTC') + ('1 ' || unit)::interval) at time zone 'UTC';
            select max(p.to_at) into below from baton.history_partitions p where p.to_at <= at;
            select min(p.from_at) into above from baton.history_partitions p where p.from_at > at;
            lo := greatest(lo, below);
            hi := least(hi, above);
            return baton.create_history_partition(lo, hi, to_char(lo at time zone 'UTC',
                case when lo <> date_trunc(unit, at, 'UTC') then '"y"YYYY"m"MM"d"DD"t"HH24MISS'
                     when unit = 'day' then '"y"YYYY"m"MM"d"DD' else '"y"YYYY"m"MM' end));
        end
        $f$
        """,
        """
        do $conv$
        declare
            t text;
            i record;
            first_at timestamptz;
            m timestamptz;
        begin
            -- The tables as they were, renamed with their indexes and constraints out of the way.
            foreach t in array array['runs', 'nodes', 'edges', 'events'] loop
                execute format('alter table baton.%I rename to %I', t, t || '_unpartitioned');
                for i in select c.conname from pg_constraint c where c.conrelid = ('baton.' || t || '_unpartitioned')::regclass and c.contype in ('p', 'u', 'f') loop
                    execute format('alter table baton.%I rename constraint %I to %I', t || '_unpartitioned', i.conname, i.conname || '_unpartitioned');
                end loop;
                for i in select indexname from pg_indexes where schemaname = 'baton' and tablename = t || '_unpartitioned'
                         and right(indexname, 14) <> '_unpartitioned' loop
                    execute format('alter index baton.%I rename to %I', i.indexname, i.indexname || '_unpartitioned');
                end loop;
            end loop;
            alter sequence baton.events_id_seq owned by none;
            alter table baton.holds drop constraint if exists holds_run_id_fkey;
            alter table baton.requests drop constraint if exists requests_run_id_fkey;
            create table baton.runs (like baton.runs_unpartitioned including defaults including storage including compression)
                partition by range (submitted_at);
            alter table baton.runs add primary key (id, submitted_at);
            create table baton.nodes (like baton.nodes_unpartitioned including defaults including storage including compression,
                run_submitted_at timestamptz not null) partition by range (run_submitted_at);
            alter table baton.nodes add primary key (run_id, key, run_submitted_at);
            create table baton.edges (like baton.edges_unpartitioned including defaults including storage including compression,
                run_submitted_at timestamptz not null) partition by range (run_submitted_at);
            alter table baton.edges add primary key (run_id, from_key, to_key, run_submitted_at);
            create table baton.events (like baton.events_unpartitioned including defaults including storage including compression,
                run_submitted_at timestamptz not null) partition by range (run_submitted_at);
            alter table baton.events add primary key (id, run_submitted_at);
            -- Idempotency keys stay unique across partitions in a table of their own.
            create table baton.idempotency_keys (
                key text primary key,
                run_id uuid not null,
                run_submitted_at timestamptz not null,
                foreign key (run_id, run_submitted_at) references baton.runs (id, submitted_at)
                    on delete cascade on update cascade deferrable initially deferred
            );
            create index idempotency_keys_run_idx on baton.idempotency_keys (run_id);
            -- Every month the history covers, up to this one (none for an empty history: `migrate` creates
            -- the first partitions after, by the unit `--partition-by` sets).
            select min(submitted_at) into first_at from baton.runs_unpartitioned;
            m := date_trunc('month', least(first_at, now()), 'UTC');
            while first_at is not null and m <= now() loop
                perform baton.create_history_partition(m, ((m at time zone 'UTC') + interval '1 month') at time zone 'UTC',
                    to_char(m at time zone 'UTC', '"y"YYYY"m"MM'));
                m := ((m at time zone 'UTC') + interval '1 month') at time zone 'UTC';
            end loop;
            insert into baton.runs select * from baton.runs_unpartitioned;
            insert into baton.nodes select n.*, r.submitted_at from baton.nodes_unpartitioned n join baton.runs_unpartitioned r on r.id = n.run_id;
            insert into baton.edges select e.*, r.submitted_at from baton.edges_unpartitioned e join baton.runs_unpartitioned r on r.id = e.run_id;
            insert into baton.events select e.*, r.submitted_at from baton.events_unpartitioned e join baton.runs_unpartitioned r on r.id = e.run_id;
            insert into baton.idempotency_keys select idempotency_key, id, submitted_at from baton.runs_unpartitioned where idempotency_key is not null;
            drop table baton.events_unpartitioned, baton.edges_unpartitioned, baton.nodes_unpartitioned, baton.runs_unpartitioned;
            alter sequence baton.events_id_seq owned by baton.events.id;
        end
        $conv$
        """,
        """
        create index runs_status_idx on baton.runs (status) where status in ('pending', 'running')
        """,
        """
        create index runs_list_idx on baton.runs (submitted_at desc, id) include (status, name)
        """,
        """
        create index runs_status_list_idx on baton.runs (status, submitted_at desc, id) include (name)
        """,
        """
        create index runs_id_text_idx on baton.runs ((id::text) text_pattern_ops)
        """,
        """
        create index runs_finished_idx on baton.runs (finished_at) where finished_at is not null
        """,
        """
        create index runs_idempotency_idx on baton.runs (idempotency_key) where idempotency_key is not null
        """,
        """
        create index events_run_idx on baton.events (run_id, id)
        """,
        """
        create index events_lost_idx on baton.events (run_id) where kind in ('redelivered', 'lease_expired')
        """,
        """
        create index nodes_error_idx on baton.nodes (run_id) where error is not null
        """,
        // No foreign keys from nodes, edges, events, holds or requests to runs: checking one against a partitioned
        // table costs about four times as much per row (docs/performance.md), and events are the most written rows.
        // These triggers do what the cascades did: a deleted run takes its rows along, a moved one moves them.
        """
        create or replace function baton.forget_run() returns trigger
        language plpgsql as $f$
        declare
            moved timestamptz;
        begin
            -- An update of submitted_at into another partition is a delete and an insert (and fires no
            -- update trigger): then the run is still there, and its rows follow it.
            select submitted_at into moved from baton.runs where id = old.id;
            if moved is not null then
                update baton.nodes set run_submitted_at = moved where run_id = old.id and run_submitted_at = old.submitted_at;
                update baton.edges set run_submitted_at = moved where run_id = old.id and run_submitted_at = old.submitted_at;
                update baton.events set run_submitted_at = moved where run_id = old.id and run_submitted_at = old.submitted_at;
                return null;
            end if;
            delete from baton.events where run_id = old.id and run_submitted_at = old.submitted_at;
            delete from baton.edges where run_id = old.id and run_submitted_at = old.submitted_at;
            delete from baton.nodes where run_id = old.id and run_submitted_at = old.submitted_at;
            delete from baton.holds where run_id = old.id;
            delete from baton.requests where run_id = old.id;
            return null;
        end
        $f$
        """,
        """
        create or replace function baton.move_run() returns trigger
        language plpgsql as $f$
        begin
            update baton.nodes set run_submitted_at = new.submitted_at where run_id = old.id and run_submitted_at = old.submitted_at;
            update baton.edges set run_submitted_at = new.submitted_at where run_id = old.id and run_submitted_at = old.submitted_at;
            update baton.events set run_submitted_at = new.submitted_at where run_id = old.id and run_submitted_at = old.submitted_at;
            return null;
        end
        $f$
        """,
        """
        create trigger runs_move after update of submitted_at on baton.runs for each row
        when (old.submitted_at is distinct from new.submitted_at) execute function baton.move_run()
        """,
        "create trigger runs_forget after delete on baton.runs for each row execute function baton.forget_run()",
    ]
}
