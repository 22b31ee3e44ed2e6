#!/usr/bin/env bash
# Search latency while the background job embeds the corpus (issue 37; figures: BENCHMARKS.md
# "Search while the corpus embeds"): `forumdex serve` on a data folder whose posts have no
# vectors yet, the queries of a query file at concurrency 1 from the moment the node is
# ready, while `/readyz` says how much of the corpus is embedded; then the same load once
# every post has its vector.
#
#   scripts/bench_embed_load.sh --data DIR --queries FILE [--bin DIR] [--seconds S]
#
# DIR is an imported data folder; its vectors (search/*/semantic/, and the ones kept with the
# corpus, vectors.sqlite) are removed first, so the job starts from nothing; with
# KEEP_STORED_VECTORS=1 vectors.sqlite is kept, and the job reads them (a node whose segments
# were merged, or a second node). It gains an account, a key and bench/ files. One JSON line per
# phase (fdx-load's, plus the coverage at its start and end), then the job's wall time.
# Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/bench_server.sh"
SECS=10
search_bench_args "$@"
ADDR=127.0.0.1:${BENCH_PORT:-38521}
OUT=$DATA/bench/embed-load
mkdir -p "$OUT"
"$BIN/fdx-load" paths --data "$DATA" --out "$OUT" --queries "$QUERIES" > /dev/null
bench_key "$DATA" "$OUT" bench-embed@example.com
rm -rf "$DATA"/search/*/semantic
if [ -z "${KEEP_STORED_VECTORS:-}" ]; then rm -f "$DATA"/vectors.sqlite*; fi
FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 FORUMDEX_SEMANTIC_MODEL=bundled \
    "$BIN/forumdex" --data "$DATA" serve --listen "$ADDR" 2> "$OUT/serve.log" &
SERVER=$!
trap 'kill $SERVER 2> /dev/null || true' EXIT
wait_ready "$ADDR"
started=$(date +%s.%N)
coverage() { curl -fs "http://$ADDR/readyz" | jq -c '.semantic | {embedded, docs, coverage}'; }
run() {
    local label=$1 before
    before=$(coverage)
    "$BIN/fdx-load" run --addr "$ADDR" --key "$(cat "$OUT/key")" --paths "$OUT/search.paths" \
        --label "$label" --concurrency 1 --seconds "$SECS" --warmup 0 --pid "$SERVER" \
        | jq -c --argjson before "$before" --argjson after "$(coverage)" \
            --arg queries "$(basename "$QUERIES")" \
            '. + {queries: $queries, coverage_before: $before, coverage_after: $after}'
}
run search-c1-while-embedding
until [ "$(curl -fs "http://$ADDR/readyz" | jq '.semantic.coverage')" = 1 ]; do sleep 0.5; done
jq -cn --arg s "$(echo "$(date +%s.%N) - $started" | bc)" \
    '{label: "embedding-job", wall_s: ($s | tonumber | . * 10 | round / 10)}'
run search-c1-embedded
