#!/usr/bin/env python3
"""End-to-end timings of the CLI and the dashboard on a generated history.

    bench/history/timing.py DATABASE_URL PHASE [BATON_BINARY, default /tmp/baton-history]

Each case runs once to warm up, then 5 times; the median wall time is kept. CLI cases time the
whole process (connect, schema check, queries, output to /dev/null). Dashboard cases start
`baton dashboard --listen 127.0.0.1:8899` once and time `curl -w %{time_total}` per request.
Prints a Markdown table and writes bench/history/timing-PHASE.json.
"""
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 8899


def median_of(fn, repetitions=5):
    fn()  # warm-up
    times = [fn() for _ in range(repetitions)]
    return statistics.median(times), times


def main():
    url, phase = sys.argv[1], sys.argv[2]
    binary = sys.argv[3] if len(sys.argv) > 3 else "/tmp/baton-history"
    ids = dict(line.split("=", 1) for line in open(os.path.join(HERE, "params.env")).read().split() if "=" in line)
    rows = []

    def cli(label, *args):
        def once():
            start = time.perf_counter()
            r = subprocess.run([binary, *args, "--database-url", url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = (time.perf_counter() - start) * 1000
            if r.returncode != 0:
                raise SystemExit(f"{label}: exit {r.returncode}: {r.stderr.decode()}")
            return elapsed
        median, times = median_of(once)
        rows.append({"case": label, "median_ms": round(median, 1), "times_ms": [round(t, 1) for t in times]})
        print(f"| {label} | {median:.0f} |", flush=True)

    cli("baton runs", "runs")
    cli("baton runs --status failed", "runs", "--status", "failed")
    cli("baton runs --status pending", "runs", "--status", "pending")
    cli("baton runs --limit 1000", "runs", "--limit", "1000")
    cli("baton show SMALL (5 nodes, full id)", "show", ids["SMALL"])
    cli("baton show OLD (8-char prefix, 1 year old)", "show", ids["OLD"][:8])
    cli("baton show MIDFAIL (failed, 8-char prefix)", "show", ids["MIDFAIL"][:8])
    cli("baton show BIG5K (5,021 nodes)", "show", ids["BIG5K"])
    cli("baton show BIGRUNNING (5,000 nodes, running)", "show", ids["BIGRUNNING"])
    cli("baton show HUGE (9,959 nodes)", "show", ids["HUGE"])

    dashboard = subprocess.Popen(
        [binary, "dashboard", "--listen", f"127.0.0.1:{PORT}", "--database-url", url],
        stdout=open(f"/tmp/baton-history-dashboard-{phase}.log", "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{PORT}/assets/favicon.svg", timeout=1)
                break
            except Exception:
                time.sleep(0.2)

        def page(label, path):
            def once():
                r = subprocess.run(
                    ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", f"http://127.0.0.1:{PORT}{path}"],
                    capture_output=True, text=True, check=True)
                code, total = r.stdout.split()
                if code != "200":
                    raise SystemExit(f"{label}: HTTP {code}")
                return float(total) * 1000
            median, times = median_of(once)
            rows.append({"case": label, "median_ms": round(median, 1), "times_ms": [round(t, 1) for t in times]})
            print(f"| {label} | {median:.0f} |", flush=True)

        big5k_key = "replay-2500"
        page("GET / (runs page)", "/")
        page("GET /?status=failed", "/?status=failed")
        page("GET /?name=backfill", "/?name=backfill")
        page("GET /?page=1000", "/?page=1000")
        page("GET /?per_page=500", "/?per_page=500")
        page("GET /api/runs (runs page poll, every 2 s)", "/api/runs")
        page("GET /runs/SMALL", f"/runs/{ids['SMALL']}")
        page("GET /runs/OLD", f"/runs/{ids['OLD']}")
        page("GET /runs/MIDFAIL", f"/runs/{ids['MIDFAIL']}")
        page("GET /runs/BIG5K (5,021 nodes)", f"/runs/{ids['BIG5K']}")
        page("GET /runs/BIGRUNNING (5,000 nodes)", f"/runs/{ids['BIGRUNNING']}")
        page("GET /runs/HUGE (9,959 nodes)", f"/runs/{ids['HUGE']}")
        page("GET /api/runs/BIGRUNNING (run page poll, every 1 s)", f"/api/runs/{ids['BIGRUNNING']}")
        page("GET /api/runs/BIGRUNNING/graph.svg (on change)", f"/api/runs/{ids['BIGRUNNING']}/graph.svg")
        page("GET /api/runs/BIGRUNNING/nodes?limit=500 (on change)", f"/api/runs/{ids['BIGRUNNING']}/nodes?limit=500")
        page("GET /api/runs/BIG5K/node?key=... (node panel)", f"/api/runs/{ids['BIG5K']}/node?key={big5k_key}")
    finally:
        dashboard.terminate()
        dashboard.wait(timeout=10)
    json.dump(rows, open(os.path.join(HERE, f"timing-{phase}.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
