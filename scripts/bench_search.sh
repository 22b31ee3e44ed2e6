#!/usr/bin/env bash
# Search latency over HTTP on one data folder (BENCHMARKS.md "Search at real scale"): the
# queries of a query file, each as typed and with `&lang=en`, at concurrency 1 and 2, plus
# topic and post lookups at concurrency 4, against `forumdex serve` with the rate limit
# lifted. One JSON line per scenario (fdx-load's), with the query file and the load average.
#
#   scripts/bench_search.sh --data DIR --queries FILE [--bin DIR] [--seconds S]
#
# DIR is an imported data folder (it gains an account, a key and bench/ files); FILE is a
# `forumdex relevance` query file. With the semantic model on, the load starts once every
# post has its vector (a folder never embedded is embedded first, by the node's job).
# Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/bench_server.sh"
SECS=15
search_bench_args "$@"
ADDR=127.0.0.1:${BENCH_PORT:-38519}
OUT=$DATA/bench/search
mkdir -p "$OUT"
"$BIN/fdx-load" paths --data "$DATA" --out "$OUT" --queries "$QUERIES"
"$BIN/fdx-load" paths --data "$DATA" --out "$OUT/en" --queries "$QUERIES" --lang en
bench_key "$DATA" "$OUT" bench-search@example.com
# Topic lookups of the largest topics first, then posts: the paths file holds both kinds.
grep '/topics/' "$OUT/lookups.paths" > "$OUT/topics.paths"
FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$BIN/forumdex" --data "$DATA" serve --listen "$ADDR" \
    2> /dev/null &
SERVER=$!
trap 'kill $SERVER 2> /dev/null || true' EXIT
wait_ready "$ADDR"
wait_embedded "$ADDR"
run() {
    local label=$1 paths=$2 conc=$3
    "$BIN/fdx-load" run --addr "$ADDR" --key "$(cat "$OUT/key")" --paths "$paths" \
        --label "$label" --concurrency "$conc" --seconds "$SECS" --warmup 3 --pid "$SERVER" \
        | jq -c --arg queries "$(basename "$QUERIES")" --arg load "$(cut -d' ' -f1 /proc/loadavg)" \
            '. + {queries: $queries, load_before: $load}'
}
run search-c1 "$OUT/search.paths" 1
run search-c2 "$OUT/search.paths" 2
run search-en-c1 "$OUT/en/search.paths" 1
run search-en-c2 "$OUT/en/search.paths" 2
run topics-c4 "$OUT/topics.paths" 4
run lookups-c4 "$OUT/lookups.paths" 4
