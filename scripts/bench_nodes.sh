#!/usr/bin/env bash
# Several nodes on PostgreSQL + Redis beside the embedded store (issue 16; figures and how
# to read them: BENCHMARKS.md "Several nodes").
#
#   scripts/bench_nodes.sh [--posts N] [--seconds S] [--concurrency C] [--work DIR] [--bin DIR]
#
#   DATABASE_URL  a database this script may empty (default
#                 postgres://postgres@127.0.0.1:5432/forumdex_bench, dropped and created)
#   REDIS_URL     default redis://127.0.0.1:6379/5
#
# In one run, for a generated corpus of N posts (default 1,000,000):
#   1. embedded: `forumdex import` into a fresh data folder, serve, and the loads of
#      scripts/bench.sh (search, lookups, pages of 100 posts at the start and the end of the
#      largest topic; fdx-load, C keep-alive connections, S seconds): this run's baseline;
#   2. `forumdex db migrate`, then `forumdex db copy --from` that folder: wall time;
#   3. node A on PostgreSQL + Redis: `forumdex reindex` (the search replica built from
#      PostgreSQL: wall time), serve, the same loads;
#   4. node B seeded from node A's indexes (`reindex --from`: wall time), both nodes served
#      and loaded at once, each by its own fdx-load with C/2 connections.
# Every figure is one JSON line in $WORK/results.jsonl. Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=${BENCH_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ROOT/scripts/run_from_copy.sh"
POSTS=1000000
SECS=20
CONC=8
WORK=${TMPDIR:-/tmp}/forumdex-bench-nodes
BIN=
while [ $# -gt 0 ]; do
    case "$1" in
        --posts) POSTS=$2; shift 2 ;;
        --seconds) SECS=$2; shift 2 ;;
        --concurrency) CONC=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --bin) BIN=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/forumdex_bench}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/5}
if [ -z "$BIN" ]; then
    cargo build --release -p forumdex -p forumdex-bench
    BIN=$ROOT/target/release
fi
FDX=$BIN/forumdex
LOAD=$BIN/fdx-load
mkdir -p "$WORK"
RESULTS=$WORK/results.jsonl
: > "$RESULTS"
record() { jq -c --arg setup "$1" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
    '. + {setup: $setup, load: $load}' <<< "$2" | tee -a "$RESULTS"; }
# timed LABEL SETUP COMMAND...: wall seconds and peak RSS of one command.
timed() {
    local label=$1 setup=$2
    shift 2
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$@" > "$WORK/$label.out"
    read -r wall rss < "$WORK/time"
    record "$setup" "$(jq -nc --arg what "$label" --argjson wall "$wall" --argjson rss "$rss" \
        '{label: $what, wall_s: $wall, peak_rss_mib: (($rss / 1024) | round)}')"
}
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; commit $(git rev-parse --short HEAD); posts $POSTS" \
    | tee "$WORK/machine.txt"

# The shared settings of the PostgreSQL nodes.
export_nodes() {
    export FORUMDEX_STORAGE=postgres FORUMDEX_DATABASE_URL=$DATABASE_URL FORUMDEX_REDIS_URL=$REDIS_URL
    export FORUMDEX_CURSOR_SECRET_FILE=$WORK/cursor-secret FORUMDEX_IMAGES_URL=$WORK/images
}

# serve DATA PORT: starts a server (the settings of the environment), waits until ready;
# its pid in $SERVER.
serve() {
    FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$FDX" --data "$1" serve --listen "127.0.0.1:$2" \
        2> "$WORK/serve-$2.log" &
    SERVER=$!
    for _ in $(seq 1 1200); do
        kill -0 "$SERVER" 2> /dev/null || { cat "$WORK/serve-$2.log" >&2; exit 1; }
        curl -fs "http://127.0.0.1:$2/readyz" > /dev/null 2>&1 && return
        sleep 0.1
    done
    echo "server on port $2 not ready" >&2
    exit 1
}

# loads SETUP PORT PID KEY: the four loads of one server (its own cursors for the pages:
# walked just before, as cursors idle out after five minutes).
loads() {
    local setup=$1 addr=127.0.0.1:$2 pid=$3 key=$4 paths=$WORK/embedded/bench
    mkdir -p "$WORK/$setup-pages"
    "$LOAD" walk --addr "$addr" --key "$key" --topic "$(cut -d' ' -f1 "$paths/topic.txt")" \
        --out "$WORK/$setup-pages"
    for label in search lookups pages-start pages-end; do
        local file=$paths/$label.paths
        case $label in pages-*) file=$WORK/$setup-pages/$label.paths ;; esac
        record "$setup" "$("$LOAD" run --addr "$addr" --key "$key" --paths "$file" --label "$label" \
            --concurrency "$CONC" --seconds "$SECS" --pid "$pid")"
    done
}

# 1. The embedded baseline.
CORPUS=$WORK/generated-$POSTS.jsonl
[ -s "$CORPUS" ] || "$FDX" generate --posts "$POSTS" --out "$CORPUS" --json > /dev/null
rm -rf "$WORK/embedded" "$WORK/a" "$WORK/b" "$WORK/images"
timed import embedded "$FDX" --data "$WORK/embedded" --json import "$CORPUS"
ACCOUNT=$("$FDX" --data "$WORK/embedded" accounts create --email bench@example.com \
    --credits 1000000000 --json | jq -r .account_id)
KEY=$("$FDX" --data "$WORK/embedded" keys create --account "$ACCOUNT" --json | jq -r .key)
"$LOAD" paths --data "$WORK/embedded" --out "$WORK/embedded/bench"
serve "$WORK/embedded" 38611
loads embedded 38611 "$SERVER" "$KEY"
kill "$SERVER"; wait "$SERVER" || true

# 2. Into PostgreSQL.
DB_NAME=${DATABASE_URL##*/}
psql "${DATABASE_URL%/*}/postgres" -qc "DROP DATABASE IF EXISTS $DB_NAME" -c "CREATE DATABASE $DB_NAME"
export_nodes
"$FDX" --data "$WORK/a" --json db migrate > /dev/null
timed db-copy postgres "$FDX" --data "$WORK/a" --json db copy --from "$WORK/embedded"
psql "$DATABASE_URL" -qc "VACUUM ANALYZE"

# 3. One node on PostgreSQL + Redis.
timed reindex-from-postgres postgres "$FDX" --data "$WORK/a" --json reindex
serve "$WORK/a" 38612
A=$SERVER
loads postgres-1-node 38612 "$A" "$KEY"

# 4. A second node, seeded from the first's indexes, both loaded at once.
kill "$A"; wait "$A" || true
timed reindex-from-node postgres "$FDX" --data "$WORK/b" --json reindex --from "$WORK/a"
serve "$WORK/a" 38612
A=$SERVER
serve "$WORK/b" 38613
B=$SERVER
for label in search lookups; do
    "$LOAD" run --addr 127.0.0.1:38612 --key "$KEY" --paths "$WORK/embedded/bench/$label.paths" \
        --label "$label" --concurrency $((CONC / 2)) --seconds "$SECS" --pid "$A" > "$WORK/two-a.json" &
    "$LOAD" run --addr 127.0.0.1:38613 --key "$KEY" --paths "$WORK/embedded/bench/$label.paths" \
        --label "$label" --concurrency $((CONC / 2)) --seconds "$SECS" --pid "$B" > "$WORK/two-b.json"
    wait
    record postgres-2-nodes "$(jq -sc '{label: .[0].label, rps: (.[0].rps + .[1].rps),
        node_a: .[0], node_b: .[1]}' "$WORK/two-a.json" "$WORK/two-b.json")"
done
kill "$A" "$B"; wait || true
