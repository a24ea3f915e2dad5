#!/usr/bin/env bash
# A standalone RabbitMQ node on 127.0.0.1, apart from the main node of services.sh, for tests that
# change broker-global state (memory and disk alarms) which must not touch the shared broker.
# Node baton-alarm@localhost, AMQP on 5691 (Erlang distribution on 25691) unless
# BATON_RMQ_NODE_NAME / BATON_RMQ_NODE_PORT say otherwise; data in .data/rabbit-node/<name>/.
# Needs the packages of `services.sh up`. BATON_RMQ_NODE_TIMEOUT (seconds, default 120) bounds the start.
#
#   deploy/local/rabbit-node.sh up          start the node (vhost baton for guest); wait until it runs
#   deploy/local/rabbit-node.sh down        stop it (kill -9 after 20 s) and delete its data
#   deploy/local/rabbit-node.sh ctl ARGS…   rabbitmqctl against it (e.g. set_vm_memory_high_watermark 0.0000001)
set -euo pipefail
for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ] && eval "exec $fd>&-" 2>/dev/null || true; done
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${BATON_DATA_DIR:-$ROOT/.data}"
NAME="${BATON_RMQ_NODE_NAME:-baton-alarm}"
PORT="${BATON_RMQ_NODE_PORT:-5691}"
TIMEOUT="${BATON_RMQ_NODE_TIMEOUT:-120}"
DIR="$DATA/rabbit-node/$NAME"
NODE="$NAME@localhost"

log() { printf 'rabbit-node: %s\n' "$*" >&2; }
die() { printf 'rabbit-node: error: %s\n' "$*" >&2; exit 1; }

rmq_env() {
    export RABBITMQ_NODENAME="$NODE" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$PORT"
    export RABBITMQ_MNESIA_BASE="$DIR/mnesia" RABBITMQ_LOG_BASE="$DIR/log" RABBITMQ_PID_FILE="$DIR/rabbitmq.pid"
    export RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/enabled_plugins" RABBITMQ_CONFIG_FILE="$DIR/rabbitmq"
    export RABBITMQ_DIST_PORT=$((PORT + 20000)) ERL_EPMD_ADDRESS=127.0.0.1
    export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export HOME="${HOME:-/root}"
}
ctl() { ( rmq_env; rabbitmqctl -n "$NODE" "$@" ); }

node_pid() {
    local pid
    for pid in $(pgrep -x beam.smp 2>/dev/null || true); do
        if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qxF "RABBITMQ_NODENAME=$NODE"; then echo "$pid"; return 0; fi
    done
}

up() {
    command -v rabbitmq-server >/dev/null || die "rabbitmq-server not installed (run deploy/local/services.sh up)"
    if [ -z "$(node_pid)" ]; then
        mkdir -p "$DIR/log" "$DIR/mnesia"
        local d="$DATA"; while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
        echo '[].' > "$DIR/enabled_plugins"
        cat > "$DIR/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$PORT
loopback_users.guest = true
log.file.level = warning
log.console = false
disk_free_limit.absolute = 50MB
CONF
        chown -R rabbitmq:rabbitmq "$DATA/rabbit-node"
        log "starting $NODE on 127.0.0.1:$PORT"
        ( rmq_env; setsid nohup rabbitmq-server > "$DIR/console.log" 2>&1 < /dev/null & )
    fi
    local deadline=$((SECONDS + TIMEOUT))
    until ctl -q await_startup --timeout 30 >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || { tail -n 30 "$DIR/console.log" >&2; die "$NODE did not start within $TIMEOUT s"; }
        sleep 1
    done
    ctl -q add_vhost baton >/dev/null 2>&1 || true
    ctl -q set_permissions -p baton guest '.*' '.*' '.*' >/dev/null
    log "$NODE ready on 127.0.0.1:$PORT (vhost baton)"
}

down() {
    local pid; pid=$(node_pid)
    [ -n "$pid" ] || return 0
    ctl -q stop --timeout 20 >/dev/null 2>&1 || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; log "$NODE killed"; else log "$NODE stopped"; fi
    # Its data goes with it: the next `up` starts an empty node (no queues, messages or settings of a test before).
    rm -rf "$DIR/mnesia"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    ctl) shift; ctl "$@" ;;
    *) die "usage: rabbit-node.sh up|down|ctl ARGS…" ;;
esac
