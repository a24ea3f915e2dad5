#!/usr/bin/env python3
"""Names the tests a Swift Testing event stream (--event-stream-output-path, version 0) shows started and
never ended: after a test phase ran out of its time, these are where it hung. Usage: unfinished-tests.py EVENTS.jsonl"""
import json
import sys

started = {}
last = 0.0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        record = json.loads(line)
    except ValueError:
        continue  # the last line, cut off when the process was killed
    payload = record.get("payload", {})
    test = payload.get("testID")
    if record.get("kind") != "event" or test is None:
        continue
    last = max(last, payload.get("instant", {}).get("since1970", 0))
    if payload.get("kind") == "testStarted":
        started[test] = payload.get("instant", {}).get("since1970", 0)
    elif payload.get("kind") == "testEnded":
        started.pop(test, None)
# Suites still open only because a test in them is: name the innermost, the longest running first.
leaves = [t for t in started if not any(o != t and o.startswith(t + "/") for o in started)]
for test in sorted(leaves, key=started.get):
    print(f"test:   never ended: {test} (running for {last - started[test]:.0f} s at the last event)", file=sys.stderr)
if not leaves:
    print("test:   every test that started ended (the hang is outside a test)", file=sys.stderr)
