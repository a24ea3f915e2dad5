#!/bin/sh
# Fills a migrated Baton database with a generated history (see generate.sql). DESTRUCTIVE:
# empties the database's runs, nodes, events, edges, requests and holds first.
#   bench/history/generate.sh postgresql://postgres@127.0.0.1:5432/baton_history [nodes, default 10000000]
set -eu
url=${1:?usage: generate.sh DATABASE_URL [NODES]}
nodes=${2:-10000000}
export BATON_HISTORY_URL="$url"   # the COPY pipes in generate.sql connect with it
start=$(date +%s)
psql -X -v ON_ERROR_STOP=1 -v nodes="$nodes" "$url" -f "$(dirname "$0")/generate.sql"
echo "generated $nodes nodes in $(( $(date +%s) - start )) s"
