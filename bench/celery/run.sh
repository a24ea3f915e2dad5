#!/usr/bin/env bash
# The Celery side of the side-by-side benchmark (issue 9): the same shapes as
# BatonBenchmark (a fan-out of N no-op tasks into a join that receives every
# output, and a chain of M no-op tasks) on Celery 5 with the project's RabbitMQ
# as broker and Redis as result backend, acks late, publisher confirms,
# persistent messages, prefetch 1, thread pool with as many slots as Baton's.
#
#   bash bench/celery/run.sh                      1 worker x 8 threads, N=10000, M=1000, 3 rounds
#   bash bench/celery/run.sh --workers 2 --slots 32
#   bash bench/celery/run.sh --shapes 1x8,2x32    several cluster shapes, one table
#   options: --workers W  --slots N (alias --concurrency)  --shapes WxN,...  --nodes N
#            --chain M  --rounds R  --only fan-out|chain  --timeout S (per scenario round)
#            --redis-fsync always|everysec|no (Redis AOF fsync policy; default always)
#            --no-confirms (publish without publisher confirms, Celery's default)
#
# Installs what is missing: redis-server (Debian), python3-venv (Debian, only if
# venv is unavailable), celery 5.x and redis (PyPI, in .data/celery-venv).
# Starts its own redis-server on 127.0.0.1 on a free port with its data in
# .data/celery-redis, and stops it and the Celery workers at the end, also on
# failure or Ctrl-C. Uses the RabbitMQ of deploy/local/services.sh (started if
# it does not answer) with a vhost of its own, baton-celery.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/celery"
DATA="${BATON_DATA_DIR:-$ROOT/.data}"
VENV="$DATA/celery-venv"
WORK="$DATA/celery-bench"
AMQP_PORT="${BATON_AMQP_PORT:-5672}"
VHOST=baton-celery

log() { printf 'celery-bench: %s\n' "$*" >&2; }
die() { printf 'celery-bench: error: %s\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

workers=1 slots=8 shapes="" nodes=10000 chain=1000 rounds=3 only="" timeout=600 fsync=always confirms=1
while [ $# -gt 0 ]; do
    case "$1" in
        --workers) workers="${2:?--workers needs a value}"; shift 2 ;;
        --slots|--concurrency) slots="${2:?$1 needs a value}"; shift 2 ;;
        --shapes) shapes="${2:?--shapes needs a value}"; shift 2 ;;
        --nodes) nodes="${2:?--nodes needs a value}"; shift 2 ;;
        --chain) chain="${2:?--chain needs a value}"; shift 2 ;;
        --rounds) rounds="${2:?--rounds needs a value}"; shift 2 ;;
        --only) only="${2:?--only needs a value}"; shift 2 ;;
        --timeout) timeout="${2:?--timeout needs a value}"; shift 2 ;;
        --no-confirms) confirms=0; shift ;;
        --redis-fsync) fsync="${2:?--redis-fsync needs a value}"; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
for v in workers slots nodes chain rounds timeout; do
    [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v takes a positive whole number, got '${!v}'"
done
case "$fsync" in always|everysec|no) ;; *) die "--redis-fsync takes always, everysec or no, got '$fsync'" ;; esac
case "$only" in ""|fan-out|chain) ;; *) die "--only takes fan-out or chain, got '$only'" ;; esac
[ -n "$shapes" ] || shapes="${workers}x${slots}"

# --- installs -------------------------------------------------------------
apt_install() {
    log "installing $* (Debian)"
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null 2>&1 || {
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
    }
}
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || apt_install redis-server
command -v python3 >/dev/null || apt_install python3
mkdir -p "$DATA" "$WORK"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import celery, redis' 2>/dev/null; then
    rm -rf "$VENV"
    python3 -m venv "$VENV" 2>/dev/null || { apt_install python3-venv; rm -rf "$VENV"; python3 -m venv "$VENV"; }
    log "installing celery 5.x and redis from PyPI into $VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check 'celery>=5,<6' 'redis>=4.5' \
        || die "pip could not install celery and redis"
fi

# --- RabbitMQ: the project's broker, a vhost of our own ---------------------
RMQ_BASE="$DATA/rabbitmq" RMQ_NODE=baton@localhost
# shellcheck disable=SC1090
source <(sed -n '/^rmq_env()/,/^}/p' "$ROOT/deploy/local/services.sh")
rmq_env
if ! rabbitmqctl -n baton@localhost -q status >/dev/null 2>&1; then
    # Not running: bring up the project's services (idempotent). When it already
    # answers (e.g. started from another checkout) it is used as it is.
    bash "$ROOT/deploy/local/services.sh" up
fi
rabbitmqctl -n baton@localhost -q add_vhost "$VHOST" >/dev/null 2>&1 || true
rabbitmqctl -n baton@localhost -q set_permissions -p "$VHOST" guest '.*' '.*' '.*' >/dev/null \
    || die "could not set permissions on vhost $VHOST"

# --- Redis: our own, on a free port, stopped at the end --------------------
redis_pid="" driver_pid=""
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    # The driver runs in a process group of its own (setsid): stop all of it.
    if [ -n "$driver_pid" ] && kill -0 -- "-$driver_pid" 2>/dev/null; then
        kill -TERM -- "-$driver_pid" 2>/dev/null || true
        for _ in $(seq 1 150); do kill -0 -- "-$driver_pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL -- "-$driver_pid" 2>/dev/null || true
    fi
    # Worker process groups the driver started (in case it could not stop them).
    if [ -f "$WORK/workers.pids" ]; then
        while read -r pid; do
            [ -n "$pid" ] && kill -KILL -- "-$pid" 2>/dev/null || true
        done < "$WORK/workers.pids"
        rm -f "$WORK/workers.pids"
    fi
    if [ -n "$redis_pid" ]; then
        kill -TERM "$redis_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$redis_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$redis_pid" 2>/dev/null || true
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

REDIS_DIR="$DATA/celery-redis"
rm -rf "$REDIS_DIR"; mkdir -p "$REDIS_DIR"
redis_port=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The results are made durable as Baton's are in PostgreSQL: append-only file,
# fsync policy --redis-fsync (always = fsync before replying, like fsync=on).
redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$REDIS_DIR" --save '' \
    --appendonly yes --appendfsync "$fsync" --protected-mode yes --daemonize no \
    --logfile "$REDIS_DIR/redis.log" &
redis_pid=$!
for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG || die "redis-server did not start (see $REDIS_DIR/redis.log)"
log "redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -c3-) on 127.0.0.1:$redis_port (appendfsync $fsync)"

export CELERY_BENCH_BROKER="amqp://guest:guest@127.0.0.1:$AMQP_PORT/$VHOST"
export CELERY_BENCH_BACKEND="redis://127.0.0.1:$redis_port/0"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the work tree
export CELERY_BENCH_CONFIRMS="$confirms" CELERY_BENCH_FSYNC="$fsync"

# Bounded: every scenario round has --timeout; the whole driver gets the sum plus slack.
n_shapes=$(tr ',' '\n' <<<"$shapes" | wc -l)
n_scen=2; [ -n "$only" ] && n_scen=1
budget=$(( n_shapes * (n_scen * rounds * timeout + 180) ))
args=(--shapes "$shapes" --nodes "$nodes" --chain "$chain" --rounds "$rounds" --timeout "$timeout"
      --pid-file "$WORK/workers.pids" --log-dir "$WORK" --json "$WORK/results.json")
[ -n "$only" ] && args+=(--only "$only")
setsid timeout --signal=TERM --kill-after=30 "$budget" "$VENV/bin/python" "$HERE/bench.py" "${args[@]}" &
driver_pid=$!
wait "$driver_pid"
