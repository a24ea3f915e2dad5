#!/usr/bin/env bash
# Installs (Debian packages), starts and stops the services Baton needs for local
# development and tests: PostgreSQL and RabbitMQ, both on 127.0.0.1 only, with
# their data under .data/ in the project (gitignored). Idempotent.
#
#   deploy/local/services.sh up        install if needed, start, wait until ready, create db "baton"
#   deploy/local/services.sh down      stop both
#   deploy/local/services.sh status    say what runs
#   deploy/local/services.sh restart-rabbitmq | restart-postgres
#   deploy/local/services.sh test-env [--fresh]  database baton_test and vhost baton-test for the tests
#                                      (--fresh: dropped and deleted first); chaos-env the same for the chaos suite
#   deploy/local/services.sh vhost NAME [--fresh]   a vhost guest may use (--fresh: deleted first)
#   deploy/local/services.sh queues VHOST           its queues: name, type, messages
set -euo pipefail
# Servers started here must not keep descriptors the caller handed down (a test harness waits for
# its end of them to close): close all but stdin, stdout, stderr and bash's own script descriptor.
for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ] && eval "exec $fd>&-" 2>/dev/null || true; done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="${BATON_DATA_DIR:-$ROOT/.data}"
PG_PORT="${BATON_PG_PORT:-5432}"
AMQP_PORT="${BATON_AMQP_PORT:-5672}"
PG_DATA="$DATA/postgres"
RMQ_BASE="$DATA/rabbitmq"
RMQ_NODE="baton@localhost"

log() { printf 'services: %s\n' "$*" >&2; }
die() { printf 'services: error: %s\n' "$*" >&2; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$dir" ] || return 1
    echo "$dir"
}

install_packages() {
    local missing=()
    pg_bin >/dev/null || missing+=(postgresql)
    command -v psql >/dev/null || missing+=(postgresql-client)
    dpkg -s libpq-dev >/dev/null 2>&1 || missing+=(libpq-dev)
    command -v rabbitmq-server >/dev/null || [ -x /usr/sbin/rabbitmq-server ] || missing+=(rabbitmq-server)
    dpkg -s librabbitmq-dev >/dev/null 2>&1 || missing+=(librabbitmq-dev)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    command -v openssl >/dev/null || missing+=(openssl)
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing ${missing[*]}"
        as_root apt-get update -qq
        # policy-rc.d keeps the packages from starting system-wide services.
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# A local CA and a server certificate for 127.0.0.1 / localhost, so both services
# also accept TLS (RabbitMQ on 5671, PostgreSQL with ssl = on). Clients verify
# with .data/tls/ca.pem: amqps://…:5671/vhost?cacertfile=… and sslmode=verify-full&sslrootcert=….
TLS="$DATA/tls"
tls_files() {
    [ -f "$TLS/server.pem" ] && return 0
    mkdir -p "$TLS"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Baton local CA" \
        -keyout "$TLS/ca.key" -out "$TLS/ca.pem" >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$TLS/server.key" -out "$TLS/server.csr" >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$TLS/san.ext"
    openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" -CAcreateserial -days 3650 \
        -extfile "$TLS/san.ext" -out "$TLS/server.pem" >/dev/null 2>&1
    chmod 755 "$TLS"; chmod 644 "$TLS/ca.pem" "$TLS/server.pem"
    chgrp rabbitmq "$TLS/server.key" 2>/dev/null && chmod 640 "$TLS/server.key" || chmod 644 "$TLS/server.key"
    log "created a local CA and server certificate in $TLS"
}

rmq_env() {
    export RABBITMQ_NODENAME="$RMQ_NODE"
    export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
    export RABBITMQ_NODE_PORT="$AMQP_PORT"
    export RABBITMQ_MNESIA_BASE="$RMQ_BASE/mnesia"
    export RABBITMQ_LOG_BASE="$RMQ_BASE/log"
    export RABBITMQ_PID_FILE="$RMQ_BASE/rabbitmq.pid"
    export RABBITMQ_ENABLED_PLUGINS_FILE="$RMQ_BASE/enabled_plugins"
    export RABBITMQ_CONFIG_FILE="$RMQ_BASE/rabbitmq"
    export RABBITMQ_DIST_PORT="${BATON_RMQ_DIST_PORT:-25672}"
    export ERL_EPMD_ADDRESS=127.0.0.1
    export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export HOME="${HOME:-/root}"
}

pg_running() {
    [ -f "$PG_DATA/postmaster.pid" ] && runuser -u postgres -- "$(pg_bin)/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

pg_up() {
    local bin; bin=$(pg_bin) || die "PostgreSQL server binaries not found"
    mkdir -p "$DATA"
    chmod 755 "$DATA"
    # postgres must be able to reach its data folder.
    local d="$DATA"; while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    if [ ! -f "$PG_DATA/PG_VERSION" ]; then
        log "initialising PostgreSQL in $PG_DATA"
        mkdir -p "$PG_DATA"; chown postgres:postgres "$PG_DATA"; chmod 700 "$PG_DATA"
        runuser -u postgres -- "$bin/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
        cat >> "$PG_DATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_DATA'
max_connections = 200
fsync = on
synchronous_commit = on
shared_buffers = 256MB
log_min_messages = warning
CONF
    fi
    tls_files
    if ! grep -q "^ssl = on" "$PG_DATA/postgresql.conf"; then
        install -o postgres -g postgres -m 600 "$TLS/server.key" "$PG_DATA/server.key"
        install -o postgres -g postgres -m 644 "$TLS/server.pem" "$PG_DATA/server.crt"
        printf "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n" >> "$PG_DATA/postgresql.conf"
        pg_running && runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DATA" reload >/dev/null
    fi
    if pg_running; then log "PostgreSQL already running"; else
        log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
        runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w -t 60 start >/dev/null \
            || { tail -n 20 "$PG_DATA/server.log" >&2; die "PostgreSQL did not start"; }
    fi
    local i; for i in $(seq 1 60); do
        runuser -u postgres -- psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -Atc 'select 1' >/dev/null 2>&1 && break
        sleep 0.5
    done
    if ! runuser -u postgres -- psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -Atc "select 1 from pg_database where datname='baton'" | grep -q 1; then
        runuser -u postgres -- psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc 'create database baton' >/dev/null
        log "created database baton"
    fi
}

pg_down() {
    local bin; bin=$(pg_bin) || return 0
    if pg_running; then runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null; log "PostgreSQL stopped"; fi
}

rmq_running() { rmq_env; rabbitmqctl -n "$RMQ_NODE" -q status >/dev/null 2>&1; }

rmq_up() {
    rmq_env
    mkdir -p "$RMQ_BASE/log" "$RMQ_BASE/mnesia"
    # Debian's wrapper runs the broker as the rabbitmq user.
    local d="$DATA"; while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    [ -f "$RMQ_BASE/enabled_plugins" ] || echo '[].' > "$RMQ_BASE/enabled_plugins"
    if [ ! -f "$RMQ_BASE/rabbitmq.conf" ]; then
        cat > "$RMQ_BASE/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$AMQP_PORT
loopback_users.guest = true
log.file.level = warning
log.console = false
disk_free_limit.absolute = 50MB
CONF
    fi
    tls_files
    if ! grep -q "^listeners.ssl.default" "$RMQ_BASE/rabbitmq.conf"; then
        cat >> "$RMQ_BASE/rabbitmq.conf" <<CONF
listeners.ssl.default = 127.0.0.1:${BATON_AMQPS_PORT:-5671}
ssl_options.cacertfile = $TLS/ca.pem
ssl_options.certfile = $TLS/server.pem
ssl_options.keyfile = $TLS/server.key
ssl_options.verify = verify_none
ssl_options.fail_if_no_peer_cert = false
CONF
        rmq_running && { log "restarting RabbitMQ to add its TLS listener"; rmq_down; }
    fi
    if rmq_running; then log "RabbitMQ already running"; return 0; fi
    log "starting RabbitMQ on 127.0.0.1:$AMQP_PORT and :${BATON_AMQPS_PORT:-5671} (TLS) (takes ~20 s)"
    chown -R rabbitmq:rabbitmq "$RMQ_BASE" 2>/dev/null || true
    setsid nohup rabbitmq-server > "$RMQ_BASE/console.log" 2>&1 < /dev/null &
    local deadline=$((SECONDS + 120))
    until rabbitmqctl -n "$RMQ_NODE" -q await_startup --timeout 60 >/dev/null 2>&1; do
        if [ $SECONDS -ge $deadline ]; then tail -n 30 "$RMQ_BASE/console.log" >&2; die "RabbitMQ did not start within 120 s"; fi
        sleep 1
    done
    log "RabbitMQ ready"
}

rmq_down() {
    if rmq_running; then rabbitmqctl -n "$RMQ_NODE" -q stop >/dev/null 2>&1 || true; log "RabbitMQ stopped"; fi
}

case "${1:-up}" in
    up) install_packages; pg_up; rmq_up ;;
    down) pg_down; rmq_down ;;
    status)
        if pg_running; then echo "postgres: running on 127.0.0.1:$PG_PORT"; else echo "postgres: stopped"; fi
        if rmq_running; then echo "rabbitmq: running on 127.0.0.1:$AMQP_PORT"; else echo "rabbitmq: stopped"; fi ;;
    test-env|chaos-env)
        # A database and a vhost for the integration tests (or the chaos suite), apart from the demo's.
        name=baton_test; vhost=baton-test
        [ "$1" = chaos-env ] && { name=baton_chaos; vhost=baton-chaos; }
        if [ "${2:-}" = --fresh ]; then
            # As on a new machine (CI's): nothing left from an earlier run, so no test leans on it.
            runuser -u postgres -- psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "drop database if exists $name with (force)" >/dev/null
            rmq_env
            rabbitmqctl -n "$RMQ_NODE" -q delete_vhost "$vhost" >/dev/null 2>&1 || true
        fi
        if ! runuser -u postgres -- psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -Atc "select 1 from pg_database where datname='$name'" | grep -q 1; then
            runuser -u postgres -- psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "create database $name" >/dev/null
        fi
        rmq_env
        rabbitmqctl -n "$RMQ_NODE" -q add_vhost "$vhost" >/dev/null 2>&1 || true
        rabbitmqctl -n "$RMQ_NODE" -q set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null ;;
    vhost)
        # A vhost of its own (guest may use it), deleted first with --fresh: for tests that need an empty broker.
        [ -n "${2:-}" ] || die "vhost needs a name"
        rmq_env
        [ "${3:-}" = --fresh ] && { rabbitmqctl -n "$RMQ_NODE" -q delete_vhost "$2" >/dev/null 2>&1 || true; }
        rabbitmqctl -n "$RMQ_NODE" -q add_vhost "$2" >/dev/null 2>&1 || true
        rabbitmqctl -n "$RMQ_NODE" -q set_permissions -p "$2" guest '.*' '.*' '.*' >/dev/null ;;
    queues)
        # The queues of a vhost: name, type and messages.
        rmq_env
        rabbitmqctl -n "$RMQ_NODE" -q list_queues -p "${2:-/}" name type messages ;;
    restart-postgres) pg_down; pg_up ;;
    restart-rabbitmq) rmq_down; rmq_up ;;
    stop-postgres) pg_down ;;
    start-postgres) pg_up ;;
    stop-rabbitmq) rmq_down ;;
    start-rabbitmq) rmq_up ;;
    *) die "unknown command '$1' (use up, down, status, restart-postgres, restart-rabbitmq)" ;;
esac
