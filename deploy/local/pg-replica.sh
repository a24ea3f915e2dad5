#!/usr/bin/env bash
# A PostgreSQL primary and a synchronous standby on 127.0.0.1 for the failover tests, apart
# from the main server of services.sh (5432). Primary on 5441 (.data/pg-ha/primary), standby on
# 5442 (.data/pg-ha/standby, made with pg_basebackup -R, application_name baton_standby, which the
# primary lists in synchronous_standby_names). Database baton_ha; trust auth on 127.0.0.1, also
# for replication. Everything runs as the postgres user. Needs the packages of `services.sh up`.
#
#   deploy/local/pg-replica.sh up             a fresh pair (old data deleted); waits until the standby is in sync
#   deploy/local/pg-replica.sh down           stop whichever of the two runs
#   deploy/local/pg-replica.sh status         which runs, which is in recovery
#   deploy/local/pg-replica.sh kill-primary   kill -9 the primary's postmaster; returns once it, its children
#                                             and its port are gone
#   deploy/local/pg-replica.sh promote        promote the standby; returns once it accepts writes
#   deploy/local/pg-replica.sh url            print the two-host libpq URL (read-write session wanted)
#
# BATON_PG_HA_TIMEOUT (seconds, default 60) bounds every wait.
set -euo pipefail
# Servers started here must not keep descriptors the caller handed down (a test harness waits for
# its end of them to close): close all but stdin, stdout, stderr and bash's own script descriptor.
for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ] && eval "exec $fd>&-" 2>/dev/null || true; done
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${BATON_DATA_DIR:-$ROOT/.data}"
BASE="$DATA/pg-ha"
PRIMARY="$BASE/primary"
STANDBY="$BASE/standby"
PRIMARY_PORT=5441
STANDBY_PORT=5442
APP_NAME=baton_standby
DB=baton_ha
TIMEOUT="${BATON_PG_HA_TIMEOUT:-60}"

log() { printf 'pg-replica: %s\n' "$*" >&2; }
die() { printf 'pg-replica: error: %s\n' "$*" >&2; exit 1; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$dir" ] || return 1
    echo "$dir"
}
BIN=$(pg_bin) || die "PostgreSQL server binaries not found (run deploy/local/services.sh up)"

as_pg() { runuser -u postgres -- "$@"; }
psql_at() { local port="$1"; shift; as_pg psql -h 127.0.0.1 -p "$port" -U postgres -X -At "$@"; }

running() { [ -f "$1/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$1" status >/dev/null 2>&1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop() {
    local dir="$1" mode="${2:-fast}"
    if running "$dir"; then
        as_pg "$BIN/pg_ctl" -D "$dir" -m "$mode" -w -t "$TIMEOUT" stop >/dev/null
        log "stopped $(basename "$dir")"
    fi
}

# Wait until the query prints the expected value on the port.
await() {
    local port="$1" query="$2" want="$3" what="$4" deadline=$((SECONDS + TIMEOUT))
    until [ "$(psql_at "$port" -d postgres -c "$query" 2>/dev/null || true)" = "$want" ]; do
        [ $SECONDS -lt $deadline ] || die "$what: not within ${TIMEOUT} s"
        sleep 0.1
    done
}

start() {
    local dir="$1"
    as_pg "$BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t "$TIMEOUT" start >/dev/null \
        || { tail -n 20 "$dir/server.log" >&2; die "$(basename "$dir") did not start"; }
}

up() {
    local t0=$EPOCHREALTIME
    stop "$STANDBY" immediate; stop "$PRIMARY" immediate
    local port; for port in $PRIMARY_PORT $STANDBY_PORT; do
        if port_open "$port"; then die "127.0.0.1:$port is taken by something else"; fi
    done
    rm -rf "$BASE"
    mkdir -p "$BASE"
    # postgres must be able to reach its data folders.
    local d="$DATA"; while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    chown postgres:postgres "$BASE"; chmod 700 "$BASE"

    as_pg "$BIN/initdb" -D "$PRIMARY" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
    # initdb's pg_hba.conf already trusts 127.0.0.1 for replication too; say so anyway.
    printf 'host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n' >> "$PRIMARY/pg_hba.conf"
    cat >> "$PRIMARY/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PRIMARY_PORT
unix_socket_directories = '$BASE'
max_connections = 50
shared_buffers = 16MB
wal_level = replica
max_wal_senders = 5
max_replication_slots = 5
hot_standby = on
synchronous_commit = on
fsync = on
log_min_messages = warning
CONF
    start "$PRIMARY"
    psql_at $PRIMARY_PORT -d postgres -qc "create database $DB" >/dev/null

    as_pg "$BIN/pg_basebackup" -d "host=127.0.0.1 port=$PRIMARY_PORT user=postgres application_name=$APP_NAME" \
        -D "$STANDBY" -R -X stream -c fast --no-sync >/dev/null
    # The standby's copy of postgresql.conf is the primary's: give it its own port and socket, and no
    # synchronous standby of its own, or commits would hang once it is promoted.
    cat >> "$STANDBY/postgresql.conf" <<CONF
port = $STANDBY_PORT
synchronous_standby_names = ''
CONF
    start "$STANDBY"
    # Only now is the standby named as synchronous: before, create database would wait for it.
    psql_at $PRIMARY_PORT -d postgres -qc "alter system set synchronous_standby_names = '$APP_NAME'" -c "select pg_reload_conf()" >/dev/null
    await $PRIMARY_PORT "select sync_state from pg_stat_replication where application_name = '$APP_NAME'" sync \
        "standby $APP_NAME in sync with the primary"
    log "primary 127.0.0.1:$PRIMARY_PORT and synchronous standby 127.0.0.1:$STANDBY_PORT (database $DB) ready in $(since "$t0") s"
}

status() {
    local dir port name
    for name in primary standby; do
        dir="$BASE/$name"; port=$PRIMARY_PORT; [ $name = standby ] && port=$STANDBY_PORT
        if running "$dir"; then
            case "$(psql_at "$port" -d postgres -c 'select pg_is_in_recovery()' 2>/dev/null || true)" in
                t) echo "$name: running on 127.0.0.1:$port, in recovery (standby)" ;;
                f) echo "$name: running on 127.0.0.1:$port, not in recovery (accepts writes)" ;;
                *) echo "$name: running on 127.0.0.1:$port, not answering" ;;
            esac
        else
            echo "$name: stopped"
        fi
    done
}

kill_primary() {
    local pid children deadline=$((SECONDS + TIMEOUT)) p
    pid=$(head -n 1 "$PRIMARY/postmaster.pid" 2>/dev/null || true)
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != postgres ]; then
        log "primary is not running"; return 0
    fi
    children=$(pgrep -P "$pid" || true)
    kill -9 "$pid"
    for p in $pid $children; do
        while kill -0 "$p" 2>/dev/null; do
            [ $SECONDS -lt $deadline ] || die "process $p of the primary still exists"
            sleep 0.05
        done
    done
    while port_open $PRIMARY_PORT; do
        [ $SECONDS -lt $deadline ] || die "127.0.0.1:$PRIMARY_PORT still open"
        sleep 0.05
    done
    log "killed the primary (postmaster $pid and its $(wc -w <<<"$children") children)"
}

promote() {
    local t0=$EPOCHREALTIME
    running "$STANDBY" || die "the standby is not running"
    if [ "$(psql_at $STANDBY_PORT -d postgres -c 'select pg_is_in_recovery()')" = t ]; then
        as_pg "$BIN/pg_ctl" -D "$STANDBY" -w -t "$TIMEOUT" promote >/dev/null
    fi
    await $STANDBY_PORT 'select pg_is_in_recovery()' f "promotion of the standby"
    log "standby 127.0.0.1:$STANDBY_PORT promoted in $(since "$t0") s"
}

case "${1:-}" in
    up) up ;;
    down) stop "$STANDBY"; stop "$PRIMARY" ;;
    status) status ;;
    kill-primary) kill_primary ;;
    promote) promote ;;
    url) echo "postgresql://postgres@127.0.0.1:$PRIMARY_PORT,127.0.0.1:$STANDBY_PORT/$DB?target_session_attrs=read-write&connect_timeout=2" ;;
    *) die "unknown command '${1:-}' (use up, down, status, kill-primary, promote, url)" ;;
esac
