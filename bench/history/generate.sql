-- Fills baton.runs, baton.nodes and baton.events with a generated history: about :nodes nodes
-- (default 10,000,000 through generate.sh) in about :nodes / 50 runs submitted over the last 365
-- days, most of them finished, a few running or pending. Nothing is run: rows are made with
-- generate_series and streamed with COPY into freshly truncated tables, through the time
-- partitions (monthly, or as `baton migrate --partition-by` says), created here for the year.
--
--   psql "$URL" -v nodes=10000000 -f bench/history/generate.sql      (generate.sh does this)
--
-- The environment variable BATON_HISTORY_URL must hold the same URL: the COPY pipes start a
-- second psql on it (`\copy ... to program`), which loads while this session generates.
--
-- DESTRUCTIVE: it empties every history table of the target database (runs, nodes, events,
-- edges, requests, holds). Point it only at a scratch database migrated by `baton migrate`.
--
-- How it is fast:
--   * each big table is written by one COPY in a transaction that truncated it (FREEZE cannot
--     load a partitioned table: the VACUUM at the end sets hint bits and the visibility map);
--   * the generating query (this session) and the COPY (the piped psql's session) run on two
--     backends at once; JSON is built as text (COPY parses it once), not with jsonb_build_*;
--   * nodes' and events' primary keys, events_run_idx and their foreign keys are dropped
--     before the load and made again after it (from their saved definitions), sorted once;
--   * events are generated from the loaded nodes (one sequential scan), so they agree with them.
-- Rows go in the order Baton writes them: runs by submit time, a run's nodes together in graph
-- order, a run's events together, ids increasing with it.

\set ON_ERROR_STOP on
\timing on
\if :{?nodes}
\else
\set nodes 10000000
\endif

select :nodes::bigint >= 1000 as nodes_ok \gset
\if :nodes_ok
\else
\echo 'nodes must be at least 1000'
\quit
\endif

set client_min_messages = warning;
set synchronous_commit = off;
set work_mem = '256MB';
set maintenance_work_mem = '1GB';
-- One backend per query: the COPY streams keep the scan order (runs by submit time, nodes by run).
set max_parallel_workers_per_gather = 0;
set synchronize_seqscans = off;
set jit = off;
set time zone 'UTC';

select to_regclass('baton.runs') is not null as migrated \gset
\if :migrated
\else
\echo 'no baton schema: run `baton migrate --database-url ...` first'
\quit
\endif

drop schema if exists baton_gen cascade;

-- The partitions of the year the history covers (and the ones ahead).
select count(baton.ensure_history_partition(t)) as partitions
from generate_series(now() - interval '367 days', now() + interval '2 months', interval '1 day') t;
create schema baton_gen;

-- A hash of (run, position, salt) as a non-negative int: the same decision in every pass.
create function baton_gen.h(k bigint, p int, salt int) returns int
language sql immutable parallel safe
as $$ select abs(hashint8(k * 1000003 + p * 7919 + salt)) $$;

-- Failure modes: error type (null: a ProcedureFailure or a coordinator decision) and message.
create function baton_gen.error_type(m int) returns text
language sql immutable parallel safe
as $$ select (array['QuotaError', 'HTTPError', null, null, 'PostgresError', 'DecodingError'])[m % 6 + 1] $$;

create function baton_gen.error_text(m int, proc text) returns text
language sql immutable parallel safe
as $$ select case m % 6
    when 0 then proc || ' threw QuotaError: rate limit exceeded (429 Too Many Requests), retry after 30 s'
    when 1 then proc || ' threw HTTPError: upstream returned 503 Service Unavailable'
    when 2 then 'timed out after 30s'
    when 3 then 'input has no field ''amount'' at /records/17'
    when 4 then proc || ' threw PostgresError: could not connect to server: Connection refused'
    else proc || ' threw DecodingError: dataCorrupted: invalid JSON at offset 4096' end $$;

-- Worker ids as Baton makes them (`<host>-<pid>-<4 hex>`): 12 hosts a pool, restarted every week.
create function baton_gen.worker(pool text, week int, slot int) returns text
language sql immutable parallel safe
as $$ select 'ip-10-' || (case pool when 'gpu' then 2 when 'media' then 1 else 0 end) || '-' || (slot / 4) || '-' || (20 + slot)
    || '-' || (1000 + (week::bigint * 7919 + slot * 104729) % 60000)
    || '-' || lpad(to_hex(((week::bigint * 31 + slot) * 40503) % 65536), 4, '0') $$;

-- The kinds of graph submitted: names, shape (first node -> items -> last node), size range,
-- share of runs, timing and failure rate.
create table baton_gen.catalog (
    c int primary key, name text, weight float8, lo int, hi int,
    first_key text, first_proc text, item_prefix text, item_proc text, last_key text, last_proc text,
    pool text, dur_first float8, dur_item float8, conc int, fail_rate float8, dated boolean,
    cw_lo float8, cw_hi float8);
insert into baton_gen.catalog (c, name, weight, lo, hi, first_key, first_proc, item_prefix, item_proc, last_key, last_proc,
                               pool, dur_first, dur_item, conc, fail_rate, dated)
values
    -- small (3 to 15 nodes): 65.7 % of runs
    (1,  'etl-nightly',       10.0,    3,    15, 'fetch',       'shop.fetch-orders',        'clean',    'shop.clean-orders',     'load',       'warehouse.load',          'default', 2.0,  1.5,  8, 0.06, true),
    (2,  'send-digest',        8.0,    3,    15, 'select',      'users.select-recipients',  'send',     'mail.send',             'report',     'mail.report',             'default', 0.8,  0.4, 16, 0.03, false),
    (3,  'db-backup',          6.0,    3,     8, 'snapshot',    'db.snapshot',              'upload',   'storage.upload-part',   'verify',     'db.verify-backup',        'default', 30.0, 12.0, 4, 0.02, true),
    (4,  'sync-crm',          10.0,    3,    15, 'pull',        'crm.pull-changes',         'upsert',   'crm.upsert',            'checkpoint', 'crm.checkpoint',          'default', 1.2,  0.3, 16, 0.08, false),
    (5,  'fraud-score',       12.0,    3,     9, 'load-tx',     'risk.load-transactions',   'score',    'risk.score',            'alert',      'risk.alert',              'default', 0.3,  0.08, 32, 0.01, false),
    (6,  'cache-warmup',       7.7,    3,    15, 'list-keys',   'cache.list-hot-keys',      'warm',     'cache.warm',            'stats',      'cache.stats',             'default', 0.2,  0.05, 32, 0.02, false),
    (7,  'word-count',         4.0,    7,     7, 'chunk',       'demo.chunk-text',          'count',    'demo.count-words',      'merge',      'demo.merge-counts',       'default', 0.02, 0.01, 8, 0.01, false),
    (8,  'report-daily',       8.0,    4,    15, 'query',       'reports.query',            'render',   'reports.render-section', 'publish',   'reports.publish',         'default', 4.0,  2.0,  8, 0.05, true),
    -- medium (16 to 150 nodes): 30 %
    (9,  'invoice-batch',     10.0,   16,   120, 'fetch-invoices', 'billing.fetch-invoices', 'render',   'billing.render-pdf',    'send',       'billing.send-batch',      'default', 1.5,  0.7, 16, 0.04, true),
    (10, 'image-thumbnails',   8.0,   16,   150, 'list-images', 'media.list',               'resize',   'media.resize',          'index',      'media.index',             'media',   0.5,  0.9, 24, 0.03, false),
    (11, 'ml-feature-build',   6.0,   16,   100, 'snapshot',    'ml.snapshot',              'features', 'ml.compute-features',   'publish',    'ml.publish-features',     'gpu',     20.0, 45.0, 8, 0.07, true),
    (12, 'email-campaign',     6.0,   16,   120, 'audience',    'marketing.audience',       'send',     'mail.send',             'summary',    'marketing.summary',       'default', 3.0,  0.4, 32, 0.03, false),
    -- large (150 to 1,000): 4 %
    (13, 'catalog-reindex',    2.0,  150,  1000, 'scan',        'search.scan-catalog',      'index',    'search.index-batch',    'swap',       'search.swap-alias',       'default', 10.0, 2.5, 32, 0.05, false),
    (14, 'ml-train-sweep',     1.2,  150,   600, 'prepare',     'ml.prepare-dataset',       'train',    'ml.train-trial',        'select',     'ml.select-best',          'gpu',     60.0, 240.0, 8, 0.10, false),
    (15, 'geo-tiles',          0.8,  150,  1000, 'plan',        'geo.plan-tiles',           'tile',     'geo.render-tile',       'publish',    'geo.publish',             'media',   5.0,  1.2, 48, 0.04, false),
    -- huge (1,000 to 10,000): 0.3 %
    (16, 'backfill-orders',    0.15, 1000, 10000, 'scan',       'shop.scan-range',          'backfill', 'shop.backfill-order',   'verify',     'shop.verify-backfill',    'default', 15.0, 0.6, 64, 0.12, true),
    (17, 'replay-events',      0.10, 1000, 10000, 'open',       'analytics.open-log',       'replay',   'analytics.replay-chunk', 'close',     'analytics.close-log',     'default', 5.0,  1.5, 64, 0.08, false),
    (18, 'archive-migration',  0.05, 1000, 10000, 'list',       'archive.list',             'move',     'archive.move-object',   'report',     'archive.report',          'default', 20.0, 0.8, 64, 0.10, false);
update baton_gen.catalog c set cw_hi = s.hi / s.total, cw_lo = (s.hi - c.weight) / s.total
from (select c, sum(weight) over (order by c) as hi, sum(weight) over () as total from baton_gen.catalog) s where s.c = c.c;

select setseed(0.20240601);

-- Run sizes: a kind by weight, a size skewed towards the small end of its range, kept while the
-- running total stays within :nodes. Three marked runs at the end: a 5,000-node run still going,
-- and two recent small ones pending.
create unlogged table baton_gen.sizes as
with drawn as (
    select k, random() as u, random() as v from generate_series(1, ceil(:nodes / 30.0)::int) k),
sized as (
    select d.k, c.c, c.lo + floor((c.hi - c.lo + 1) * d.v ^ 2)::int as n
    from drawn d join baton_gen.catalog c on d.u >= c.cw_lo and d.u < c.cw_hi)
select k, c, n from (select k, c, n, sum(n) over (order by k) as total from sized) s
where total <= :nodes - 5020;
insert into baton_gen.sizes
select m + i, c, n from (select max(k) as m from baton_gen.sizes) x,
    (values (1, 17, 5000), (2, 1, 6), (3, 7, 7)) v(i, c, n);

-- One row per run with everything the passes need. Runs are spread evenly over 365 days, in k
-- order. The last 15 run (planned to end after now), the last 2 are pending.
create unlogged table baton_gen.runs (
    k int primary key, id uuid not null, c int not null, n int not null, name text not null,
    status text not null, sub timestamptz not null, st timestamptz, fin timestamptz,
    first_key text, first_proc text, item_prefix text, item_proc text, last_key text, last_proc text,
    pool text, dur_first float8, dur_item float8, conc int, waves int, cancel_t timestamptz,
    failpos int, fail_key text, fail_proc text, fail_mode int, extra_failed int, error text,
    week int, day text, batch_base bigint);

with r as (select count(*) as total from baton_gen.sizes),
base as (
    select s.k, s.c, s.n, r.total, c.name, c.first_key, c.first_proc, c.item_prefix, c.item_proc, c.last_key, c.last_proc,
           c.pool, c.fail_rate, c.conc, c.dated,
           c.dur_first * (0.5 + random()) as dur_first, c.dur_item * (0.5 + random()) as dur_item,
           now() - interval '365 days' + ((s.k - 1 + random()) / r.total) * interval '365 days' as sub,
           random() as u, random() as f, random() as g
    from baton_gen.sizes s join baton_gen.catalog c using (c) cross join r),
timed as (
    select b.*, ceil((b.n - 2) / b.conc::float8)::int as waves, b.sub + (0.05 + b.g) * interval '1 second' as st,
           case when b.k > b.total - 2 then 'pending'
                when b.k > b.total - 15 then 'running'
                when b.u < b.fail_rate then 'failed'
                when b.u < b.fail_rate + 0.015 then 'cancelled'
                else 'succeeded' end as status
    from base b),
planned as (
    -- A running run's items take long enough that it is about halfway through now.
    select t.*, case when t.status = 'running'
                     then greatest(t.dur_item, extract(epoch from now() - t.st) * 2 / greatest(t.waves, 1)) else t.dur_item end as item_dur
    from timed t)
insert into baton_gen.runs (k, id, c, n, name, status, sub, st, fin, first_key, first_proc, item_prefix, item_proc, last_key, last_proc,
                            pool, dur_first, dur_item, conc, waves, cancel_t, failpos, week, day, batch_base)
select p.k, gen_random_uuid(), p.c, p.n, p.name, p.status, p.sub,
       case when p.status <> 'pending' then p.st end,
       case p.status
           when 'succeeded' then p.st + (p.dur_first * 1.5 + p.waves * p.item_dur + 0.2) * interval '1 second'
           when 'failed' then case when p.f < 0.2 then p.st + (p.dur_first + 0.06) * interval '1 second'
                                   else p.st + (p.dur_first * 1.5 + p.waves * p.item_dur + 0.2) * interval '1 second' end
           when 'cancelled' then p.st + (p.dur_first * 1.5 + p.waves * p.item_dur) * (0.1 + 0.8 * p.f) * interval '1 second'
       end,
       p.first_key, p.first_proc, p.item_prefix, p.item_proc, p.last_key, p.last_proc, p.pool, p.dur_first, p.item_dur, p.conc, p.waves,
       case when p.status = 'cancelled'
            then p.st + (p.dur_first * 1.5 + p.waves * p.item_dur) * (0.1 + 0.8 * p.f) * interval '1 second' end,
       case when p.status = 'failed' then case when p.f < 0.2 then 0 else 1 + floor(p.g * (p.n - 2))::int end end,
       floor(extract(epoch from p.sub) / 604800)::int,
       case when p.dated then to_char(p.sub, 'YYYY-MM-DD') end,
       p.k::bigint * 64
from planned p
order by p.k;

-- The failing node of each failed run, the others that fail with it (after it in graph order, in
-- runs of more than 20 nodes), and the run's error as the coordinator writes it.
update baton_gen.runs r set
    fail_key = case when r.failpos = 0 then r.first_key else r.item_prefix || '-' || r.failpos end,
    fail_proc = case when r.failpos = 0 then r.first_proc else r.item_proc end,
    fail_mode = (r.c + baton_gen.h(r.k, r.failpos, 5) % 3) % 6,
    extra_failed = case when r.failpos > 0 and r.n > 20 then
        (select count(*) from generate_series(r.failpos + 1, r.n - 2) p where baton_gen.h(r.k, p, 3) % 100 < 2) else 0 end
where r.status = 'failed';
update baton_gen.runs r set error =
    case r.status
        when 'failed' then 'node ''' || r.fail_key || ''' failed: ' || baton_gen.error_text(r.fail_mode, r.fail_proc)
                           || case when r.extra_failed > 0 then ' (and ' || r.extra_failed || ' more failed)' else '' end
        when 'cancelled' then 'cancelled: by request (baton cancel)' end
where r.status in ('failed', 'cancelled');
-- The updates moved rows: put them back in k (submit) order, which the COPY scans follow.
cluster baton_gen.runs using runs_pkey;
analyze baton_gen.runs;

select count(*) as runs, sum(n) as nodes, round(avg(n), 1) as avg_nodes, max(n) as max_nodes,
       count(*) filter (where n >= 1000) as runs_over_1000,
       count(*) filter (where status = 'succeeded') as succeeded, count(*) filter (where status = 'failed') as failed,
       count(*) filter (where status = 'cancelled') as cancelled, count(*) filter (where status = 'running') as running,
       count(*) filter (where status = 'pending') as pending
from baton_gen.runs;

-- Indexes and foreign keys of nodes and events go (on the parents: their partitions' go with them), to be made again once after the load. Their
-- definitions are kept in baton_gen_ddl.saved until they are back: a run that failed half-way
-- leaves them there, and the next run restores those.
create schema if not exists baton_gen_ddl;
create table if not exists baton_gen_ddl.saved (ord int, ddl text);
insert into baton_gen_ddl.saved
select * from (
    select 1, format('alter table %s add constraint %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
    from pg_constraint where conrelid in ('baton.nodes'::regclass, 'baton.events'::regclass) and contype in ('p', 'u') and conparentid = 0
    union all
    select 2, pg_get_indexdef(i.indexrelid) from pg_index i
    where i.indrelid in ('baton.nodes'::regclass, 'baton.events'::regclass)
      and not exists (select 1 from pg_inherits h where h.inhrelid = i.indexrelid)
      and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    union all
    select 3, format('alter table %s add constraint %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
    from pg_constraint where conrelid in ('baton.nodes'::regclass, 'baton.events'::regclass) and contype = 'f' and conparentid = 0) d
where not exists (select 1 from baton_gen_ddl.saved);
select ord, ddl from baton_gen_ddl.saved order by ord, ddl;

select coalesce(string_agg(format('alter table %s drop constraint %I', conrelid::regclass, conname), '; ' order by contype = 'f' desc), 'select 1') as drops
from pg_constraint where conrelid in ('baton.nodes'::regclass, 'baton.events'::regclass) and contype in ('p', 'u', 'f') and conparentid = 0 \gset
:drops;
select coalesce(string_agg(format('drop index %s', indexrelid::regclass), '; '), 'select 1') as drops from pg_index
where indrelid in ('baton.nodes'::regclass, 'baton.events'::regclass) \gset
:drops;

\echo 'runs ...'
-- Runs: the graph as submitted (jsonb) and the plan as `baton submit` writes it (text, v2).
\copy (select r.id, r.name, r.status, r.sub, r.st, r.fin, g.graph, r.error, null, g.plan, case when r.day is null then '{}' else '{"day": "' || r.day || '"}' end from baton_gen.runs r cross join lateral (select string_agg('"' || r.item_prefix || '-' || i || '"', ',' order by i) as items from generate_series(1, r.n - 2) i) it cross join lateral (select '{"name": "' || r.name || '", "nodes": {' || string_agg(case when p = 0 then '"' || r.first_key || '": {"procedure": "' || r.first_proc || '", "input": {"day": "' || coalesce(r.day, '2025-01-01') || '", "limit": ' || (r.n - 2) || '}' || case when r.pool <> 'default' then ', "pool": "' || r.pool || '"' else '' end || '}' when p = r.n - 1 then '"' || r.last_key || '": {"procedure": "' || r.last_proc || '", "input": {"source": {"$from": "' || r.first_key || '", "select": "/summary"}}, "after": [' || it.items || ']' || case when r.pool <> 'default' then ', "pool": "' || r.pool || '"' else '' end || '}' else '"' || r.item_prefix || '-' || p || '": {"procedure": "' || r.item_proc || '", "input": {"part": ' || p || ', "source": {"$from": "' || r.first_key || '", "select": "/parts/' || (p - 1) || '"}}' || case when r.pool <> 'default' then ', "pool": "' || r.pool || '"' else '' end || '}' end, ', ' order by p) || '}}' as graph, '{"v":2,"name":"' || r.name || '","order":["' || r.first_key || '",' || it.items || ',"' || r.last_key || '"],"nodes":{' || string_agg(case when p = 0 then '"' || r.first_key || '":{"key":"' || r.first_key || '","procedure":"' || r.first_proc || '","template":"{\"day\":\"' || coalesce(r.day, '2025-01-01') || '\",\"limit\":' || (r.n - 2) || '}","after":[],"pool":"' || r.pool || '","priority":0,"policies":{"dependencies":"all-succeeded","onFailure":"fail"},"dependencies":[]}' when p = r.n - 1 then '"' || r.last_key || '":{"key":"' || r.last_key || '","procedure":"' || r.last_proc || '","template":"{\"source\":{\"$from\":\"' || r.first_key || '\",\"select\":\"/summary\"}}","after":[' || it.items || '],"pool":"' || r.pool || '","priority":0,"policies":{"dependencies":"all-succeeded","onFailure":"fail"},"dependencies":["' || r.first_key || '",' || it.items || ']}' else '"' || r.item_prefix || '-' || p || '":{"key":"' || r.item_prefix || '-' || p || '","procedure":"' || r.item_proc || '","template":"{\"part\":' || p || ',\"source\":{\"$from\":\"' || r.first_key || '\",\"select\":\"/parts/' || (p - 1) || '\"}}","after":[],"pool":"' || r.pool || '","priority":0,"policies":{"dependencies":"all-succeeded","onFailure":"fail"},"dependencies":["' || r.first_key || '"]}' end, ',' order by p) || '}}' as plan from generate_series(0, r.n - 1) p) g order by r.k) to program 'psql -X -q -v ON_ERROR_STOP=1 -1 "$BATON_HISTORY_URL" -c "truncate baton.runs cascade" -c "copy baton.runs (id, name, status, submitted_at, started_at, finished_at, graph, error, idempotency_key, plan, input) from stdin"'

\echo 'nodes ...'
-- Nodes: per run, node 0 (the first stage), items 1 .. n-2 (after it), node n-1 (after all items).
-- Times follow waves of `conc` items; statuses follow the run's (described in REPORT.md).
\copy (select r.id, x.key, x.proc, x.status, x.attempts, case when x.dispatched then case x.role when 0 then '{"day": "' || coalesce(r.day, '2025-01-01') || '", "limit": ' || (r.n - 2) || '}' when 1 then '{"part": ' || p || ', "source": "s3://baton-data/' || r.name || '/' || r.k || '/part-' || (p - 1) || '.json"}' else '{"source": {"rows": ' || (r.n - 2) * 1000 || ', "parts": ' || (r.n - 2) || '}}' end end, case when x.status = 'succeeded' then case x.role when 0 then '{"parts": ' || (r.n - 2) || ', "summary": {"rows": ' || (r.n - 2) * 1000 || ', "parts": ' || (r.n - 2) || '}}' when 1 then '{"rows": ' || (x.h % 5000) || ', "bytes": ' || (x.h % 900000 + 1000) || ', "ms": ' || round(x.dur * 1000) || '}' else '{"ok": true, "rows": ' || (r.n - 2) * 1000 || '}' end end, case when x.status = 'failed' then baton_gen.error_text(x.mode, x.proc) when x.status = 'cancelled' and r.status = 'cancelled' then 'cancelled: by request (baton cancel)' when x.status = 'cancelled' then 'dependency ''' || r.fail_key || ''' failed' end, case when x.started then baton_gen.worker(r.pool, r.week, x.h % 12) end, case when x.dispatched then x.qs end, case when x.started then x.ss end, case when x.status in ('succeeded', 'failed') then x.fs when x.status = 'cancelled' then coalesce(r.cancel_t, r.fin - interval '10 ms') end, p, r.pool, case when x.status = 'pending' then '{}' else '{"phase": "run", "failures": ' || case when x.status = 'failed' then x.attempts when x.attempts > 1 then x.attempts - 1 else 0 end || ', "runs": 0, "logged": 0}' end, case x.role when 0 then '{"day": "' || coalesce(r.day, '2025-01-01') || '", "limit": ' || (r.n - 2) || '}' when 1 then '{"part": ' || p || ', "source": {"$from": "' || r.first_key || '", "select": "/parts/' || (p - 1) || '"}}' else '{"source": {"$from": "' || r.first_key || '", "select": "/summary"}}' end, case when x.dispatched then r.batch_base + case x.role when 0 then 0 when 1 then 1 + (p - 1) / r.conc else r.waves + 1 end end, case when x.status = 'failed' then baton_gen.error_type(x.mode) end, r.sub from baton_gen.runs r cross join lateral generate_series(0, r.n - 1) p cross join lateral (select t.*, case when t.status in ('succeeded', 'failed', 'running', 'queued') or (t.status = 'cancelled' and t.ss < r.cancel_t) then true else false end as dispatched, case when t.status in ('succeeded', 'failed', 'running') or (t.status = 'cancelled' and t.ss < r.cancel_t) then true else false end as started, case when t.status = 'failed' then 1 + t.h % 3 when t.status = 'succeeded' and t.role = 1 and baton_gen.h(r.k, p, 1) % 100 < 3 then 2 when t.status in ('succeeded', 'running', 'queued') or (t.status = 'cancelled' and t.ss < r.cancel_t) then 1 else 0 end as attempts from (select s.*, case r.status when 'succeeded' then 'succeeded' when 'pending' then 'pending' when 'failed' then case when r.failpos = 0 then case when s.role = 0 then 'failed' else 'cancelled' end when p = r.failpos or (s.role = 1 and r.n > 20 and p > r.failpos and baton_gen.h(r.k, p, 3) % 100 < 2) then 'failed' when s.role = 2 then 'cancelled' else 'succeeded' end when 'cancelled' then case when s.fs < r.cancel_t then 'succeeded' else 'cancelled' end else case when s.fs < now() then 'succeeded' when s.ss < now() then 'running' when s.qs < now() then 'queued' else 'pending' end end as status, case when p = r.failpos then r.fail_mode else (r.c + s.h % 3) % 6 end as mode from (select q.*, q.qs + (0.004 + (q.h % 1000) / 100000.0) * interval '1 second' as ss, q.qs + (0.004 + (q.h % 1000) / 100000.0 + q.dur) * interval '1 second' as fs from (select b.role, b.h, b.key, b.proc, case b.role when 0 then r.st + interval '20 ms' when 1 then r.st + (r.dur_first + 0.03 + ((p - 1) / r.conc) * r.dur_item) * interval '1 second' else r.st + (r.dur_first + r.waves * r.dur_item + 0.06) * interval '1 second' end as qs, case b.role when 0 then r.dur_first when 1 then r.dur_item * (0.3 + (b.h % 700) / 1000.0) else r.dur_first * 0.5 end as dur from (select case when p = 0 then 0 when p = r.n - 1 then 2 else 1 end as role, baton_gen.h(r.k, p, 0) as h, case when p = 0 then r.first_key when p = r.n - 1 then r.last_key else r.item_prefix || '-' || p end as key, case when p = 0 then r.first_proc when p = r.n - 1 then r.last_proc else r.item_proc end as proc offset 0) b offset 0) q offset 0) s offset 0) t offset 0) x order by r.k) to program 'psql -X -q -v ON_ERROR_STOP=1 -1 "$BATON_HISTORY_URL" -c "truncate baton.nodes" -c "copy baton.nodes (run_id, key, procedure, status, attempts, input, output, error, worker, queued_at, started_at, finished_at, position, pool, scheduler, template, dispatch_batch, error_type, run_submitted_at) from stdin"'

\echo 'events ...'
-- Events: read back from the nodes just loaded (in their order: by run, then position), with the
-- run's own events before its first node's and after its last node's; ids in that order.
\copy (select row_number() over (), e.run_id, e.node_key, e.kind, e.at, e.detail, e.run_submitted_at from (select n.run_id, n.run_submitted_at, v.node_key, v.kind, v.at, v.detail from baton.nodes n join baton_gen.runs r on r.id = n.run_id cross join lateral (select null::text as node_key, 'submitted' as kind, r.sub as at, '{"name": "' || r.name || '", "nodes": ' || r.n || '}' as detail where n.position = 0 union all select null, 'run_running', r.st, '{"status": "running"}' where n.position = 0 and r.status <> 'pending' union all select n.key, case s when 1 then 'queued' when 2 then 'started' when 3 then case when baton_gen.h(r.k, n.position, 9) % 2 = 0 then 'progress' else 'log' end else case when a < n.attempts then 'retrying' else n.status end end, case s when 1 then n.queued_at - (n.attempts - a) * interval '4 s' when 2 then n.started_at - (n.attempts - a) * interval '4 s' when 3 then n.started_at + (coalesce(n.finished_at, now()) - n.started_at) / 2 else coalesce(n.finished_at, n.started_at) - (n.attempts - a) * interval '4 s' end, case s when 1 then '{"attempt": ' || a || '}' when 2 then '{"attempt": ' || a || ', "worker": "' || n.worker || '"}' when 3 then case when baton_gen.h(r.k, n.position, 9) % 2 = 0 then '{"attempt": ' || a || ', "fraction": 0.5, "message": "halfway"}' else '{"attempt": ' || a || ', "message": "processed ' || (baton_gen.h(r.k, n.position, 9) % 5000) || ' records"}' end else case when a < n.attempts then '{"attempt": ' || a || ', "error": "' || baton_gen.error_text(r.c + a, n.procedure) || '", "due_at": "' || to_char(n.started_at - (n.attempts - a - 1) * interval '4 s', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"}' when n.status = 'succeeded' then '{"attempt": ' || a || ', "worker": "' || n.worker || '"}' when n.status = 'failed' then '{"attempt": ' || a || ', "error": "' || replace(n.error, '"', '\"') || '"' || coalesce(', "error_type": "' || n.error_type || '"', '') || ', "worker": "' || n.worker || '"}' else '{"attempt": ' || a || ', "reason": "' || n.error || '", "worker": "' || n.worker || '"}' end end from generate_series(1, n.attempts) a cross join generate_series(1, 4) s where s = 1 or (s = 2 and n.started_at is not null) or (s = 3 and a = n.attempts and n.started_at is not null and baton_gen.h(r.k, n.position, 9) % 10 < 3) or (s = 4 and (a < n.attempts or n.status in ('succeeded', 'failed', 'cancelled'))) union all select n.key, n.status, n.finished_at, '{"attempt": 0, "reason": "' || n.error || '"}' where n.attempts = 0 and n.status in ('cancelled', 'skipped') union all select null, 'run_' || r.status, r.fin, '{"status": "' || r.status || '"' || coalesce(', "error": "' || r.error || '"', '') || '}' where n.position = r.n - 1 and r.status in ('succeeded', 'failed', 'cancelled')) v) e) to program 'psql -X -q -v ON_ERROR_STOP=1 -1 "$BATON_HISTORY_URL" -c "truncate baton.events" -c "copy baton.events (id, run_id, node_key, kind, at, detail, run_submitted_at) from stdin"'

\echo 'indexes and foreign keys ...'
select string_agg(ddl, '; ' order by ord, ddl) as ddl from baton_gen_ddl.saved \gset
:ddl;
drop schema baton_gen_ddl cascade;

-- Counters the coordinator relies on: the next event id, dispatch batch numbers above every
-- stored one, and every partition's publications confirmed through them (all tasks reached the broker).
select setval('baton.events_id_seq', greatest((select max(id) from baton.events), 1));
select setval('baton.dispatch_batches', greatest((select max(dispatch_batch) from baton.nodes), 1));
update baton.publications set confirmed_through = (select last_value from baton.dispatch_batches), floor = 0;

drop schema baton_gen cascade;

\echo 'vacuum analyze ...'
vacuum (analyze) baton.runs, baton.nodes, baton.events;

select t.relname, count(*) as partitions, sum(s.n_live_tup) as n_live_tup,
       pg_size_pretty(sum(pg_total_relation_size(s.relid))) as total, pg_size_pretty(sum(pg_relation_size(s.relid))) as heap
from (values ('runs'), ('nodes'), ('events')) as t(relname)
cross join lateral pg_partition_tree(('baton.' || t.relname)::regclass) p
join pg_stat_user_tables s on s.relid = p.relid and p.isleaf
group by t.relname order by t.relname;
