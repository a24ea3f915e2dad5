#!/usr/bin/env bash
# The API's real clients against a real `baton server` (with a coordinator and `baton worker --demo`,
# on a database and vhost of their own, made fresh): the Python client example
# (examples/clients/python/demo.py) end to end, then Schemathesis with its default checks over the
# served /api/v1/openapi.json (deploy/local/schemathesis.toml: bounded examples, a fixed seed, and the
# operations not answered yet left out). Exits non-zero with a line naming what failed. Run by test.sh.
#
#   api-clients.sh --install   only make the venv .data/venv-api with deploy/local/requirements-api.txt
#                              (test.sh runs this in the background while Swift builds)
#   api-clients.sh             run both (the venv must exist; `baton` is the debug build's)
#
# BATON_API_DATABASE (default baton_api) and BATON_API_VHOST (default baton-api) name the pair used;
# BATON_SCHEMATHESIS_MAX_TIME (default 100) bounds Schemathesis in seconds; BATON_API_VENV (default
# .data/venv-api) and BATON_API_LOGS (default .data/api-clients) move the venv and the logs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
say() { printf 'api-clients: %s\n' "$*" >&2; }
VENV="${BATON_API_VENV:-$ROOT/.data/venv-api}"

if [ "${1:-}" = --install ]; then
    mkdir -p "$(dirname "$VENV")"
    # Debian's python3 makes venvs only with its python3-venv package.
    if ! python3 -c 'import ensurepip' 2>/dev/null; then
        say "installing python3-venv (Debian's package) for the API clients' venv"
        if [ "$(id -u)" = 0 ]; then AS_ROOT=(); else AS_ROOT=(sudo); fi
        "${AS_ROOT[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${AS_ROOT[@]}" apt-get install -y -qq python3-venv >/dev/null
    fi
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/deploy/local/requirements-api.txt"
    exit 0
fi
[ $# -eq 0 ] || { say "unknown argument '$1' (usage: api-clients.sh [--install])"; exit 2; }
[ -x "$VENV/bin/schemathesis" ] || { say "no venv at $VENV: run deploy/local/api-clients.sh --install first"; exit 1; }

DATABASE="${BATON_API_DATABASE:-baton_api}"
VHOST="${BATON_API_VHOST:-baton-api}"
# Fresh each time, as on CI's new machine.
runuser -u postgres -- psql -h 127.0.0.1 -U postgres -qc "drop database if exists $DATABASE with (force)" >/dev/null
runuser -u postgres -- psql -h 127.0.0.1 -U postgres -qc "create database $DATABASE" >/dev/null
"$ROOT/deploy/local/services.sh" vhost "$VHOST" --fresh
export BATON_DATABASE_URL="postgresql://postgres@127.0.0.1:5432/$DATABASE"
export BATON_AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$VHOST"
BATON="$(swift build --show-bin-path)/baton"
LOGS="${BATON_API_LOGS:-$ROOT/.data/api-clients}"
rm -rf "$LOGS" && mkdir -p "$LOGS"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
"$BATON" migrate > "$LOGS/migrate.log" 2>&1 || { cat "$LOGS/migrate.log" >&2; say "baton migrate failed (above)"; exit 1; }
BATON_WEBHOOK_HOSTS=127.0.0.1 "$BATON" coordinator > "$LOGS/coordinator.log" 2>&1 & PIDS+=($!)
"$BATON" worker --demo --concurrency 4 > "$LOGS/worker.log" 2>&1 & PIDS+=($!)
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$BATON" server --listen "127.0.0.1:$PORT" --rate-limit off > "$LOGS/server.log" 2>&1 & PIDS+=($!)
SERVER=""
for _ in $(seq 1 300); do
    SERVER="$(sed -n 's|.* on \(http://127\.0\.0\.1:[0-9]*\) (.*|\1|p' "$LOGS/server.log" | head -n 1)"
    [ -n "$SERVER" ] && break
    kill -0 "${PIDS[2]}" 2>/dev/null || break
    sleep 0.1
done
[ -n "$SERVER" ] || { cat "$LOGS/server.log" >&2; say "baton server did not start listening (above)"; exit 1; }
# Wait (with a deadline) for the worker to be seen, so the example's graph is checked against its procedures.
for _ in $(seq 1 300); do
    "$BATON" procedures 2>/dev/null | grep -q "demo.multiply" && break
    sleep 0.1
done
TOKEN="$("$BATON" token create api-clients --scope admin 2> "$LOGS/token.log")" || { cat "$LOGS/token.log" >&2; say "baton token create failed (above)"; exit 1; }

failed=()
started=$SECONDS
if BATON_SERVER="$SERVER" BATON_TOKEN="$TOKEN" timeout 180 "$VENV/bin/python" "$ROOT/examples/clients/python/demo.py" > "$LOGS/python.log" 2>&1; then
    say "the Python client example passed in $((SECONDS - started)) s"
else
    tail -n 30 "$LOGS/python.log" >&2
    failed+=("the Python client example (examples/clients/python/demo.py; log above)")
fi

started=$SECONDS
# --max-time bounds fuzzing; the outer timeout is a backstop should a request hang.
# From the logs' folder: Schemathesis keeps its cache (.schemathesis/) in the current one.
if (cd "$LOGS" && BATON_SCHEMATHESIS_TOKEN="$TOKEN" timeout 420 "$VENV/bin/schemathesis" --config-file "$ROOT/deploy/local/schemathesis.toml" \
    run "$SERVER/api/v1/openapi.json" --max-time "${BATON_SCHEMATHESIS_MAX_TIME:-100}" \
    --report junit --report-dir "$LOGS/schemathesis") > "$LOGS/schemathesis.log" 2>&1; then
    say "Schemathesis found nothing in $((SECONDS - started)) s"
else
    tail -n 80 "$LOGS/schemathesis.log" >&2
    failed+=("Schemathesis against /api/v1 (report above; all of it in $LOGS/schemathesis.log)")
fi
for what in "${failed[@]}"; do say "FAILED: $what"; done
[ ${#failed[@]} -eq 0 ]
