#!/usr/bin/env bash
# The performance benchmark (issue 8; figures and how to read them: BENCHMARKS.md).
#
#   scripts/bench.sh [--posts N] [--seconds S] [--concurrency C] [--work DIR] [--skip-import]
#                    [--bin DIR]   (prebuilt forumdex, fdx-load, fdx-engine; default: build release)
#
# In one run, for a generated corpus of N posts (default 1,000,000) and, when
# ../shared/data/bitcointalk-sample.jsonl.gz exists, the real sample:
#   1. import (`forumdex import`, which commits the corpus and then brings the search
#      indexes up to date): wall time, posts/s, peak RSS; then `forumdex reindex` alone,
#      which gives the indexing share;
#   2. serve, and load it over HTTP from a second process (fdx-load, C keep-alive
#      connections, closed loop, S seconds after 3 s of warm-up): search, lookups, and (on
#      the generated corpus) collection pages of 100 posts at the start and at the end of the
#      largest topic (100,000 posts); requests/s, p50/p99/p99.9, server RSS under load;
#   3. the same search queries on bare tantivy (the same index, in process) and on SQLite
#      FTS5 over the same posts (fdx-engine, 2 threads), and the ratios.
# Every figure is one JSON line in $WORK/results.jsonl with the load average and the
# hypervisor's steal time beside it; a table is printed at the end. Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=${BENCH_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ROOT/scripts/run_from_copy.sh"
POSTS=1000000
SECS=20
CONC=8
WORK=${TMPDIR:-/tmp}/forumdex-bench
SKIP_IMPORT=0
BIN=
while [ $# -gt 0 ]; do
    case "$1" in
        --posts) POSTS=$2; shift 2 ;;
        --seconds) SECS=$2; shift 2 ;;
        --concurrency) CONC=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --skip-import) SKIP_IMPORT=1; shift ;;
        --bin) BIN=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
PORT=${BENCH_PORT:-38517}
ADDR=127.0.0.1:$PORT
SAMPLE=$ROOT/../shared/data/bitcointalk-sample.jsonl.gz
mkdir -p "$WORK"
RESULTS=$WORK/results.jsonl
[ "$SKIP_IMPORT" = 1 ] || : > "$RESULTS"

if [ -z "$BIN" ]; then
    cargo build --release -p forumdex -p forumdex-bench
    BIN=$ROOT/target/release
fi
FDX=$BIN/forumdex
LOAD=$BIN/fdx-load
ENGINE=$BIN/fdx-engine

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }
# CPU time the hypervisor gave to other machines, in USER_HZ ticks (all cores, cumulative):
# the table turns it into a share of the time between two lines.
steal_ticks() { awk '/^cpu /{print $9}' /proc/stat; }
# Appends a JSON object (given as the second argument) with the corpus, load average,
# steal ticks and time.
record() {
    jq -c --arg corpus "$1" --arg load "$(load_avg)" --argjson steal "$(steal_ticks)" \
        --argjson at "$(date +%s)" --argjson cores "$(nproc)" \
        '. + {corpus: $corpus, load: $load, steal_ticks: $steal, at: $at, cores: $cores}' \
        <<< "$2" | tee -a "$RESULTS"
}

{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
        "$(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo '+dirty')"
    echo "posts: $POSTS, seconds: $SECS, concurrency: $CONC, started $(date -u +%FT%TZ), load $(load_avg)"
    echo "steal_ticks: $(steal_ticks) at $(date +%s)"
} | tee "$WORK/machine.txt"

# import NAME FILE: a fresh data folder, `forumdex import` then `forumdex reindex`, timed.
import() {
    local name=$1 file=$2 data=$WORK/$1
    rm -rf "$data"
    local load_before; load_before=$(load_avg)
    /usr/bin/time -f '%e %M %U %S' -o "$WORK/$name.import.time" \
        "$FDX" --data "$data" import --json "$file" > "$WORK/$name.import.json"
    read -r wall rss user sys < "$WORK/$name.import.time"
    /usr/bin/time -f '%e %M %U %S' -o "$WORK/$name.reindex.time" \
        "$FDX" --data "$data" reindex --json > "$WORK/$name.reindex.json"
    read -r rwall rrss ruser rsys < "$WORK/$name.reindex.time"
    record "$name" "$(jq -c --argjson wall "$wall" --argjson rss "$rss" --argjson user "$user" --argjson sys "$sys" \
        --argjson rwall "$rwall" --argjson rrss "$rrss" --argjson ruser "$ruser" --argjson rsys "$rsys" \
        --arg lb "$load_before" '{
        label: "import", post_records: .posts, lines: .accepted, wall_s: $wall, cpu_s: ($user + $sys),
        posts_per_s: ((.posts / $wall) | round), peak_rss_mib: (($rss / 1024) | round),
        reindex_wall_s: $rwall, reindex_cpu_s: ($ruser + $rsys), reindex_peak_rss_mib: (($rrss / 1024) | round),
        posts_per_2_core_cpu_s: ((.posts / (($user + $sys) / 2)) | round), load_before: $lb}' \
        "$WORK/$name.import.json")"
}

# serve_and_load NAME PAGES(0|1): key, server, HTTP scenarios, server stopped.
serve_and_load() {
    local name=$1 pages=$2 data=$WORK/$1
    local account key
    account=$("$FDX" --data "$data" accounts create --email bench@example.com --credits 1000000000 --json | jq -r .account_id)
    key=$("$FDX" --data "$data" keys create --account "$account" --name bench --json | jq -r .key)
    "$LOAD" paths --data "$data" --out "$data/bench"
    FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$FDX" --data "$data" serve --listen "$ADDR" \
        2> "$WORK/$name.serve.log" &
    local server=$!
    for _ in $(seq 1 600); do
        kill -0 "$server" 2> /dev/null || { cat "$WORK/$name.serve.log" >&2; exit 1; }
        curl -fs "http://$ADDR/readyz" > /dev/null 2>&1 && break
        sleep 0.1
    done
    run() {
        record "$name" "$("$LOAD" run --addr "$ADDR" --key "$key" --paths "$1" --label "$2" \
            --concurrency "${3:-$CONC}" --seconds "$SECS" --pid "$server")"
    }
    run "$data/bench/search.paths" search
    run "$data/bench/lookups.paths" lookups
    if [ "$pages" = 1 ]; then
        "$LOAD" walk --addr "$ADDR" --key "$key" --topic "$(cut -d' ' -f1 "$data/bench/topic.txt")" \
            --out "$data/bench"
        run "$data/bench/pages-start.paths" pages-start
        run "$data/bench/pages-end.paths" pages-end
        # Latency without queueing: one request at a time.
        run "$data/bench/pages-start.paths" pages-start-c1 1
        run "$data/bench/pages-end.paths" pages-end-c1 1
    fi
    kill "$server"
    wait "$server" || true
}

engines() {
    local name=$1 data=$WORK/$1
    record "$name" "$("$ENGINE" tantivy --data "$data" --seconds "$SECS" | jq -c 'del(.totals)')"
    record "$name" "$("$ENGINE" fts5-build --data "$data")"
    record "$name" "$("$ENGINE" fts5 --data "$data" --seconds "$SECS" | jq -c 'del(.totals)')"
}

CORPORA=(generated)
if [ "$SKIP_IMPORT" = 0 ]; then
    mkdir -p "$WORK/corpus"
    if [ ! -s "$WORK/corpus/generated-$POSTS.jsonl" ]; then
        "$FDX" generate --posts "$POSTS" --out "$WORK/corpus/generated-$POSTS.jsonl" --json > /dev/null
    fi
    import generated "$WORK/corpus/generated-$POSTS.jsonl"
fi
if [ -f "$SAMPLE" ]; then
    CORPORA+=(real)
    [ "$SKIP_IMPORT" = 0 ] && import real "$SAMPLE"
fi
for corpus in "${CORPORA[@]}"; do
    if [ "$corpus" = generated ]; then serve_and_load "$corpus" 1; else serve_and_load "$corpus" 0; fi
    engines "$corpus"
done

python3 "$ROOT/scripts/bench_table.py" "$RESULTS"
