#!/usr/bin/env bash
# The whole test suite on a fresh machine: the format check, the dashboard's assets checked, services up (installed if
# needed), Chromium for the dashboard's browser tests, every unit and integration test,
# the cluster simulator's short form, the README's custom-worker walkthrough (its release build in the
# background beside the tests), then the chaos
# suite's short form (on one broker, then on a three-node RabbitMQ cluster).
# Integration tests get a database and a RabbitMQ vhost of their own (and the
# chaos suite another pair), so a demo running beside them is not disturbed.
# Phases that share nothing overlap (2 cores): the integration suites run in two lanes (a database
# and vhost each: baton_test/baton-test and BATON_TEST2_DATABASE/BATON_TEST2_VHOST, default
# baton_test2/baton-test2) beside the unit tests' `swift test`; then the API's clients beside the simulator.
# Every phase has a time limit (a hang fails its phase naming the tests that never ended, not CI's 90 minutes).
# Extra arguments go to one `swift test` that runs everything, lanes off; BATON_SKIP_CHAOS=1 skips the chaos suite.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# Where the time goes: each phase's end, in seconds since the start (CI's log shows them).
phase() { echo "test: [$((SECONDS / 60))m$((SECONDS % 60))s] $*" >&2; }
# Formatting is part of the suite: .swift-format says how; `swift format format -i -r Sources Tests` fixes it.
swift format lint --strict --recursive Sources Tests
# The dashboard's script and stylesheets (Sources/BatonDashboard/Assets) compile and parse (node, tinycss2; installed if needed).
"$ROOT/deploy/local/check-assets.sh"
"$ROOT/deploy/local/services.sh" up
# The dashboard's browser tests load its pages in Debian's headless Chromium; they fail, never skip, without it.
if ! command -v chromium >/dev/null; then
    echo "test: installing chromium (Debian's package) for the dashboard's browser tests" >&2
    if [ "$(id -u)" = 0 ]; then AS_ROOT=(); else AS_ROOT=(sudo); fi
    "${AS_ROOT[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${AS_ROOT[@]}" apt-get install -y -qq chromium >/dev/null
fi
# Coordinators with their wall clocks hours off (CoordinatorStandbyTests) run under Debian's faketime.
if ! command -v faketime >/dev/null; then
    echo "test: installing faketime (Debian's package) for the clock-skew test" >&2
    if [ "$(id -u)" = 0 ]; then AS_ROOT=(); else AS_ROOT=(sudo); fi
    "${AS_ROOT[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${AS_ROOT[@]}" apt-get install -y -qq faketime >/dev/null
fi
# The chaos suite cuts single processes off from PostgreSQL or RabbitMQ with iptables rules of its own.
if [ "${BATON_SKIP_CHAOS:-0}" != 1 ] && ! command -v iptables >/dev/null && [ ! -x /usr/sbin/iptables ]; then
    echo "test: installing iptables (Debian's package) for the chaos suite's network cuts" >&2
    if [ "$(id -u)" = 0 ]; then AS_ROOT=(); else AS_ROOT=(sudo); fi
    "${AS_ROOT[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${AS_ROOT[@]}" apt-get install -y -qq iptables >/dev/null
fi
# The tracing test's OTLP receiver (deploy/local/otlp-receiver.py) decodes spans with PyPI's opentelemetry-proto.
if ! python3 -c 'import opentelemetry.proto' 2>/dev/null; then
    echo "test: installing opentelemetry-proto (PyPI) for the tracing test's OTLP receiver" >&2
    python3 -m pip install -q opentelemetry-proto
fi
# Fresh each run, as on CI's new machine: no test may lean on what an earlier run left behind.
"$ROOT/deploy/local/services.sh" test-env --fresh
"$ROOT/deploy/local/services.sh" chaos-env --fresh
# The API's real clients (PyPI's httpx and Schemathesis, pinned in deploy/local/requirements-api.txt) go
# into a venv in the background while Swift builds; api-clients.sh below runs them against a real server.
"$ROOT/deploy/local/api-clients.sh" --install > "$ROOT/.data/api-clients-install.log" 2>&1 &
API_INSTALL_PID=$!
# Baton's own sources and tests build with no warnings (a fresh clone builds everything, so every warning shows).
swift build --build-tests 2>&1 | tee "$ROOT/.data/build.log"
if grep -E "^$ROOT/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$ROOT/.data/build.log" | sort -u | grep .; then
    echo "test: Baton's sources build with warnings (above); fix them" >&2
    exit 1
fi
phase "built (debug, with the tests)"
# Phases that share nothing run side by side, each in a process group of its own with its output in
# .data/NAME.log, printed whole (under a header) when it is waited for; a failure names its phase.
BIN="$(swift build --show-bin-path)"  # asked once: `swift test` holds SwiftPM's lock on .build while it runs
JOBS=()
trap 'for pid in "${JOBS[@]}"; do kill -- -"$pid" 2>/dev/null || true; done' EXIT  # the processes they started too
# Every phase is bounded: a test that hangs (a livelock on 2 cores once held CI until its 90 minutes ran
# out, naming nothing) ends its phase with exit 124 after LIMIT seconds, and the phase's tests that
# started and never ended are named.
# A test phase writes Swift Testing's event stream to .data/NAME.events.jsonl for this.
EVENTS=(--event-stream-version 0 --event-stream-output-path)  # followed by "$ROOT/.data/NAME.events.jsonl"
# start_job NAME LIMIT COMMAND...: COMMAND in the background for at most LIMIT seconds; its end time goes to .data/NAME.end.
start_job() {
    local name="$1" limit="$2"; shift 2
    rm -f "$ROOT/.data/$name.end" "$ROOT/.data/$name.events.jsonl"
    setsid bash -c '"${@:3}"; rc=$?; s=$((SECONDS + $2)); echo "$((s / 60))m$((s % 60))s" > "$1"; exit $rc' \
        _ "$ROOT/.data/$name.end" "$SECONDS" timeout --kill-after=30 "$limit" "$@" > "$ROOT/.data/$name.log" 2>&1 &
    JOBS+=($!)
    eval "JOB_${name//[^A-Za-z0-9_]/_}=\$!"
}
# finish_job NAME WHAT: waits for NAME, shows its log, and stops the suite naming WHAT if it failed.
finish_job() {
    local name="$1" what="$2" pid rc=0
    eval "pid=\$JOB_${name//[^A-Za-z0-9_]/_}"
    wait "$pid" || rc=$?
    echo "test: ---- $what (.data/$name.log) ----" >&2
    cat "$ROOT/.data/$name.log"
    if [ "$rc" != 0 ]; then
        [ "$rc" != 124 ] || [ ! -f "$ROOT/.data/$name.events.jsonl" ] || {
            echo "test: $what ran out of its time (exit 124)" >&2
            "$ROOT/deploy/local/unfinished-tests.py" "$ROOT/.data/$name.events.jsonl"
        }
        echo "test: $what failed (exit $rc); the issues it recorded:" >&2
        grep -a "✘\|broke a guarantee\|FAILED\|failed" "$ROOT/.data/$name.log" | grep -av "known issue" \
            | grep -av "^✘ Suite\|^✘ Test run" | head -n 40 >&2 || true
        exit 1
    fi
    phase "$what done (it ended at [$(cat "$ROOT/.data/$name.end" 2>/dev/null)])"
}
# The README's walkthrough builds a worker package of its own in release (minutes of compiling, no
# services): that part goes in the background beside the integration tests, which mostly wait, at the idle
# scheduling class (chrt --idle: SwiftPM resets the nice value of the compilers it starts, not the class).
WALK="$(mktemp -d /tmp/baton-walkthrough.XXXXXX)"
start_job walkthrough-prepare 1800 chrt --idle 0 nice -n 15 "$ROOT/deploy/local/walkthrough.sh" --prepare "$WALK"
WALK_PID=$JOB_walkthrough_prepare  # waited for below, its log shown only on failure
TEST_DATABASE_URL="${BATON_TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/baton_test}"
TEST_AMQP_URL="${BATON_TEST_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/baton-test}"
if [ $# -eq 0 ]; then
    # The integration suites (serialized: each starts its own coordinator on a shared database) in two
    # lanes beside the unit tests, each lane with a database and a vhost of its own: lane 2 takes suites
    # that use nothing but their lane's pair (no broker users or database roles, no fixed names, no
    # service restarts, no clocks, no alarms); lane 1 the rest, and any suite added later. They mostly
    # wait on their processes, so on 2 cores the two lanes take about half the time one did.
    LANE2='Integration/(EndToEndTests|ControlFlowTests|AdmissionTests|CLIRemoteTests|RateLimitTests|BadInputTests|WebhookDeliveryTests|ScheduleTests|APIConformanceTests|TimelineTests|APIListTests|BigOutputTests|ShellTests|CompositionTests|RetentionTests|APITriggerTests|WorkerProcessTests|CLITests|DashboardSignalTests|TimeoutSlotTests|APIScheduleTests|ForgedReportTests|APIOperateTests|APITests|SignalIntegrationTests|RunInputCLITests|TypeCheckTests|BuilderSubmitTests|ClientTests|TokenTests|GraphCommandTests|WorkersWaitTests|WorkerMainTests|APIMethodTests|BatchApplyTests|GraphFileCLITests|StoredPlanStoreTests|StoreChecksTests|DashboardTests|MetricsTests|PublishConnectionTests)/'
    LANE2_DATABASE="${BATON_TEST2_DATABASE:-baton_test2}"
    LANE2_VHOST="${BATON_TEST2_VHOST:-baton-test2}"
    runuser -u postgres -- psql -h 127.0.0.1 -U postgres -qc "drop database if exists $LANE2_DATABASE with (force)" >/dev/null
    runuser -u postgres -- psql -h 127.0.0.1 -U postgres -qc "create database $LANE2_DATABASE" >/dev/null
    "$ROOT/deploy/local/services.sh" vhost "$LANE2_VHOST" --fresh
    # The test bundle itself (Swift Testing's entry point), as `swift test` runs it, for it holds SwiftPM's lock.
    TESTS=(env TERM=dumb "$BIN/BatonPackageTests.xctest" --testing-library swift-testing)
    start_job integration_lane1 1800 env BATON_DATABASE_URL="$TEST_DATABASE_URL" BATON_AMQP_URL="$TEST_AMQP_URL" \
        "${TESTS[@]}" "${EVENTS[@]}" "$ROOT/.data/integration_lane1.events.jsonl" --filter 'BatonIntegrationTests\.Integration/' --skip "$LANE2"
    start_job integration_lane2 1800 env \
        BATON_DATABASE_URL="postgresql://postgres@127.0.0.1:5432/$LANE2_DATABASE" \
        BATON_AMQP_URL="amqp://guest:guest@127.0.0.1:5672/$LANE2_VHOST" \
        "${TESTS[@]}" "${EVENTS[@]}" "$ROOT/.data/integration_lane2.events.jsonl" --filter "$LANE2"
    UNIT=("${TESTS[@]}" "${EVENTS[@]}" "$ROOT/.data/test.events.jsonl" --skip 'BatonIntegrationTests\.Integration/')
else
    UNIT=(swift test --skip-build "$@")  # extra arguments: one `swift test` with them, integration suites included, as written
fi
rm -f "$ROOT/.data/test.events.jsonl"
BATON_DATABASE_URL="$TEST_DATABASE_URL" BATON_AMQP_URL="$TEST_AMQP_URL" \
    timeout --kill-after=30 "${BATON_UNIT_TEST_LIMIT:-1200}" "${UNIT[@]}" 2>&1 | tee "$ROOT/.data/test.log" || {
    # The log is long and CI shows its end: name the tests that failed there (known issues left out).
    [ "${PIPESTATUS[0]}" != 124 ] || [ ! -f "$ROOT/.data/test.events.jsonl" ] || {
        echo "test: the unit tests ran out of their time (exit 124)" >&2
        "$ROOT/deploy/local/unfinished-tests.py" "$ROOT/.data/test.events.jsonl"
    }
    echo "test: swift test failed; the issues it recorded:" >&2
    grep -a "✘" "$ROOT/.data/test.log" | grep -av "known issue" | grep -av "^✘ Suite\|^✘ Test run" | head -n 40 >&2 || true
    exit 1
}
# The few XCTest cases (the test kit's XCTest form): `swift test` runs both libraries, the bundle one at a time.
[ $# -ne 0 ] || timeout --kill-after=30 300 env TERM=dumb "$BIN/BatonPackageTests.xctest" --testing-library xctest 2>&1 \
    | tee -a "$ROOT/.data/test.log" | tail -n 3 || { echo "test: the XCTest cases failed (.data/test.log)" >&2; exit 1; }
phase "swift test done (the unit tests$([ $# -eq 0 ] || echo ", the integration suites"))"
# The API's real clients against a real `baton server` (with a coordinator and a demo worker, on a database
# and vhost of their own): the Python client example end to end, then Schemathesis with its default checks
# over /api/v1/openapi.json (bounded). Beside the integration lanes and the simulator, after the unit tests'
# CPU is free.
if ! wait "$API_INSTALL_PID"; then
    cat "$ROOT/.data/api-clients-install.log" >&2
    echo "test: the API clients' venv (httpx, schemathesis) did not install (above)" >&2
    exit 1
fi
start_job api_clients 900 "$ROOT/deploy/local/api-clients.sh"
# The cluster simulator's short form: whole clusters under seeded faults, the guarantees checked
# after every step (a failing seed prints itself and its last steps; replay it with --seed). The
# default --queue-type mixed gives about half the seeds quorum queues (their own invariants too).
# And with a schedule firing every (virtual) second across the same faults: each due time fired once, none missed.
# And with webhooks delivered to a simulated receiver: one delivery per matching event, claims leased
# to the partition's holder, attempts 1, 2, … with the policy's back-off, every delivery ended.
# Two processes, one per core, the same seeds as one would run: half the plain seeds and the schedules'
# in one, the other half and the webhooks' in the other. They share the cores with the integration lanes and
# the API's clients, so their limits are generous (300 s for 75 plain seeds, about 35 s of CPU alone; 150 s
# and 120 s for the schedules' and webhooks', about 30 s and 20 s): every seed runs on a busy machine too (at
# 100 s a loaded run got through only 43 of 75), off the critical path; a limit that cuts seeds short says so.
sim() {
    local want="$1" out ran; shift
    out="$("$BIN/baton-sim" --seeds "$want" "$@")" || { echo "$out"; return 1; }
    echo "$out"
    ran="$(sed -n 's/^seeds \([0-9]*\),.*/\1/p' <<<"$out" | tail -n 1)"
    [ "$ran" = "$want" ] || echo "test: warning: baton-sim $* ran $ran of $want seeds within its time limit (a busy machine?)"
}
export -f sim; export BIN
start_job baton_sim_1 900 bash -c 'sim 75 --first-seed 1 --steps 2000 --time-limit 300 &&
    sim 30 --schedules --first-seed 1001 --steps 2000 --time-limit 150'
start_job baton_sim_2 900 bash -c 'sim 75 --first-seed 76 --steps 2000 --time-limit 300 &&
    sim 20 --webhooks --first-seed 2001 --steps 2000 --time-limit 120'
if [ $# -eq 0 ]; then
    finish_job integration_lane1 "the integration suites, lane 1"
    finish_job integration_lane2 "the integration suites, lane 2"
fi
finish_job baton_sim_1 "baton-sim (seeds 1-75, then --schedules)"
finish_job baton_sim_2 "baton-sim (seeds 76-150, then --webhooks)"
finish_job api_clients "the API's clients"
# The README's walkthrough, literally: a worker package of its own beside `baton worker --demo`.
if ! wait "$WALK_PID"; then
    cat "$ROOT/.data/walkthrough-prepare.log" >&2
    echo "test: the walkthrough's worker package did not build or pass its tests (above)" >&2
    exit 1
fi
trap - EXIT
tail -n 4 "$ROOT/.data/walkthrough-prepare.log" >&2
"$ROOT/deploy/local/walkthrough.sh" --prepared "$WALK"
phase "walkthrough done"
if [ "${BATON_SKIP_CHAOS:-0}" != 1 ]; then
    # Short form: 1,000 nodes under worker SIGKILLs, a coordinator kill, RabbitMQ and PostgreSQL restarts, a task
    # queue lost, big outputs, forged reports, and processes cut off from PostgreSQL or RabbitMQ alone (iptables, as root).
    "$(swift build --show-bin-path)/BatonChaos" --time-limit 400
    phase "chaos (one broker) done"
    # The same on a three-node RabbitMQ cluster with quorum queues: the node leading the task queue is killed with -9,
    # and (the cluster being the suite's own) a memory and a disk alarm block publishers for 5 s each.
    "$(swift build --show-bin-path)/BatonChaos" --rabbit-cluster --time-limit 400
    phase "chaos (RabbitMQ cluster) done"
fi
