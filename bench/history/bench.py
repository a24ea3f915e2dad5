#!/usr/bin/env python3
"""Times the SQL that the dashboard and the CLI run, copied from the sources, on a generated history.

    bench/history/bench.py DATABASE_URL PHASE [QUERY_ID_PREFIX ...]

For each query and parameter set: PREPARE it as the app sends it (PQexecParams with untyped text
parameters, i.e. a custom plan with the values known), run it once to warm the cache, then 5 times
with psql's \\timing (result rows fetched and dropped), and keep the median; then one
EXPLAIN (ANALYZE, BUFFERS) written to bench/history/plans/PHASE/ID.txt. Prints a Markdown table and
writes bench/history/results-PHASE.json. Needs only psql.
"""
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# --- The application's SQL, verbatim (Sources/BatonStore) -------------------------------------------

RUN_COLUMNS = """r.id::text as id, r.name, r.status, r.submitted_at::text as submitted_at, r.started_at::text as started_at,
        r.finished_at::text as finished_at, r.error, r.input::text as input,
        (select count(*) from baton.nodes n where n.run_id = r.id) as nodes,
        (select count(*) from baton.nodes n where n.run_id = r.id and n.status in ('succeeded', 'failed', 'cancelled', 'skipped')) as done"""

RUNS_FILTER = "($1::text is null or r.status = $1) and ($2::text is null or strpos(lower(r.name), lower($2)) > 0)"

# Store+Dashboard.swift runs(status:nameContains:limit:offset:)
RUNS_PAGE = f"""select {RUN_COLUMNS} from baton.runs r where {RUNS_FILTER}
            order by r.submitted_at desc, r.id limit $3::int offset $4::int"""
RUNS_TOTAL = f"select count(*) as n from baton.runs r where {RUNS_FILTER}"
# Store+Dashboard.swift runCounts()
RUN_COUNTS = "select status, count(*) as n from baton.runs group by status"
# Store+Dashboard.swift failureGroups(ofRuns:limit:)
FAILURE_GROUPS = """with failed as (
                select n.run_id, n.key, n.procedure, n.error_type, n.error, n.finished_at from baton.nodes n
                where n.run_id = any($1::uuid[]) and n.status = 'failed'),
            latest as (
                select distinct on (procedure, error_type) procedure, error_type, run_id, key, error, finished_at from failed
                order by procedure, error_type, finished_at desc nulls last, run_id, key)
            select f.procedure, f.error_type, count(*) as nodes, count(distinct f.run_id) as runs, l.run_id::text as latest_run,
                   l.key as latest_node, l.error as latest_error, l.finished_at::text as latest_at
            from failed f join latest l on l.procedure = f.procedure and l.error_type is not distinct from f.error_type
            group by f.procedure, f.error_type, l.run_id, l.key, l.error, l.finished_at
            order by nodes desc, f.procedure, f.error_type nulls last limit $2::int"""
# Store+Queries.swift runs(status:limit:) (baton runs)
RUNS_CLI = f"""select {RUN_COLUMNS} from baton.runs r
            where ($1::text is null or r.status = $1) order by r.submitted_at desc limit $2::int"""
# Store+Queries.swift run(_:) and resolveRunID(_:)
RUN_ROW = f"select {RUN_COLUMNS} from baton.runs r where r.id = $1::uuid"
RESOLVE_FULL = "select 1 from baton.runs where id = $1::uuid"
RESOLVE_PREFIX = "select id::text from baton.runs where id::text like $1 || '%' limit 2"
# Store+Queries.swift runStatus(_:), progress(ofRun:), runningNodes(ofRun:limit:)
RUN_STATUS = "select status from baton.runs where id = $1::uuid"
PROGRESS_RUN = "select status, error from baton.runs where id = $1::uuid"
PROGRESS_NODES = "select status, strpos(key, '/') > 0 as child, count(*) as n from baton.nodes where run_id = $1::uuid group by 1, 2"
RUNNING_NODES = "select key from baton.nodes where run_id = $1::uuid and status = 'running' order by position limit $2::int"
# Store+Graph.swift runGraph(_:)
RUN_GRAPH = "select plan::text as plan, case when plan is null then graph::text end as graph from baton.runs where id = $1::uuid"
# NodeRow.select(andWhere:) (nodes(ofRun:) adds " order by n.position"; node(ofRun:key:) "n.key = $2")
NODE_SELECT = """with lost as (
            select e.node_key, jsonb_agg(e.detail->'worker' order by e.id)::text as workers from baton.events e
            where e.run_id = $1::uuid and e.kind in ('redelivered', 'lease_expired') and e.node_key is not null group by e.node_key)
        select n.key, n.procedure, n.status, n.attempts, n.input::text as input, n.output::text as output, n.error, n.error_type, n.worker,
               n.queued_at::text as queued_at, n.started_at::text as started_at, n.finished_at::text as finished_at,
               extract(epoch from n.finished_at - n.started_at)::float8 as seconds, lost.workers as lost_workers
        from baton.nodes n left join lost on lost.node_key = n.key
        where n.run_id = $1::uuid"""
NODES_OF_RUN = NODE_SELECT + " order by n.position"
NODE_OF_RUN = NODE_SELECT + " and n.key = $2"
# Store+Dashboard.swift events(ofRun:node:limit:), Store+Queries.swift events(ofRun:after:limit:)
NODE_EVENTS = """select id, node_key, kind, at::text as at, detail::text as detail from baton.events
            where run_id = $1::uuid and node_key = $2 order by id limit $3::int"""
RUN_EVENTS = """select id, node_key, kind, at::text as at, detail::text as detail from baton.events
            where run_id = $1::uuid and id > $2::bigint order by id limit $3::int"""


# --- Proposed rewrites (same results, same parameters) ---------------------------------------------

# The page of runs first (ids only: an index-only scan with the list index), then the rest of each
# row and its node counts, in one pass over its nodes, for those 50 rows only: OFFSET no longer
# counts the nodes of every run it skips.
RUN_COUNTS_LATERAL = """cross join lateral (
            select count(*) as nodes,
                   count(*) filter (where n.status in ('succeeded', 'failed', 'cancelled', 'skipped')) as done
            from baton.nodes n where n.run_id = r.id) c"""
RUN_ROW_COLUMNS = """r.id::text as id, r.name, r.status, r.submitted_at::text as submitted_at, r.started_at::text as started_at,
        r.finished_at::text as finished_at, r.error, r.input::text as input, c.nodes, c.done"""
RUNS_PAGE_W = f"""select {RUN_ROW_COLUMNS}
        from (select r.id, r.submitted_at from baton.runs r where {RUNS_FILTER}
              order by r.submitted_at desc, r.id limit $3::int offset $4::int) p
        join baton.runs r on r.id = p.id
        {RUN_COUNTS_LATERAL}
        order by p.submitted_at desc, p.id"""
RUNS_CLI_W = f"""select {RUN_ROW_COLUMNS}
        from (select r.id, r.submitted_at from baton.runs r where ($1::text is null or r.status = $1)
              order by r.submitted_at desc limit $2::int) p
        join baton.runs r on r.id = p.id
        {RUN_COUNTS_LATERAL}
        order by p.submitted_at desc"""
# Failed nodes always have an error: saying so lets the planner use the small partial index
# nodes_error_idx instead of reading every node of the runs.
FAILURE_GROUPS_W = FAILURE_GROUPS.replace("and n.status = 'failed')", "and n.status = 'failed' and n.error is not null)")
assert FAILURE_GROUPS_W != FAILURE_GROUPS
# A prefix of the id as a range of uuids (runs_pkey), the LIKE kept so that the answer is the same.
RESOLVE_PREFIX_W = """select id::text from baton.runs
        where id between rpad(replace($1, '-', ''), 32, '0')::uuid and rpad(replace($1, '-', ''), 32, 'f')::uuid
          and id::text like $1 || '%' limit 2"""


def psql(url, script):
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url], input=script, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"psql failed:\n{r.stderr}\n--- script ---\n{script[:3000]}")
    return r.stdout


def scalar_rows(url, sql):
    return [line for line in psql(url, "\\pset format unaligned\n\\pset tuples_only on\n" + sql + ";\n").splitlines() if line]


def literal(value):
    if value is None:
        return "NULL"
    return "'" + str(value).replace("'", "''") + "'"


def measure(url, sql, params, plan_file, repetitions=5):
    args = ", ".join(literal(p) for p in params)
    execute = f"execute q({args});" if params else "execute q;"
    script = "\n".join([
        "set plan_cache_mode = force_custom_plan;",
        "set time zone 'UTC';",
        f"prepare q as {sql};",
        "\\o /dev/null",
        "\\timing on",
        *([execute] * (repetitions + 1)),
        "\\timing off",
        "\\o",
        "\\echo ==PLAN==",
        f"explain (analyze, buffers) {execute}",
    ])
    out = psql(url, script)
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]
    if len(times) != repetitions + 1:
        raise SystemExit(f"expected {repetitions + 1} timings, got {times}\n{out}")
    plan = out.split("==PLAN==", 1)[1].strip()
    os.makedirs(os.path.dirname(plan_file), exist_ok=True)
    with open(plan_file, "w") as f:
        f.write(f"-- {execute}\n-- prepared: {sql}\n\n{plan}\n")
    return statistics.median(times[1:]), times[1:], plan


def main():
    url, phase = sys.argv[1], sys.argv[2]
    only = sys.argv[3:]
    ids = dict(line.split("=", 1) for line in open(os.path.join(HERE, "params.env")).read().split() if "=" in line)
    total_runs = int(scalar_rows(url, "select count(*) from baton.runs")[0])
    last_offset = (total_runs - 1) // 50 * 50
    page1 = "{" + ",".join(scalar_rows(url, "select id from baton.runs order by submitted_at desc, id limit 50")) + "}"
    failed1 = "{" + ",".join(scalar_rows(url, "select id from baton.runs where status = 'failed' order by submitted_at desc, id limit 50")) + "}"
    backfill1 = "{" + ",".join(scalar_rows(url, "select id from baton.runs where strpos(lower(name), 'backfill') > 0 order by submitted_at desc, id limit 50")) + "}"
    failed500 = "{" + ",".join(scalar_rows(url, "select id from baton.runs where status = 'failed' order by submitted_at desc, id limit 500")) + "}"
    big, big5k, bigfail, running, small, old, midfail = (
        ids["HUGE"], ids["BIG5K"], ids["BIGFAIL"], ids["BIGRUNNING"], ids["SMALL"], ids["OLD"], ids["MIDFAIL"])
    bigfail_node = scalar_rows(url, f"select key from baton.nodes where run_id = '{bigfail}' and status = 'failed' order by position limit 1")[0]
    big5k_node = scalar_rows(url, f"select key from baton.nodes where run_id = '{big5k}' order by position offset 2500 limit 1")[0]

    cases = [
        # id, what, sql, params
        ("R1a", "runs page rows, no filter, page 1", RUNS_PAGE, [None, None, 50, 0]),
        ("R1b", "runs page rows, status=failed", RUNS_PAGE, ["failed", None, 50, 0]),
        ("R1c", "runs page rows, status=cancelled", RUNS_PAGE, ["cancelled", None, 50, 0]),
        ("R1d", "runs page rows, status=running", RUNS_PAGE, ["running", None, 50, 0]),
        ("R1e", "runs page rows, status=pending", RUNS_PAGE, ["pending", None, 50, 0]),
        ("R1f", "runs page rows, name~'etl'", RUNS_PAGE, [None, "etl", 50, 0]),
        ("R1g", "runs page rows, name~'backfill'", RUNS_PAGE, [None, "backfill", 50, 0]),
        ("R1h", "runs page rows, name~'nomatch'", RUNS_PAGE, [None, "nomatch", 50, 0]),
        ("R1i", "runs page rows, failed + name~'replay'", RUNS_PAGE, ["failed", "replay", 50, 0]),
        ("R1j", "runs page rows, page 100 (offset 4950)", RUNS_PAGE, [None, None, 50, 4950]),
        ("R1k", "runs page rows, page 1000 (offset 49950)", RUNS_PAGE, [None, None, 50, 49950]),
        ("R1l", f"runs page rows, last page (offset {last_offset})", RUNS_PAGE, [None, None, 50, last_offset]),
        ("R1m", "runs page rows, per_page=500", RUNS_PAGE, [None, None, 500, 0]),
        ("R2a", "runs page total, no filter", RUNS_TOTAL, [None, None]),
        ("R2b", "runs page total, status=failed", RUNS_TOTAL, ["failed", None]),
        ("R2c", "runs page total, status=running", RUNS_TOTAL, ["running", None]),
        ("R2d", "runs page total, name~'etl'", RUNS_TOTAL, [None, "etl"]),
        ("R2e", "runs page total, failed + name~'replay'", RUNS_TOTAL, ["failed", "replay"]),
        ("R2f", "runs page total, name~'backfill'", RUNS_TOTAL, [None, "backfill"]),
        ("R3", "run counts by status", RUN_COUNTS, []),
        ("R4a", "failures card, page 1 (50 newest runs)", FAILURE_GROUPS, [page1, 20]),
        ("R4b", "failures card, 50 newest failed runs", FAILURE_GROUPS, [failed1, 20]),
        ("R4c", "failures card, 500 newest failed runs", FAILURE_GROUPS, [failed500, 20]),
        ("R4d", "failures card, 50 newest backfill runs (3,700 nodes each)", FAILURE_GROUPS, [backfill1, 20]),
        ("C1a", "baton runs (limit 20)", RUNS_CLI, [None, 20]),
        ("C1b", "baton runs --status failed", RUNS_CLI, ["failed", 20]),
        ("C1c", "baton runs --status cancelled", RUNS_CLI, ["cancelled", 20]),
        ("C1d", "baton runs --status running", RUNS_CLI, ["running", 20]),
        ("C1e", "baton runs --status pending", RUNS_CLI, ["pending", 20]),
        ("C1f", "baton runs --limit 1000", RUNS_CLI, [None, 1000]),
        ("W1a", "REWRITE runs page rows, no filter, page 1", RUNS_PAGE_W, [None, None, 50, 0]),
        ("W1b", "REWRITE runs page rows, status=failed", RUNS_PAGE_W, ["failed", None, 50, 0]),
        ("W1f", "REWRITE runs page rows, name~'etl'", RUNS_PAGE_W, [None, "etl", 50, 0]),
        ("W1g", "REWRITE runs page rows, name~'backfill'", RUNS_PAGE_W, [None, "backfill", 50, 0]),
        ("W1h", "REWRITE runs page rows, name~'nomatch'", RUNS_PAGE_W, [None, "nomatch", 50, 0]),
        ("W1i", "REWRITE runs page rows, failed + name~'replay'", RUNS_PAGE_W, ["failed", "replay", 50, 0]),
        ("W1j", "REWRITE runs page rows, page 100", RUNS_PAGE_W, [None, None, 50, 4950]),
        ("W1k", "REWRITE runs page rows, page 1000", RUNS_PAGE_W, [None, None, 50, 49950]),
        ("W1l", "REWRITE runs page rows, last page", RUNS_PAGE_W, [None, None, 50, last_offset]),
        ("W1m", "REWRITE runs page rows, per_page=500", RUNS_PAGE_W, [None, None, 500, 0]),
        ("W2a", "REWRITE baton runs (limit 20)", RUNS_CLI_W, [None, 20]),
        ("W2f", "REWRITE baton runs --limit 1000", RUNS_CLI_W, [None, 1000]),
        ("W4c", "REWRITE failures card, 500 newest failed runs", FAILURE_GROUPS_W, [failed500, 20]),
        ("W4d", "REWRITE failures card, 50 newest backfill runs", FAILURE_GROUPS_W, [backfill1, 20]),
        ("W4e", "REWRITE failures card, 9,648-node failed run", FAILURE_GROUPS_W, ["{" + bigfail + "}", 20]),
        ("W3b", "REWRITE resolve run id, 8-char prefix", RESOLVE_PREFIX_W, [big5k[:8]]),
        ("W3c", "REWRITE resolve run id, 4-char prefix", RESOLVE_PREFIX_W, [old[:4]]),
        ("S1a", "resolve run id, full uuid", RESOLVE_FULL, [big5k]),
        ("S1b", "resolve run id, 8-char prefix", RESOLVE_PREFIX, [big5k[:8]]),
        ("S1c", "resolve run id, 4-char prefix", RESOLVE_PREFIX, [old[:4]]),
        ("S2a", "run row, small run", RUN_ROW, [small]),
        ("S2b", "run row, 5,000-node run", RUN_ROW, [big5k]),
        ("S2c", "run row, 9,959-node run", RUN_ROW, [big]),
        ("S3a", "run nodes, small run", NODES_OF_RUN, [small]),
        ("S3b", "run nodes, old run", NODES_OF_RUN, [old]),
        ("S3c", "run nodes, 5,000-node run", NODES_OF_RUN, [big5k]),
        ("S3d", "run nodes, 9,959-node run", NODES_OF_RUN, [big]),
        ("S3e", "run nodes, 5,000-node running run", NODES_OF_RUN, [running]),
        ("P1a", "run graph (plan), small run", RUN_GRAPH, [small]),
        ("P1b", "run graph (plan), 5,000-node run", RUN_GRAPH, [big5k]),
        ("P2a", "run status", RUN_STATUS, [big5k]),
        ("P2b", "progress: run", PROGRESS_RUN, [big5k]),
        ("P3a", "progress: node counts, small run", PROGRESS_NODES, [small]),
        ("P3b", "progress: node counts, 5,000-node run", PROGRESS_NODES, [big5k]),
        ("P3c", "progress: node counts, 9,648-node failed run", PROGRESS_NODES, [bigfail]),
        ("P4a", "failures card, one failed run (invoice-batch)", FAILURE_GROUPS, ["{" + midfail + "}", 20]),
        ("P4b", "failures card, 9,648-node failed run", FAILURE_GROUPS, ["{" + bigfail + "}", 20]),
        ("P5", "running nodes (api/runs/:id), 5,000-node running run", RUNNING_NODES, [running, 20]),
        ("N1a", "node panel: node, 5,000-node run", NODE_OF_RUN, [big5k, big5k_node]),
        ("N1b", "node panel: node, small run", NODE_OF_RUN, [small, "score-1"]),
        ("N2a", "node panel: node events, 5,000-node run", NODE_EVENTS, [big5k, big5k_node, 1000]),
        ("N2b", "node panel: node events, 9,648-node failed run", NODE_EVENTS, [bigfail, bigfail_node, 1000]),
        ("N3", "api events after=0, 5,000-node run", RUN_EVENTS, [big5k, 0, 1000]),
    ]
    rows = []
    for cid, what, sql, params in cases:
        if only and not any(cid.startswith(p) for p in only):
            continue
        median, times, plan = measure(url, sql, params, os.path.join(HERE, "plans", phase, cid + ".txt"))
        seq = sorted(set(re.findall(r"Seq Scan on (\w+)", plan)))
        execution = re.search(r"Execution Time: ([0-9.]+) ms", plan)
        rows.append({"id": cid, "what": what, "median_ms": round(median, 2), "times_ms": times,
                     "explain_ms": float(execution.group(1)) if execution else None, "seq_scans": seq})
        print(f"| {cid} | {what} | {median:.1f} | {', '.join(seq)} |", flush=True)
    out = os.path.join(HERE, f"results-{phase}.json")
    previous = json.load(open(out)) if only and os.path.exists(out) else []
    merged = {r["id"]: r for r in previous}
    merged.update({r["id"]: r for r in rows})
    json.dump(sorted(merged.values(), key=lambda r: r["id"]), open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
