#!/usr/bin/env bash
# Interleaved A/B of two builds on the data folders of a `scripts/bench.sh` run (BENCHMARKS.md
# "Before and after"). On a shared virtual machine the speed of the cores moves between runs
# minutes apart (steal time), so a change is measured by alternating the two builds on the
# same data, scenario by scenario, and an import of the generated corpus by each, twice.
#
#   scripts/bench_ab.sh --base DIR --new DIR [--work DIR] [--seconds S] [--rounds N]
#
# DIRs hold `forumdex` and `fdx-load` of each build. --work is the bench.sh work folder
# (default $TMPDIR/forumdex-bench), which must hold `generated` (and may hold `real`) data
# folders and `corpus/generated-*.jsonl`. One JSON line per measurement goes to
# $WORK/ab.jsonl (with the steal ticks the hypervisor took during it); a summary of
# medians is printed at the end. Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=
NEW=
WORK=${TMPDIR:-/tmp}/forumdex-bench
SECS=15
ROUNDS=2
while [ $# -gt 0 ]; do
    case "$1" in
        --base) BASE=$2; shift 2 ;;
        --new) NEW=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --seconds) SECS=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$BASE" ] && [ -n "$NEW" ] || { echo "--base and --new are required" >&2; exit 2; }
PORT=${BENCH_PORT:-38518}
ADDR=127.0.0.1:$PORT
OUT=$WORK/ab.jsonl
: > "$OUT"

steal() { awk '/^cpu /{print $9}' /proc/stat; }

# start_server BIN DATA: serves DATA in the background; sets SERVER.
start_server() {
    FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$1/forumdex" --data "$2" serve --listen "$ADDR" \
        2> /dev/null &
    SERVER=$!
    for _ in $(seq 1 600); do
        curl -fs "http://$ADDR/readyz" > /dev/null 2>&1 && return
        sleep 0.1
    done
    echo "the server on $2 did not start" >&2
    exit 1
}

stop_server() {
    kill "$SERVER"
    wait "$SERVER" 2> /dev/null || true
}

# prepare DATA: an account and key of its own.
prepare() {
    local data=$1 account
    account=$("$NEW/forumdex" --data "$data" accounts create --email ab@example.com \
        --credits 1000000000 --json | jq -r .account_id)
    "$NEW/forumdex" --data "$data" keys create --account "$account" --name ab --json \
        | jq -r .key > "$data/bench/ab.key"
    chmod 600 "$data/bench/ab.key"
}

# measure BUILD BIN DATA CORPUS PATHS LABEL CONCURRENCY: PATHS under $DATA/bench/ab are
# collection pages, whose cursors are made just before (they expire after 5 idle minutes).
measure() {
    local build=$1 bin=$2 data=$3 corpus=$4 paths=$5 label=$6 conc=$7 before out
    start_server "$bin" "$data"
    if [[ "$paths" == "$data/bench/ab/"* ]]; then
        mkdir -p "$data/bench/ab"
        "$bin/fdx-load" walk --addr "$ADDR" --key "$(cat "$data/bench/ab.key")" \
            --topic "$(cut -d' ' -f1 "$data/bench/topic.txt")" --out "$data/bench/ab" > /dev/null
    fi
    before=$(steal)
    out=$("$bin/fdx-load" run --addr "$ADDR" --key "$(cat "$data/bench/ab.key")" --paths "$paths" \
        --label "$label" --concurrency "$conc" --seconds "$SECS" --pid "$SERVER")
    jq -c --arg build "$build" --arg corpus "$corpus" --argjson steal "$(($(steal) - before))" \
        '. + {build: $build, corpus: $corpus, steal_ticks: $steal}' <<< "$out" | tee -a "$OUT"
    stop_server
}

CORPORA=(generated)
[ -d "$WORK/real" ] && CORPORA+=(real)
for corpus in "${CORPORA[@]}"; do prepare "$WORK/$corpus"; done
for _ in $(seq 1 "$ROUNDS"); do
    for build in base new; do
        bin=$BASE
        [ "$build" = new ] && bin=$NEW
        for corpus in "${CORPORA[@]}"; do
            data=$WORK/$corpus
            measure "$build" "$bin" "$data" "$corpus" "$data/bench/lookups.paths" lookups 8
            measure "$build" "$bin" "$data" "$corpus" "$data/bench/search.paths" search 8
            if [ "$corpus" = generated ]; then
                measure "$build" "$bin" "$data" "$corpus" "$data/bench/ab/pages-end.paths" pages-end 8
                measure "$build" "$bin" "$data" "$corpus" "$data/bench/ab/pages-end.paths" pages-end-c1 1
            fi
        done
    done
done
CORPUS_FILE=$(ls "$WORK"/corpus/generated-*.jsonl | head -1)
for _ in $(seq 1 "$ROUNDS"); do
    for build in base new; do
        bin=$BASE
        [ "$build" = new ] && bin=$NEW
        rm -rf "$WORK/ab-import"
        before=$(steal)
        /usr/bin/time -f '%e %M %U %S' -o "$WORK/ab-import.time" \
            "$bin/forumdex" --data "$WORK/ab-import" import --json "$CORPUS_FILE" > "$WORK/ab-import.json"
        read -r wall rss user sys < "$WORK/ab-import.time"
        jq -c --arg build "$build" --argjson wall "$wall" --argjson rss "$rss" --argjson user "$user" \
            --argjson sys "$sys" --argjson steal "$(($(steal) - before))" \
            '{label: "import", corpus: "generated", build: $build, post_records: .posts, wall_s: $wall,
              posts_per_s: ((.posts / $wall) | round), cpu_s: ($user + $sys),
              peak_rss_mib: (($rss / 1024) | round), steal_ticks: $steal}' \
            "$WORK/ab-import.json" | tee -a "$OUT"
    done
done
rm -rf "$WORK/ab-import"
python3 "$ROOT/scripts/bench_ab_table.py" "$OUT"
