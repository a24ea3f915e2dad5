"""Submits a graph that waits for an approval, follows its events, approves it when it waits,
and prints the result. Needs BATON_SERVER (default http://127.0.0.1:8080) and BATON_TOKEN (a token
with the submit and operate scopes, or admin) and a worker serving the demo procedures
(`baton worker --demo`). Exits non-zero, with one line, unless the run succeeds as expected.
"""

import json
import os
import sys

import httpx

from baton_client import BatonClient, BatonError

GRAPH = {
    "name": "python-approval",
    "nodes": {
        "price": {"procedure": "demo.multiply", "input": {"values": [6, 7]}},
        "approve": {"signal": "approval", "after": ["price"], "timeout": "2m"},
        "publish": {
            "procedure": "baton.echo",
            "input": {
                "total": {"$from": "price"},
                "approved_by": {"$from": "approve", "select": "/by"},
            },
        },
    },
}


def main() -> int:
    server = os.environ.get("BATON_SERVER", "http://127.0.0.1:8080")
    token = os.environ.get("BATON_TOKEN")
    if not token:
        print("demo: set BATON_TOKEN (baton token create NAME --scope submit,operate)", file=sys.stderr)
        return 2
    with BatonClient(server, token) as client:
        # A refusal carries the API's code and message.
        try:
            client.submit({"nodes": {"x": {"procedure": "baton.echo", "after": ["nowhere"]}}})
            print("demo: an invalid graph was accepted", file=sys.stderr)
            return 1
        except BatonError as error:
            print(f"refused as expected: {error.code}: {error.message}")
            if error.status != 422 or error.code != "invalid":
                print(f"demo: expected 422 invalid, got {error.status} {error.code}", file=sys.stderr)
                return 1

        run = client.submit(GRAPH, idempotency_key=f"python-demo-{os.getpid()}")
        run_id = run["id"]
        print(f"submitted run {run_id} ({run['status']})")

        signalled = False
        for event in client.events(run_id):
            print(f"  event {event['id']}: {event['kind']} {event['node'] or ''}".rstrip())
            if event["kind"] == "awaiting_signal" and event["node"] == "approve" and not signalled:
                answer = client.signal(run_id, "approve", {"by": "ada"}, wait="5s")
                signalled = True
                print(f"  signalled approve (request {answer['request_id']}, applied {answer['applied']})")

        result = client.wait(run_id, timeout=60)
        status = result["run"]["status"]
        outputs = result["outputs"]
        print(f"run {run_id} {status}: {json.dumps(outputs, sort_keys=True)}")
        expected = {"total": 42, "approved_by": "ada"}
        if not signalled or status != "succeeded" or outputs.get("publish") != expected:
            print(f"demo: expected run to succeed with publish = {expected}, got {status} {outputs}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BatonError as error:
        print(f"demo: {error}", file=sys.stderr)
        sys.exit(1)
    except httpx.HTTPError as error:
        print(f"demo: cannot talk to {os.environ.get('BATON_SERVER', 'http://127.0.0.1:8080')}: {error}", file=sys.stderr)
        sys.exit(1)
