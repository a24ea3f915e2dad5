#!/usr/bin/env bash
# The README's custom-worker walkthrough, copied literally from README.md (and docs/procedures.md,
# whose examples extend it: a second procedure, a map graph, tests): a package
# `acme-worker` next to a checkout folder named `baton` (its main.swift ends in
# `WorkerMain.main`), built; its `validate` and `run --local` check and run greet.json with no
# services; then it runs with `--processes 2` beside a coordinator and `baton worker --demo`,
# greet.json and word-count runs go beside each other, one acme-worker process is killed, it
# comes back, and more runs go through: all must succeed.
# Uses the test database and vhost (deploy/local/services.sh test-env). Run by test.sh.
#
#   walkthrough.sh                  all of it, in a temporary folder
#   walkthrough.sh --prepare DIR    only the part that needs no services and not Baton's own build
#                                   folder: the package written to DIR, built and tested (test.sh runs
#                                   it in the background, niced, beside the integration tests)
#   walkthrough.sh --prepared DIR   the rest, on a DIR that --prepare made
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
say() { printf 'walkthrough: %s\n' "$*" >&2; }
mode=all
case "${1:-}" in
    "") WORK="$(mktemp -d /tmp/baton-walkthrough.XXXXXX)" ;;
    --prepare | --prepared)
        [ $# -eq 2 ] && [ -n "$2" ] || { echo "walkthrough: $1 needs a folder" >&2; exit 2; }
        mode="${1#--}"
        WORK="$2"
        ;;
    *) echo "walkthrough: unknown argument '$1' (usage: walkthrough.sh [--prepare DIR | --prepared DIR])" >&2; exit 2 ;;
esac

prepare() {
# A checkout in a folder named baton, as the README asks (the working tree, without builds).
mkdir -p "$WORK/baton"
tar -C "$ROOT" --exclude=./.build --exclude='./.build-*' --exclude='./.build_*' --exclude=./.data --exclude=./.git -cf - . \
    | tar -C "$WORK/baton" -xf -
# Every block the README marks with <!-- walkthrough: PATH --> is written to PATH, as it stands.
# Then docs/procedures.md's, whose blocks go on from the README's (a block of the same path replaces it).
python3 - "$WORK" "$ROOT/README.md" "$ROOT/docs/procedures.md" <<'PY'
import os, re, sys
for source in sys.argv[2:]:
    text = open(source, encoding="utf-8").read()
    blocks = re.findall(r"<!-- walkthrough: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S)
    if len(blocks) < 3:
        sys.exit(f"walkthrough: expected at least 3 marked blocks in {source}, found {len(blocks)}")
    for path, body in blocks:
        target = os.path.join(sys.argv[1], path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "w", encoding="utf-8").write(body)
        print(f"walkthrough: wrote {path} from {os.path.basename(source)}", file=sys.stderr)
PY

say "building acme-worker for production (swift build -c release; a package of its own, lean: its first build takes about a minute)"
started=$SECONDS
(cd "$WORK/acme-worker" && swift build -c release 2>&1 | tee "$WORK/acme-build.log" | tail -n 3)
say "acme-worker's first release build took $((SECONDS - started)) s (the target: at most 90 s on an idle 2-core machine)"
# A plain worker (BatonWorker, no BatonWorkerExtras) builds lean: none of the HTTP server, SwiftNIO, TLS, OTLP,
# protobuf, HTTP client, YAML or service-lifecycle (and async-algorithms) modules, nor the test kit and the demo procedures.
heavy="$(ls "$WORK/acme-worker/.build/release/Modules" | sed 's/\..*//' | sort -u \
    | grep -xE 'Hummingbird.*|NIO.*|_NIO.*|OTel|SwiftProtobuf|AsyncHTTPClient|Yams|Prometheus|ServiceLifecycle|AsyncAlgorithms|BatonTesting|BatonDemo|BatonYAML|BatonHTTP|BatonWorkerExtras' \
    | tr '\n' ' ' || true)"
if [ -n "$heavy" ]; then say "acme-worker's release build compiled modules a plain worker must not need: $heavy"; exit 1; fi
say "acme-worker built lean: $(ls "$WORK/acme-worker/.build/release/Modules" | sed 's/\..*//' | sort -u | grep -c .) modules, none of Hummingbird, NIO, OTel, SwiftProtobuf, AsyncHTTPClient, Yams, ServiceLifecycle"
# A user's release build of Baton's sources, and of the README's code, has no warnings (test.sh checks the debug build;
# `#if DEBUG` code differs between the two).
if grep -E "^$WORK/(baton|acme-worker)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$WORK/acme-build.log" | sort -u | grep .; then
    say "acme-worker's release build warns (above): fix the code, in Baton or in the README"
    exit 1
fi
# Its tests: the README's and docs/procedures.md's, on the test kit, no services; in release, on the build above
# (they need no @testable import).
say "running acme-worker's tests (swift test -c release --disable-testable-imports: on the same build)"
# The command is the one docs/procedures.md gives, so a user's tests share their release build too.
grep -qx 'swift test -c release --disable-testable-imports .*' "$ROOT/docs/procedures.md" \
    || { say "docs/procedures.md no longer gives the test command this runs (swift test -c release --disable-testable-imports)"; exit 1; }
(cd "$WORK/acme-worker" && swift test -c release --disable-testable-imports 2>&1 | tee "$WORK/acme-test.log" | tail -n 5) || { say "acme-worker's tests failed"; exit 1; }
if grep -E "^$WORK/(baton|acme-worker)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$WORK/acme-test.log" | sort -u | grep .; then
    say "acme-worker's tests build with warnings (above): fix the code, in Baton or in the README"
    exit 1
fi
touch "$WORK/.prepared"
}

case "$mode" in
    prepare) mkdir -p "$WORK"; prepare; exit 0 ;;
    prepared) [ -f "$WORK/.prepared" ] || { say "$WORK was not prepared (walkthrough.sh --prepare $WORK)"; exit 1; } ;;
    all) prepare ;;
esac
ACME="$WORK/acme-worker/.build/release/acme-worker"

"$ROOT/deploy/local/services.sh" up
"$ROOT/deploy/local/services.sh" test-env
swift build --product baton
BATON="$(swift build --show-bin-path)/baton"
export BATON_DATABASE_URL="${BATON_TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/baton_test}"
export BATON_AMQP_URL="${BATON_TEST_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/baton-test}"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# docs/procedures.md's graph, checked and run in process by the worker binary.
"$ACME" validate "$WORK/stores.json" >&2
"$ACME" run --local "$WORK/stores.json" | grep -q 'Hello, Mandal!' || { say "acme-worker run --local stores.json did not greet Mandal"; exit 1; }

# The worker binary checks and runs a graph of its own procedures with no services.
"$ACME" validate "$WORK/greet.json" >&2
"$ACME" run --local "$WORK/greet.json" | grep -q 'Hello, Ada!' || { say "acme-worker run --local did not greet"; exit 1; }
# `baton validate` does not know acme.greet, and says where to check it.
if "$BATON" validate "$WORK/greet.json" 2> "$WORK/validate.err"; then say "baton validate accepted an unknown procedure"; exit 1; fi
grep -q "YOUR-WORKER validate FILE" "$WORK/validate.err" || { say "baton validate did not point at the worker's own validate"; cat "$WORK/validate.err" >&2; exit 1; }

"$BATON" migrate >/dev/null
"$BATON" coordinator > "$WORK/coordinator.log" 2>&1 & PIDS+=($!)
"$BATON" worker --demo --concurrency 4 > "$WORK/baton-worker.log" 2>&1 & PIDS+=($!)
"$ACME" --processes 2 > "$WORK/acme-worker.log" 2>&1 & PIDS+=($!)
ACME_PID=$!

# Wait (with a deadline) until both workers announce their procedures.
for _ in $(seq 1 120); do
    served="$("$BATON" procedures | awk 'NR > 1 { print $1 }')"  # the first column: the names
    if grep -qx acme.greet <<<"$served" && grep -qx demo.count-words <<<"$served"; then break; fi
    sleep 0.5
done
grep -qx acme.greet <<<"$served" || { say "acme-worker never announced acme.greet"; tail -n 20 "$WORK/acme-worker.log" >&2; exit 1; }

# The supervised processes of `acme-worker --processes 2`, with a deadline.
children() { pgrep -P "$ACME_PID" | sort; }
for _ in $(seq 1 120); do [ "$(children | wc -l)" -eq 2 ] && break; sleep 0.5; done
[ "$(children | wc -l)" -eq 2 ] || { say "acme-worker --processes 2 did not start 2 processes"; exit 1; }

failures=0
runs() {
for i in "$@"; do
    out="$("$BATON" submit "$WORK/greet.json" --wait --json --timeout 60)" || { failures=$((failures + 1)); say "greet run $i: $out"; continue; }
    id="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["run_id"])' <<<"$out")"
    "$BATON" show "$id" --json | grep -q '"Hello, Ada!"' || { failures=$((failures + 1)); say "greet run $i lacks the greeting"; }
    "$BATON" submit "$ROOT/examples/word-count.json" --wait --timeout 60 >/dev/null || { failures=$((failures + 1)); say "word-count run $i failed"; }
done
}
runs 1 2 3 4 5
# Kill one acme-worker process: the supervisor starts it again, and runs go on.
victim="$(children | head -n 1)"
kill -9 "$victim"
say "killed acme-worker process $victim"
for _ in $(seq 1 120); do
    now="$(children)"
    [ "$(wc -l <<<"$now")" -eq 2 ] && ! grep -qx "$victim" <<<"$now" && break
    sleep 0.5
done
now="$(children)"
{ [ "$(wc -l <<<"$now")" -eq 2 ] && ! grep -qx "$victim" <<<"$now"; } || { say "the killed acme-worker process did not come back"; tail -n 20 "$WORK/acme-worker.log" >&2; exit 1; }
grep -q "worker process .* ended with signal 9; restarting" "$WORK/acme-worker.log" || { say "the supervisor did not log the restart"; exit 1; }
runs 6 7 8
if [ "$failures" -ne 0 ]; then
    say "$failures of 16 runs failed"; tail -n 20 "$WORK/acme-worker.log" "$WORK/baton-worker.log" >&2
    exit 1
fi
say "all 16 runs succeeded: 8 greet and 8 word-count beside each other, with one acme-worker process killed and restarted between them"

# docs/procedures.md's Swift app: acme-submit starts a greet run through `baton server` with a token
# and no database URL, waits for it, follows its events and prints the greeting.
PORT=$((20000 + RANDOM % 20000))
"$BATON" server --listen "127.0.0.1:$PORT" > "$WORK/server.log" 2>&1 & PIDS+=($!)
TOKEN="$("$BATON" token create "walkthrough-$RANDOM$RANDOM" --scope submit,read --expires 1d)"
for _ in $(seq 1 60); do curl -fs "http://127.0.0.1:$PORT/api/v1/openapi.json" >/dev/null && break; sleep 0.5; done
out="$(env -u BATON_DATABASE_URL BATON_SERVER="http://127.0.0.1:$PORT" BATON_TOKEN="$TOKEN" "$WORK/acme-worker/.build/release/acme-submit" Grace)" \
    || { say "acme-submit failed: $out"; tail -n 20 "$WORK/server.log" >&2; exit 1; }
grep -q '^succeeded Hello, Grace!$' <<<"$out" || { say "acme-submit did not print the greeting: $out"; exit 1; }
grep -q '^run_succeeded' <<<"$out" || { say "acme-submit did not follow the run's events to its end: $out"; exit 1; }
say "acme-submit (BatonClient) started a run through baton server with a token, and printed: $(tail -n 1 <<<"$out")"
rm -rf "$WORK"
