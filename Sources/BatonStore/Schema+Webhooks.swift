import Baton

extension Schema {
    /// The event kinds (`baton.events.kind`) that can become a webhook delivery: the trigger's WHEN
    /// clause names only these, so the hot path's `queued`, `started` and `succeeded` rows never call
    /// plpgsql. `timed_out` counts only when it is a node's final event (its status is `failed`).
    /// Written into migration 23's text in this order (its text must not change).
    static let webhookEventKinds: [EventKind] = [
        .runSucceeded, .runFailed, .runCancelled, .failed, .deadLettered, .timedOut, .retrying, .awaitingSignal,
    ]

    /// Migration 23, webhooks (docs/schema.md, "Webhooks"): the webhooks, an outbox of deliveries written
    /// by a trigger on `baton.events` in the event's own transaction (whoever writes the event: the
    /// coordinator's `apply`, `failRun`, any later writer), and every attempt to deliver one. The
    /// coordinator holding a delivery's partition (the run's) posts it. No foreign key to events: their
    /// partitions are dropped by retention while deliveries stay.
    static let webhooks: [String] = [
        """
        create table if not exists baton.webhooks (
            id bigint generated always as identity primary key,
            url text not null check (url ~ '^https?://[^[:space:]]+$' and length(url) <= 2048),
            events text[] not null check (cardinality(events) > 0
                and events <@ array['run.succeeded', 'run.failed', 'run.cancelled', 'node.failed', 'node.retrying', 'signal.waiting']),
            name_glob text,
            name_like text,
            secret text not null,
            format text not null default 'json' check (format in ('json', 'slack')),
            created_at timestamptz not null default now(),
            created_by text,
            disabled_at timestamptz,
            check ((name_glob is null) = (name_like is null))
        )
        """,
        """
        create table if not exists baton.webhook_deliveries (
            id bigint generated always as identity primary key,
            webhook_id bigint not null references baton.webhooks (id) on delete cascade,
            event_id text not null,
            type text not null,
            run_id uuid,
            partition int not null,
            body text not null,
            created_at timestamptz not null default now(),
            next_attempt_at timestamptz default now(),
            attempts int not null default 0,
            state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
            last_status int,
            last_error text,
            delivered_at timestamptz,
            unique (webhook_id, event_id)
        )
        """,
        "create index if not exists webhook_deliveries_due_idx on baton.webhook_deliveries (partition, next_attempt_at) where state = 'pending'",
        "create index if not exists webhook_deliveries_hook_idx on baton.webhook_deliveries (webhook_id, id desc)",
        """
        create table if not exists baton.webhook_attempts (
            delivery_id bigint not null references baton.webhook_deliveries (id) on delete cascade,
            attempt int not null,
            at timestamptz not null default now(),
            status int,
            error text,
            duration_ms int not null default 0,
            coordinator text,
            primary key (delivery_id, attempt)
        )
        """,
        // One delivery per live webhook whose kinds and name filter match; the body is the event as JSON
        // (its exact text is what is signed), built here so every writer of events gets it.
        """
        create or replace function baton.enqueue_webhooks() returns trigger
        language plpgsql security definer set search_path = pg_catalog, pg_temp set "TimeZone" = 'UTC'
            set plan_cache_mode = force_generic_plan
        as $$
        declare
            t text;
            r record;
            n record;
            node jsonb := 'null'::jsonb;
        begin
            t := case new.kind
                when 'run_succeeded' then 'run.succeeded' when 'run_failed' then 'run.failed' when 'run_cancelled' then 'run.cancelled'
                when 'failed' then 'node.failed' when 'dead_lettered' then 'node.failed' when 'timed_out' then 'node.failed'
                when 'retrying' then 'node.retrying' when 'awaiting_signal' then 'signal.waiting' end;
            if t is null or not exists (select 1 from baton.webhooks w where w.disabled_at is null and t = any (w.events)) then
                return null;
            end if;
            select id, name, status, error into r from baton.runs where id = new.run_id and submitted_at = new.run_submitted_at;
            if not found or not exists (select 1 from baton.webhooks w
                    where w.disabled_at is null and t = any (w.events) and (w.name_like is null or r.name like w.name_like)) then
                return null;
            end if;
            if new.node_key is not null then
                select key, procedure, status, attempts, error into n from baton.nodes
                where run_id = new.run_id and run_submitted_at = new.run_submitted_at and key = new.node_key;
                -- A timed_out followed by a retry is not a failure; the final one leaves the node failed.
                if new.kind = 'timed_out' and (not found or n.status <> 'failed') then return null; end if;
                node := jsonb_build_object('key', new.node_key, 'procedure', n.procedure,
                    'attempt', coalesce((new.detail ->> 'attempt')::int, n.attempts, 0), 'error', new.detail ->> 'error');
            end if;
            insert into baton.webhook_deliveries (webhook_id, event_id, type, run_id, partition, body)
            select w.id, 'evt_' || new.id, t, new.run_id,
                   baton.partition_of(new.run_id, greatest(1, (select count(*) from baton.partitions)::int)),
                   jsonb_build_object('id', 'evt_' || new.id, 'type', t, 'at', new.at::text,
                       'run', jsonb_build_object('id', r.id, 'name', r.name, 'status', r.status, 'error', r.error),
                       'node', node, 'detail', new.detail)::text
            from baton.webhooks w
            where w.disabled_at is null and t = any (w.events) and (w.name_like is null or r.name like w.name_like)
            on conflict (webhook_id, event_id) do nothing;
            return null;
        end $$
        """,
        "drop trigger if exists events_webhooks on baton.events",
        """
        create trigger events_webhooks after insert on baton.events for each row
        when (new.kind in (\(webhookEventKinds.map { "'\($0.rawValue)'" }.joined(separator: ", "))))
        execute function baton.enqueue_webhooks()
        """,
    ]
}
