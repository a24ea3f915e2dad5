extension Schema {
    /// Migration 18, rate limits (docs/schema.md, "Rate limits"): the tokens taken per rate key, each
    /// counting until it expires; a hold's priority (waiters go in priority order) and when it was
    /// granted; `baton.rates`, each key's state.
    static let rates: [String] = [
        "alter table baton.holds add column if not exists priority int not null default 0",
        "alter table baton.holds add column if not exists granted_at timestamptz",
        // Written and pruned only under `Store.grantWaiting`'s lock. No foreign key: a token outlives its
        // run (it still counts against the key), and expires on its own.
        """
        create table if not exists baton.rate_tokens (
            key text not null,
            taken_at timestamptz not null,
            expires_at timestamptz not null,
            "limit" int not null,
            per_seconds float8 not null,
            run_id uuid,
            node_key text
        )
        """,
        "create index if not exists rate_tokens_key_idx on baton.rate_tokens (key, expires_at)",
        """
        create or replace view baton.rates as
        with claims as (
            select substr(c->>'name', 6) as key, (c->>'limit')::int as lim, (c->>'per')::float8 as per, h.granted
            from baton.holds h, jsonb_array_elements(h.claims) as c
            where c->>'name' like 'rate/%' and c ? 'per'
        ), waiting as (
            select key, max(lim) as lim, max(per) as per, count(*) filter (where not granted) as waiting from claims group by key
        ), tokens as (
            select key, max("limit") as lim, max(per_seconds) as per,
                   count(*) filter (where expires_at > now()) as used,
                   min(expires_at) filter (where expires_at > now()) as oldest_expiry,
                   max(taken_at) as last_taken_at
            from baton.rate_tokens group by key
        )
        select coalesce(w.key, t.key) as key,
               coalesce(w.lim, t.lim) as "limit",
               coalesce(w.per, t.per) as per_seconds,
               coalesce(t.used, 0) as used,
               coalesce(w.waiting, 0) as waiting,
               case when coalesce(t.used, 0) >= coalesce(w.lim, t.lim) then t.oldest_expiry end as next_token_at,
               t.last_taken_at
        from waiting w full join tokens t on t.key = w.key
        """,
    ]

    /// Migration 21: `baton.rates` counts a token of a grant not told yet as used (and its expiry as
    /// moving on), as `Store.grantWaiting` does, until the grant is told or taken back: the view
    /// showed such a key free while the coordinators held it full.
    static let ratesCountUntoldGrants: [String] = [
        """
        create or replace view baton.rates as
        with claims as (
            select substr(c->>'name', 6) as key, (c->>'limit')::int as lim, (c->>'per')::float8 as per, h.granted
            from baton.holds h, jsonb_array_elements(h.claims) as c
            where c->>'name' like 'rate/%' and c ? 'per'
        ), waiting as (
            select key, max(lim) as lim, max(per) as per, count(*) filter (where not granted) as waiting from claims group by key
        ), counted as (
            select t.*, case when exists (
                    select 1 from baton.holds h where h.granted and not h.told and h.run_id = t.run_id
                    and h.node_key = t.node_key and h.granted_at = t.taken_at)
                then greatest(t.expires_at, now() + (t.expires_at - t.taken_at)) else t.expires_at end as counts_until
            from baton.rate_tokens t
        ), tokens as (
            select key, max("limit") as lim, max(per_seconds) as per,
                   count(*) filter (where counts_until > now()) as used,
                   min(counts_until) filter (where counts_until > now()) as oldest_expiry,
                   max(taken_at) as last_taken_at
            from counted group by key
        )
        select coalesce(w.key, t.key) as key,
               coalesce(w.lim, t.lim) as "limit",
               coalesce(w.per, t.per) as per_seconds,
               coalesce(t.used, 0) as used,
               coalesce(w.waiting, 0) as waiting,
               case when coalesce(t.used, 0) >= coalesce(w.lim, t.lim) then t.oldest_expiry end as next_token_at,
               t.last_taken_at
        from waiting w full join tokens t on t.key = w.key
        """
    ]
}
