#!/usr/bin/env bash
# Collection pages at depth on a synthetic corpus of 10M posts in PostgreSQL (issue 16;
# figures and how to read them: BENCHMARKS.md "Pages at depth on 10M posts in PostgreSQL").
#
#   scripts/bench_pg_depth.sh [--posts N] [--topic-posts M] [--seconds S] [--work DIR] [--bin DIR]
#
#   DATABASE_URL  a database this script may empty (default
#                 postgres://postgres@127.0.0.1:5432/forumdex_bench_depth, dropped and created)
#   REDIS_URL     default redis://127.0.0.1:6379/6
#
# 1. `forumdex db migrate`, and `forumdex import` of a small generated corpus (2,000 posts):
#    the corpus's sequence 1, which the node's search indexes are synced to.
# 2. N more post rows (default 10,000,000) written straight into post_versions by SQL
#    (generate_series), visible from that same sequence 1: one topic of M posts (default
#    1,000,000), the rest in topics of 100 posts. They are in no search index (the node's
#    sync has nothing to do, so it does not compete with the loads): this measures pages.
# 3. VACUUM ANALYZE; the table's and its indexes' sizes.
# 4. One node on PostgreSQL + Redis: `fdx-load walk` over the large topic (every page of
#    100, writing the paths of the first and the last 50 pages with their cursors), then
#    pages at the start and at the end at concurrency 1 and 8, S seconds each.
# Every figure is one JSON line in $WORK/results.jsonl. Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=${BENCH_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ROOT/scripts/run_from_copy.sh"
POSTS=10000000
TOPIC_POSTS=1000000
SECS=20
WORK=${TMPDIR:-/tmp}/forumdex-bench-depth
BIN=
while [ $# -gt 0 ]; do
    case "$1" in
        --posts) POSTS=$2; shift 2 ;;
        --topic-posts) TOPIC_POSTS=$2; shift 2 ;;
        --seconds) SECS=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --bin) BIN=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/forumdex_bench_depth}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/6}
if [ -z "$BIN" ]; then
    cargo build --release -p forumdex -p forumdex-bench
    BIN=$ROOT/target/release
fi
FDX=$BIN/forumdex
LOAD=$BIN/fdx-load
rm -rf "$WORK"
mkdir -p "$WORK"
RESULTS=$WORK/results.jsonl
record() { jq -c --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '. + {load: $load}' <<< "$1" \
    | tee -a "$RESULTS"; }
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; commit $(git rev-parse --short HEAD); posts $POSTS, topic $TOPIC_POSTS" \
    | tee "$WORK/machine.txt"
export FORUMDEX_STORAGE=postgres FORUMDEX_DATABASE_URL=$DATABASE_URL FORUMDEX_REDIS_URL=$REDIS_URL
export FORUMDEX_CURSOR_SECRET_FILE=$WORK/cursor-secret FORUMDEX_IMAGES_URL=$WORK/images

# 1. The schema and a small real import (sequence 1).
DB_NAME=${DATABASE_URL##*/}
psql "${DATABASE_URL%/*}/postgres" -qc "DROP DATABASE IF EXISTS $DB_NAME" -c "CREATE DATABASE $DB_NAME"
"$FDX" --data "$WORK/node" --json db migrate > /dev/null
"$FDX" generate --posts 2000 --out "$WORK/small.jsonl" --json > /dev/null
"$FDX" --data "$WORK/node" --json import "$WORK/small.jsonl" > /dev/null

# 2. The synthetic rows, at sequence 1. Post ids, topic ids and author ids start far above
# the generated corpus's; one post a minute from 2015-01-01.
TOPIC=900000000
start=$(date +%s.%N)
psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -q <<SQL
INSERT INTO post_versions (valid_from, observed_at, sha256, indexed_at, post_id, topic_id,
    board_id, post_number, is_op, title, author_id, author_name, posted_at, sort_at,
    content_html, language, merit_total, merit_distinct, merit_tx)
SELECT 1, 1420070400000, sha256(g::text::bytea), 1420070400000, 900000000 + g,
    CASE WHEN g <= $TOPIC_POSTS THEN $TOPIC ELSE $TOPIC + 1 + (g - $TOPIC_POSTS - 1) / 100 END,
    1, CASE WHEN g <= $TOPIC_POSTS THEN g ELSE (g - $TOPIC_POSTS - 1) % 100 + 1 END,
    g = 1 OR (g > $TOPIC_POSTS AND (g - $TOPIC_POSTS - 1) % 100 = 0),
    'Synthetic topic ' || (g / 100), 900000000 + g % 10000, 'author' || (g % 10000),
    1420070400000 + g * 60000, 1420070400000 + g * 60000,
    '<p>Synthetic post ' || g || ': ' || repeat('lorem ipsum dolor sit amet ', 10) || '</p>',
    'en', g % 7, g % 3, g % 5
FROM generate_series(1::BIGINT, $POSTS) AS g;
SQL
end=$(date +%s.%N)
record "$(jq -nc --argjson s "$(echo "$end - $start" | bc)" --argjson n "$POSTS" \
    '{label: "synthetic-rows", posts: $n, wall_s: ($s * 10 | round / 10)}')"
psql "$DATABASE_URL" -qc "VACUUM ANALYZE post_versions"
record "$(psql "$DATABASE_URL" -At -c "SELECT json_build_object('label', 'sizes',
    'posts', (SELECT count(*) FROM post_versions),
    'table_mib', pg_table_size('post_versions') / 1048576,
    'indexes_mib', pg_indexes_size('post_versions') / 1048576)")"

# 3. One node; the walk, then the loads.
ACCOUNT=$("$FDX" --data "$WORK/node" accounts create --email depth@example.com \
    --credits 1000000000 --json | jq -r .account_id)
KEY=$("$FDX" --data "$WORK/node" keys create --account "$ACCOUNT" --json | jq -r .key)
FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$FDX" --data "$WORK/node" serve \
    --listen 127.0.0.1:38621 2> "$WORK/serve.log" &
SERVER=$!
trap 'kill $SERVER 2> /dev/null || true' EXIT
for _ in $(seq 1 600); do
    curl -fs http://127.0.0.1:38621/readyz > /dev/null 2>&1 && break
    sleep 0.1
done
mkdir -p "$WORK/pages"
start=$(date +%s.%N)
"$LOAD" walk --addr 127.0.0.1:38621 --key "$KEY" --topic "$TOPIC" --out "$WORK/pages"
end=$(date +%s.%N)
record "$(jq -nc --argjson s "$(echo "$end - $start" | bc)" --argjson n "$TOPIC_POSTS" \
    '{label: "walk", topic_posts: $n, wall_s: ($s * 10 | round / 10)}')"
for conc in 1 8; do
    for label in pages-start pages-end; do
        record "$("$LOAD" run --addr 127.0.0.1:38621 --key "$KEY" --paths "$WORK/pages/$label.paths" \
            --label "$label" --concurrency "$conc" --seconds "$SECS" --pid "$SERVER")"
    done
done
