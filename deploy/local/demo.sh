#!/usr/bin/env bash
# The demo, end to end on a fresh machine: services up, build, migrate, a
# coordinator and two worker processes, an example graph submitted with --wait,
# its history shown, then everything Baton started is stopped again.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
EXAMPLE="${1:-examples/word-count.json}"

"$ROOT/deploy/local/services.sh" up
echo "demo: building (first build takes a few minutes)" >&2
swift build -c release --product baton 2>&1 | tail -n 3 >&2
BATON="$(swift build -c release --show-bin-path)/baton"
export BATON_DATABASE_URL="${BATON_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/baton}"
export BATON_AMQP_URL="${BATON_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/%2f}"

LOGS="$ROOT/.data/demo"
mkdir -p "$LOGS"
"$BATON" migrate
"$BATON" coordinator > "$LOGS/coordinator.log" 2>&1 &
COORDINATOR=$!
"$BATON" worker --demo --processes 2 --concurrency 4 > "$LOGS/workers.log" 2>&1 &
WORKERS=$!
cleanup() {
    kill -TERM "$COORDINATOR" "$WORKERS" 2>/dev/null || true
    wait "$COORDINATOR" "$WORKERS" 2>/dev/null || true
}
trap cleanup EXIT

# Submit only once the workers have announced the example's procedures: otherwise submit warns,
# rightly, that no live worker serves them yet. If they do not in time (an example naming a
# procedure no worker has), the line saying so is shown and submit says the rest.
PROCEDURES="$( (grep -oE '"?procedure"? *: *"?[A-Za-z0-9._-]+' "$EXAMPLE" || true) | sed -E 's/.*: *"?//' | sort -u | paste -sd, -)"
echo "demo: baton workers --wait-for ${PROCEDURES:-baton.echo} --timeout 30" >&2
"$BATON" workers --wait-for "${PROCEDURES:-baton.echo}" --timeout 30 || true

echo
echo "demo: baton submit $EXAMPLE --wait" >&2
STATUS=0
"$BATON" submit "$EXAMPLE" --wait || STATUS=$?
RUN=$("$BATON" runs --limit 1 --json | sed -n 's/.*"id" *: *"\([^"]*\)".*/\1/p' | head -n 1)
echo
echo "demo: baton show $RUN" >&2
"$BATON" show "$RUN"
echo
echo "demo: baton events $RUN" >&2
"$BATON" events "$RUN"
echo
echo "demo: psql: select key, status, input, output from baton.nodes" >&2
psql "$BATON_DATABASE_URL" -c "select key, status, attempts, left(input::text, 60) as input, left(output::text, 60) as output from baton.nodes where run_id = '$RUN' order by position"
exit $STATUS
