#!/usr/bin/env bash
# The whole test suite on a fresh machine: services up (installed if needed),
# then every unit and integration test. Integration tests get a database and a
# RabbitMQ vhost of their own, so a demo running beside them is not disturbed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
"$ROOT/deploy/local/services.sh" up
"$ROOT/deploy/local/services.sh" test-env
export BATON_DATABASE_URL="${BATON_TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/baton_test}"
export BATON_AMQP_URL="${BATON_TEST_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/baton-test}"
swift build --build-tests
swift test --skip-build "$@"
