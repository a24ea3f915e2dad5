#!/usr/bin/env bash
# A three-node RabbitMQ cluster on 127.0.0.1 for the failover tests, apart from the
# main node of services.sh (baton@localhost on 5672). Nodes baton-c1@localhost,
# baton-c2@localhost and baton-c3@localhost listen for AMQP on 5681, 5682 and 5683
# (Erlang distribution on 25681..25683); no management plugin; data and logs in
# .data/rabbit-cluster/<node>/. Needs the packages of `services.sh up`. Idempotent.
#
#   deploy/local/rabbit-cluster.sh up              start the three nodes, cluster c2 and c3 with c1,
#                                                  vhost baton-cluster for guest; wait until all run
#   deploy/local/rabbit-cluster.sh down            stop the three nodes
#   deploy/local/rabbit-cluster.sh reset           down, then delete their data
#   deploy/local/rabbit-cluster.sh status          which nodes run, cluster membership
#   deploy/local/rabbit-cluster.sh kill N          kill -9 node N's Erlang VM (N = 1..3); returns once it is gone
#   deploy/local/rabbit-cluster.sh start N         start node N again; returns once it runs in the cluster
#   deploy/local/rabbit-cluster.sh leader QUEUE [VHOST]   print N of the node leading quorum queue QUEUE
#                                                  (vhost baton-cluster by default); non-zero if unknown
#   deploy/local/rabbit-cluster.sh urls            print the AMQP URL list of the three nodes
#   deploy/local/rabbit-cluster.sh ctl N ARGS…     rabbitmqctl against node N (e.g. set_vm_memory_high_watermark
#                                                  0.0000001: the chaos suite's alarms, on this cluster only)
#
# The nodes share the Erlang cookie of the main node (/var/lib/rabbitmq/.erlang.cookie): Debian's
# wrappers run both rabbitmq-server and rabbitmqctl as the rabbitmq user (su resets HOME to
# /var/lib/rabbitmq) when called as root. epmd (127.0.0.1:4369) is shared with the main node.
# BATON_RMQ_CLUSTER_TIMEOUT (seconds, default 180) bounds every wait.
set -euo pipefail
# Servers started here must not keep descriptors the caller handed down (a test harness waits for
# its end of them to close): close all but stdin, stdout, stderr and bash's own script descriptor.
for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ] && eval "exec $fd>&-" 2>/dev/null || true; done
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${BATON_DATA_DIR:-$ROOT/.data}"
BASE="$DATA/rabbit-cluster"
VHOST_DEFAULT="baton-cluster"
TIMEOUT="${BATON_RMQ_CLUSTER_TIMEOUT:-180}"
NODES=(1 2 3)

log() { printf 'rabbit-cluster: %s\n' "$*" >&2; }
die() { printf 'rabbit-cluster: error: %s\n' "$*" >&2; exit 1; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

node_name() { echo "baton-c$1@localhost"; }
amqp_port() { echo $((5680 + $1)); }
dist_port() { echo $((25680 + $1)); }
node_dir() { echo "$BASE/baton-c$1"; }

# The environment of node N, in the style of rmq_env in services.sh. Call it in a subshell.
rmq_env() {
    local n="$1" dir; dir=$(node_dir "$n")
    export RABBITMQ_NODENAME; RABBITMQ_NODENAME=$(node_name "$n")
    export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
    export RABBITMQ_NODE_PORT; RABBITMQ_NODE_PORT=$(amqp_port "$n")
    export RABBITMQ_MNESIA_BASE="$dir/mnesia"
    export RABBITMQ_LOG_BASE="$dir/log"
    export RABBITMQ_PID_FILE="$dir/rabbitmq.pid"
    export RABBITMQ_ENABLED_PLUGINS_FILE="$dir/enabled_plugins"
    export RABBITMQ_CONFIG_FILE="$dir/rabbitmq"
    export RABBITMQ_DIST_PORT; RABBITMQ_DIST_PORT=$(dist_port "$n")
    export ERL_EPMD_ADDRESS=127.0.0.1
    export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export HOME="${HOME:-/root}"
}

# rabbitmqctl / rabbitmq-queues against node N.
ctl() { local n="$1"; shift; ( rmq_env "$n"; rabbitmqctl -n "$(node_name "$n")" "$@" ); }
queues() { local n="$1"; shift; ( rmq_env "$n"; rabbitmq-queues -n "$(node_name "$n")" "$@" ); }

check_node() { case "${1:-}" in 1|2|3) ;; *) die "node number must be 1, 2 or 3 (got '${1:-}')" ;; esac; }

# The pid of node N's beam.smp, or nothing. RabbitMQ 3.10 starts distribution from inside the
# VM, so the node name is not on the command line; it is in the VM's environment.
node_pid() {
    local want="RABBITMQ_NODENAME=$(node_name "$1")" pid
    for pid in $(pgrep -x beam.smp 2>/dev/null || true); do
        if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qxF "$want"; then echo "$pid"; return 0; fi
    done
    return 0
}
node_alive() { [ -n "$(node_pid "$1")" ]; }

# Node numbers in node N's cluster view: kind is running_nodes or disk_nodes. Empty if N does not answer.
members() {
    local n="$1" kind="$2" json
    json=$(ctl "$n" -q cluster_status --formatter json --timeout 20 2>/dev/null) || return 0
    grep -o "\"$kind\":\[[^]]*\]" <<<"$json" | grep -o 'baton-c[0-9]@localhost' | sed 's/baton-c\([0-9]\)@localhost/\1/' | sort -u | paste -sd' ' || true
}

prepare() {
    local n="$1" dir; dir=$(node_dir "$n")
    mkdir -p "$dir/log" "$dir/mnesia"
    # Debian's wrapper runs the broker as the rabbitmq user.
    local d="$DATA"; while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    [ -f "$dir/enabled_plugins" ] || echo '[].' > "$dir/enabled_plugins"
    [ -f "$dir/rabbitmq.conf" ] || cat > "$dir/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$(amqp_port "$n")
loopback_users.guest = true
log.file.level = warning
log.console = false
disk_free_limit.absolute = 50MB
CONF
    # A blank c2 or c3 joins c1 while it boots (peer discovery, retried until c1 answers), so a cold
    # up needs no stop_app/join_cluster/start_app round; ensure_joined still checks and repairs.
    if [ "$n" != 1 ] && ! grep -q '^cluster_formation' "$dir/rabbitmq.conf"; then
        cat >> "$dir/rabbitmq.conf" <<CONF
cluster_formation.peer_discovery_backend = classic_config
cluster_formation.classic_config.nodes.1 = $(node_name 1)
cluster_formation.discovery_retry_limit = 120
cluster_formation.discovery_retry_interval = 500
CONF
    fi
    chown -R rabbitmq:rabbitmq "$BASE"
}

launch() {
    local n="$1"
    node_alive "$n" && return 0
    prepare "$n"
    log "starting $(node_name "$n") on 127.0.0.1:$(amqp_port "$n")"
    ( rmq_env "$n"; setsid nohup rabbitmq-server > "$(node_dir "$n")/console.log" 2>&1 < /dev/null & )
}

# Wait until node N has booted (rabbit app running), up to the deadline (in $SECONDS).
await_node() {
    local n="$1" deadline="$2" t0=$SECONDS
    until ctl "$n" -q await_startup --timeout 30 >/dev/null 2>&1; do
        if [ $((SECONDS - t0)) -ge 15 ] && ! node_alive "$n"; then
            tail -n 30 "$(node_dir "$n")/console.log" >&2; die "$(node_name "$n") exited during startup"
        fi
        [ $SECONDS -lt "$deadline" ] || { tail -n 30 "$(node_dir "$n")/console.log" >&2; die "$(node_name "$n") did not start within ${TIMEOUT} s"; }
        sleep 1
    done
}

# Make node N (2 or 3) a member of c1's cluster unless it already is.
ensure_joined() {
    local n="$1"
    [ "$n" = 1 ] && return 0
    if [[ " $(members "$n" disk_nodes) " == *" 1 "* ]]; then return 0; fi
    log "joining $(node_name "$n") to $(node_name 1)"
    ctl "$n" -q stop_app >/dev/null
    if ! ctl "$n" -q join_cluster "$(node_name 1)" >/dev/null 2>&1; then
        ctl "$n" -q reset >/dev/null
        ctl "$n" -q join_cluster "$(node_name 1)" >/dev/null
    fi
    ctl "$n" -q start_app >/dev/null
}

# Wait until c(ask)'s running nodes include every node in "$want" (a space-separated list).
await_members() {
    local want="$1" deadline="$2" ask n have
    while :; do
        for ask in $want; do node_alive "$ask" && break; done
        have=" $(members "$ask" running_nodes) "
        local ok=1; for n in $want; do [[ "$have" == *" $n "* ]] || ok=0; done
        [ $ok = 1 ] && return 0
        [ $SECONDS -lt "$deadline" ] || die "cluster did not form: $(node_name "$ask") sees running nodes [${have# }], want [$want]"
        sleep 1
    done
}

cluster_up() {
    local t0=$EPOCHREALTIME deadline=$((SECONDS + TIMEOUT)) n
    command -v rabbitmq-server >/dev/null || [ -x /usr/sbin/rabbitmq-server ] || die "rabbitmq-server not installed (run deploy/local/services.sh up)"
    local pids=() p
    for n in "${NODES[@]}"; do launch "$n"; done
    for n in "${NODES[@]}"; do await_node "$n" "$deadline" & pids+=($!); done
    for p in "${pids[@]}"; do wait "$p" || die "the cluster did not start"; done
    if [ "$(members 1 running_nodes)" != "1 2 3" ]; then
        for n in 2 3; do ensure_joined "$n"; done
        await_members "1 2 3" "$deadline"
    fi
    ctl 1 -q add_vhost "$VHOST_DEFAULT" >/dev/null 2>&1 || true
    ctl 1 -q set_permissions -p "$VHOST_DEFAULT" guest '.*' '.*' '.*' >/dev/null
    log "cluster of 3 nodes ready on 127.0.0.1:5681,5682,5683 (vhost $VHOST_DEFAULT) in $(since "$t0") s"
}

stop_nodes() {
    local deadline=$((SECONDS + TIMEOUT)) n pid pids=()
    for n in "${NODES[@]}"; do
        pid=$(node_pid "$n"); [ -n "$pid" ] || continue
        pids+=("$pid")
        ( ctl "$n" -q stop >/dev/null 2>&1 || true ) &
    done
    wait
    for pid in ${pids[@]+"${pids[@]}"}; do
        while kill -0 "$pid" 2>/dev/null; do
            if [ $SECONDS -ge "$deadline" ]; then log "pid $pid did not stop; killing it"; kill -9 "$pid" 2>/dev/null || true; fi
            sleep 0.2
        done
    done
    [ ${#pids[@]} = 0 ] || log "stopped ${#pids[@]} node(s)"
}

kill_node() {
    local n="$1" pid deadline=$((SECONDS + 30))
    pid=$(node_pid "$n")
    [ -n "$pid" ] || { log "$(node_name "$n") is not running"; return 0; }
    kill -9 "$pid"
    while kill -0 "$pid" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || die "pid $pid still exists after kill -9"
        sleep 0.1
    done
    log "killed $(node_name "$n") (pid $pid)"
}

start_node() {
    local n="$1" t0=$EPOCHREALTIME deadline=$((SECONDS + TIMEOUT)) m want=""
    launch "$n"
    await_node "$n" "$deadline"
    ensure_joined "$n"
    for m in "${NODES[@]}"; do node_alive "$m" && want="$want $m"; done
    await_members "${want# }" "$deadline"
    log "$(node_name "$n") running in the cluster (running: ${want# }) in $(since "$t0") s"
}

# quorum_status lists every member with its Raft state; take the leader with the highest term.
leader() {
    local queue="$1" vhost="${2:-$VHOST_DEFAULT}" n out best
    for n in "${NODES[@]}"; do
        node_alive "$n" || continue
        out=$(queues "$n" quorum_status "$queue" --vhost "$vhost" --formatter json --timeout 20 2>&1) || continue
        best=$(jq_free_leader <<<"$out")
        # A leader on a dead node is stale (the survivors have not elected one yet): ask on.
        if [ -n "$best" ] && node_alive "$best"; then echo "$best"; return 0; fi
    done
    die "no leader known for quorum queue '$queue' in vhost '$vhost' (queue missing, not a quorum queue, election under way, or no node answers)"
}

# Reads quorum_status JSON ([{"Node Name":...,"Raft State":"leader",...,"Term":N}, ...]) without jq.
jq_free_leader() {
    tr -d '\n' | grep -o '{[^{}]*}' | grep '"Raft State":"leader"' \
        | sed -n 's/.*"Node Name":"baton-c\([0-9]\)@localhost".*"Term":\([0-9]*\).*/\2 \1/p; s/.*"Term":\([0-9]*\).*"Node Name":"baton-c\([0-9]\)@localhost".*/\1 \2/p' \
        | sort -n | tail -n 1 | cut -d' ' -f2
}

status() {
    local n pid
    for n in "${NODES[@]}"; do
        pid=$(node_pid "$n")
        if [ -n "$pid" ]; then
            echo "$(node_name "$n"): running (pid $pid) on 127.0.0.1:$(amqp_port "$n"), sees running nodes [$(members "$n" running_nodes)] of [$(members "$n" disk_nodes)]"
        else
            echo "$(node_name "$n"): stopped"
        fi
    done
}

cmd="${1:-}"; [ $# -gt 0 ] && shift
case "$cmd" in
    up) cluster_up ;;
    down) stop_nodes ;;
    reset) stop_nodes; rm -rf "$BASE"; log "deleted $BASE" ;;
    status) status ;;
    kill) check_node "${1:-}"; kill_node "$1" ;;
    start) check_node "${1:-}"; start_node "$1" ;;
    leader) [ -n "${1:-}" ] || die "usage: leader QUEUE [VHOST]"; leader "$1" "${2:-}" ;;
    ctl) check_node "${1:-}"; n="$1"; shift; ctl "$n" "$@" ;;
    urls) echo "amqp://guest:guest@127.0.0.1:5681/$VHOST_DEFAULT,127.0.0.1:5682,127.0.0.1:5683" ;;
    *) die "unknown command '$cmd' (use up, down, reset, status, kill N, start N, leader QUEUE [VHOST], urls, ctl N ARGS…)" ;;
esac
