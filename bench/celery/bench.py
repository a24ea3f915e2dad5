"""Driver of the Celery side-by-side benchmark; run it through run.sh, which
installs Celery, starts Redis and provides the RabbitMQ vhost.

For each cluster shape (worker processes x thread slots) it starts the Celery
workers, runs the scenarios --rounds times, stops the workers, and at the end
prints a Markdown table (median, min and max over the rounds).

  fan-out  N no-op tasks in a chord whose callback receives every result;
           timed from the first publish to the callback's result arriving in
           the driver; nodes/s = (N + 1) / seconds.
  chain    M no-op tasks in a Celery chain; nodes/s = M / seconds (submit to
           last result); per hop = start of task k+1 minus return of task k,
           from the tasks' own timestamps; p50 and p99 over the M - 1 hops.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import celery  # noqa: E402
from celery import chain, chord  # noqa: E402

import benchtasks  # noqa: E402
from benchtasks import app, collect, hop, noop  # noqa: E402

# The driver reads results straight from Redis (wait_result), so it does not
# subscribe to them: Celery's client would otherwise SUBSCRIBE to every header
# task of a chord while applying it (a Redis round trip each, inside the timed
# submit) and, never reading those channels, be disconnected by Redis once its
# pub/sub output buffer overflowed.
app.backend.add_pending_result = lambda result, weak=False, start_drainer=True: result

workers = []  # Popen objects of the running Celery worker processes


def log(message):
    print(f"celery-bench: {message}", file=sys.stderr, flush=True)


def parse_shapes(text):
    shapes = []
    for part in text.split(","):
        try:
            w, s = part.lower().split("x")
            w, s = int(w), int(s)
        except ValueError:
            sys.exit(f"celery-bench: --shapes: '{part}' is not WORKERSxSLOTS (e.g. 1x8,2x32)")
        if w < 1 or s < 1:
            sys.exit(f"celery-bench: --shapes: '{part}' needs at least 1 worker and 1 slot")
        shapes.append((w, s))
    return shapes


def write_pids(path):
    if path:
        with open(path, "w") as f:
            f.write("".join(f"{p.pid}\n" for p in workers))


def start_workers(count, slots, pid_file, log_dir):
    env = dict(os.environ)
    env["PYTHONPATH"] = HERE + os.pathsep + env.get("PYTHONPATH", "")
    for i in range(count):
        logf = open(os.path.join(log_dir, f"worker-{i}.log"), "w")
        p = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "benchtasks", "worker",
             "--pool", "threads", "--concurrency", str(slots),
             "--prefetch-multiplier", "1",
             "-Q", benchtasks.QUEUE, "-n", f"bench{i}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat",
             "--loglevel", "WARNING"],
            cwd=HERE, env=env, stdout=logf, stderr=subprocess.STDOUT,
            start_new_session=True)  # its own process group, so it can be stopped whole
        workers.append(p)
    write_pids(pid_file)


def wait_workers_ready(count, deadline_s=60):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        dead = [p for p in workers if p.poll() is not None]
        if dead:
            raise RuntimeError(f"a Celery worker exited with status {dead[0].returncode} (see its log)")
        replies = app.control.ping(timeout=1.0) or []
        if len(replies) >= count:
            return
    raise RuntimeError(f"Celery workers not ready within {deadline_s} s")


def stop_workers(pid_file):
    for p in workers:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 20
    for p in workers:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
    workers.clear()
    write_pids(pid_file)


def peak_rss_mb():
    """The largest worker process's peak resident set so far (VmHWM), in MB."""
    best = 0.0
    for p in workers:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        best = max(best, int(line.split()[1]) / 1024)
        except OSError:
            pass
    return best


_redis = None


def stored_results(task_ids):
    """The stored results of finished tasks, read straight from Redis (None for
    a task with no result yet); raises if one of them failed."""
    global _redis
    if _redis is None:
        import redis
        _redis = redis.Redis.from_url(app.conf.result_backend)
    keys = [app.backend.get_key_for_task(t) for t in task_ids]
    out = []
    for raw in _redis.mget(keys):
        if raw is None:
            out.append(None)
            continue
        meta = json.loads(raw)
        if meta["status"] != "SUCCESS":
            raise RuntimeError(f"task {meta.get('task_id')} {meta['status']}: {meta.get('result')}")
        out.append(meta["result"])
    return out


def wait_result(task_id, timeout):
    """Polls Redis every 2 ms for one task's result. Used instead of
    AsyncResult.get(), whose pub/sub consumer in the driver slowed down with
    every earlier round (tens of seconds after 30,000 tasks), which would have
    measured the driver rather than Celery. BatonBenchmark polls its run's
    status the same way (every 20 ms)."""
    deadline = time.monotonic() + timeout
    while True:
        (result,) = stored_results([task_id])
        if result is not None:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"no result for task {task_id} within the scenario's deadline")
        time.sleep(0.002)


def fan_out(n, timeout):
    start = time.time()
    result = chord(noop.s(i) for i in range(n))(collect.s())
    submitted = time.time() - start
    out = wait_result(result.id, timeout - submitted)  # the deadline counts from the first publish
    seconds = time.time() - start
    if out["count"] != n or out["sum"] != n * (n - 1) // 2:
        raise RuntimeError(f"chord callback got {out['count']} results, expected {n}")
    return {"seconds": seconds, "submit": submitted, "nodes_per_s": (n + 1) / seconds}


def percentile(sorted_values, p):
    # Same rule as BatonBenchmark: nearest rank on (count - 1) * p.
    return sorted_values[min(len(sorted_values) - 1, round((len(sorted_values) - 1) * p))]


def chain_run(m, timeout):
    start = time.time()
    result = chain(hop.s(None, 0), *(hop.s(k) for k in range(1, m)))()
    submitted = time.time() - start
    last = wait_result(result.id, timeout - submitted)
    seconds = time.time() - start
    if last["k"] != m - 1:
        raise RuntimeError(f"chain ended at hop {last['k']}, expected {m - 1}")
    # Walk back from the last link to collect every task's timestamps.
    ids, node = [], result
    while node is not None:
        ids.append(node.id)
        node = node.parent
    # A Celery worker publishes the next link before it stores its own result,
    # so the last result can be in Redis before an earlier one: wait briefly.
    deadline = time.monotonic() + 30
    while True:
        rows = [r for r in stored_results(ids) if r is not None]
        if len(rows) == len(ids) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    rows.sort(key=lambda r: r["k"])
    if [r["k"] for r in rows] != list(range(m)):
        raise RuntimeError("chain results incomplete")
    hops = [b["started"] - a["finished"] for a, b in zip(rows, rows[1:])]
    worst = max(range(len(hops)), key=hops.__getitem__)
    hops_sorted = sorted(hops)
    return {"seconds": seconds, "submit": submitted, "nodes_per_s": m / seconds,
            "p50": percentile(hops_sorted, 0.5) * 1000, "p99": percentile(hops_sorted, 0.99) * 1000,
            "mean": statistics.fmean(hops) * 1000, "max": hops[worst] * 1000, "max_at": worst + 1,
            "first_start": (rows[0]["started"] - start) * 1000,
            "early": statistics.fmean(hops[:len(hops) // 10]) * 1000,
            "late": statistics.fmean(hops[-(len(hops) // 10):]) * 1000}


def summary(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="1x8", help="cluster shapes WORKERSxSLOTS, comma separated")
    ap.add_argument("--nodes", type=int, default=10000, help="fan-out size N")
    ap.add_argument("--chain", type=int, default=1000, help="chain length M")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=["fan-out", "chain"])
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed for one scenario round")
    ap.add_argument("--pid-file", help="where to list the worker pids (for run.sh's cleanup)")
    ap.add_argument("--log-dir", default=".")
    ap.add_argument("--json", help="also write the raw results here")
    a = ap.parse_args()
    if a.nodes < 1 or a.chain < 2 or a.rounds < 1:
        sys.exit("celery-bench: --nodes must be >= 1, --chain >= 2, --rounds >= 1")
    shapes = parse_shapes(a.shapes)
    scenarios = [a.only] if a.only else ["fan-out", "chain"]

    def on_signal(signum, frame):
        # Stop the workers, then leave at once: a SystemExit raised in the middle
        # of a publish could be swallowed by the client library's retry logic.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stop_workers(a.pid_file)
        log(f"stopped by signal {signum}")
        sys.stdout.flush()
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    version = celery.__version__
    log(f"Celery {version} (kombu {__import__('kombu').__version__}), {os.cpu_count()} cores, "
        f"broker {app.conf.broker_url.split('@')[-1]}, results {app.conf.result_backend}")
    results = []
    failed = False
    try:
        for w, s in shapes:
            app.control.purge()  # leftovers of an interrupted run
            start_workers(w, s, a.pid_file, a.log_dir)
            wait_workers_ready(w)
            # Warm-up: connections made, queues declared, code paths loaded.
            fan_out(50, 60)
            chain_run(20, 60)
            for scenario in scenarios:
                rounds = []
                for r in range(a.rounds):
                    try:
                        if scenario == "fan-out":
                            m = fan_out(a.nodes, a.timeout)
                            log(f"{w}x{s} fan-out+chord N={a.nodes} round {r + 1}: {m['seconds']:.2f} s, "
                                f"{m['nodes_per_s']:.0f} nodes/s, submit {m['submit']:.2f} s")
                        else:
                            m = chain_run(a.chain, a.timeout)
                            log(f"{w}x{s} chain M={a.chain} round {r + 1}: {m['seconds']:.2f} s, "
                                f"{m['nodes_per_s']:.0f} nodes/s, hop p50 {m['p50']:.2f} ms p99 {m['p99']:.2f} ms "
                                f"mean {m['mean']:.2f} ms max {m['max']:.0f} ms (hop {m['max_at']}), "
                                f"first task started {m['first_start']:.0f} ms after submit, "
                                f"mean hop in the first tenth {m['early']:.2f} ms, last tenth {m['late']:.2f} ms")
                        rounds.append(m)
                    except Exception as e:  # a timeout or a failed task: report it, go on
                        failed = True
                        log(f"{w}x{s} {scenario} round {r + 1} FAILED: {type(e).__name__}: {e}")
                        app.control.purge()
                results.append({"shape": f"{w}x{s}", "scenario": scenario, "rounds": rounds,
                                "peak_rss_mb": peak_rss_mb()})
            stop_workers(a.pid_file)
    finally:
        stop_workers(a.pid_file)

    if a.json:
        with open(a.json, "w") as f:
            json.dump({"celery": version, "results": results}, f, indent=2)

    n_fmt = lambda v: f"{v:,.0f}"  # noqa: E731
    s_fmt = lambda v: f"{v:.2f}"  # noqa: E731
    print()
    confirms = "on" if app.conf.broker_transport_options.get("confirm_publish") else "off"
    print(f"Median (min–max) of {a.rounds} round(s); fan-out N={a.nodes:,} + chord, chain M={a.chain:,}; "
          f"{os.cpu_count()} cores; publisher confirms {confirms}, Redis appendfsync {os.environ.get('CELERY_BENCH_FSYNC', '?')}.")
    print()
    print("| system | scenario | workers×slots | nodes/s | submit s | hop p50 ms | hop p99 ms | worker peak RSS MB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        rs = r["rounds"]
        name = "fan-out + chord" if r["scenario"] == "fan-out" else "chain"
        shape = r["shape"].replace("x", "×")
        if not rs:
            print(f"| Celery {version} | {name} | {shape} | failed | | | | |")
            continue
        nps = summary([m["nodes_per_s"] for m in rs], n_fmt)
        sub = summary([m["submit"] for m in rs], s_fmt)
        if r["scenario"] == "chain":
            p50 = summary([m["p50"] for m in rs], s_fmt)
            p99 = summary([m["p99"] for m in rs], s_fmt)
        else:
            p50 = p99 = "–"
        print(f"| Celery {version} | {name} | {shape} | {nps} | {sub} | {p50} | {p99} | {r['peak_rss_mb']:.0f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
