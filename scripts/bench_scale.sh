#!/usr/bin/env bash
# The scale benchmark (issue 40; figures and how to read them: BENCHMARKS.md "The whole
# forum"): import and search the real 1.4M corpus grown to each size in --sizes, one data
# folder per size, the same queries at every size.
#
#   scripts/bench_scale.sh [--sizes "2000000 6000000 20000000"] [--seconds S] [--work DIR]
#                          [--bin DIR] [--postgres-size N] [--keep] [--memory-cap]
#                          [--import-only | --postgres-only]
#
# The corpus: copy 0 is ../shared/data/bitcointalk-1.4m.jsonl.gz as it is; copy K shifts the
# topic, post and profile IDs by K * 100,000,000 and varies one word in ten of the
# vocabulary (scripts/scale_corpus.py says how), so the grown corpus keeps a real forum's
# term statistics rather than the same texts over and over. A size between whole copies
# takes the first posts of the next copy. Copies are written once under $WORK/corpus
# (zstd) and reused by every size and every run.
#
# For each size:
#   1. `forumdex import` of every file into a new folder, under /usr/bin/time: CPU (user +
#      sys) per post, peak RSS, wall, and the folder's size;
#   2. the engine in process (fdx-engine, the built-in real query mix, lexical) at 1 and 2
#      threads: what the index costs without HTTP;
#   3. over HTTP (scripts/bench_search.sh): the 200 known-item queries of
#      crates/forumdex-search/relevance/known-items-1.4m.tsv as typed and with lang=en at
#      c=1 and c=2, topic and mixed lookups at c=4;
#   4. pages at depth: every page of the largest topic walked, then its last 10 pages at c=1.
# Search runs lexical (semantic_model = off): the semantic leg has its own figures
# (BENCHMARKS.md "Semantic search in the service").
# With --memory-cap, step 1 runs in a memory cgroup capped at the import's `memory_limit`
# ($FORUMDEX_MEMORY_LIMIT in bytes, default 1.5 GiB; root and the cgroup v1 or v2 memory
# controller needed): the kernel then keeps the mapped index files' pages within the cap
# too, and the import's own (anonymous) memory is sampled every second.
# --import-only stops after step 1 (with --keep, the folder serves a later --postgres-only).
# With --postgres-size N (N one of the sizes): the same files imported into PostgreSQL
# storage (a database this script empties, $DATABASE_URL, default
# postgres://postgres@127.0.0.1:5432/forumdex_bench_scale) under /usr/bin/time, a new
# node's search replica built from it (`forumdex reindex`, timed), then the lookups of
# step 3 against that node. --postgres-only skips steps 1-4 and takes the lookups from the
# folder an earlier --keep run left for the size.
# Every figure is one JSON line in $WORK/results.jsonl with its size. Each folder is removed
# after its size unless --keep. Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=${BENCH_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ROOT/scripts/run_from_copy.sh"
SIZES="2000000 6000000 20000000"
SECS=15
WORK=${TMPDIR:-/tmp}/forumdex-bench-scale
BIN=
PG_SIZE=
KEEP=
CAP=
ONLY=
while [ $# -gt 0 ]; do
    case "$1" in
        --sizes) SIZES=$2; shift 2 ;;
        --seconds) SECS=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --bin) BIN=$2; shift 2 ;;
        --postgres-size) PG_SIZE=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --memory-cap) CAP=${FORUMDEX_MEMORY_LIMIT:-1610612736}; shift ;;
        --import-only) ONLY=import; shift ;;
        --postgres-only) ONLY=postgres; shift ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
SOURCE=$ROOT/../shared/data/bitcointalk-1.4m.jsonl.gz
QUERIES=$ROOT/crates/forumdex-search/relevance/known-items-1.4m.tsv
[ -r "$SOURCE" ] || { echo "$SOURCE is missing (../shared/data)" >&2; exit 2; }
if [ -z "$BIN" ]; then
    cargo build --release -p forumdex -p forumdex-bench
    BIN=$ROOT/target/release
fi
FDX=$BIN/forumdex
export FORUMDEX_SEMANTIC_MODEL=off
mkdir -p "$WORK/corpus"
RESULTS=$WORK/results.jsonl
record() { jq -c --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '. + {load: $load}' <<< "$1" \
    | tee -a "$RESULTS"; }
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; commit $(git rev-parse --short HEAD); sizes $SIZES" \
    | tee -a "$WORK/machine.txt"

# The posts of one copy, counted once.
if [ ! -s "$WORK/corpus/posts-per-copy" ]; then
    zcat "$SOURCE" | grep -c '"kind":"post"' > "$WORK/corpus/posts-per-copy"
fi
PER_COPY=$(cat "$WORK/corpus/posts-per-copy")

# Writes one corpus file (copy K, whole or its first N posts) unless it is there.
make_copy() {
    local copy=$1 posts=$2 file=$3
    [ -s "$file" ] && return 0
    local limit=()
    [ "$posts" -lt "$PER_COPY" ] && limit=(--max-posts "$posts")
    python3 "$ROOT/scripts/scale_corpus.py" --input "$SOURCE" --copy "$copy" "${limit[@]}" \
        | zstd -q -1 -T1 -o "$file.part"
    mv "$file.part" "$file"
}

# Prints the files of a corpus of SIZE posts, writing those missing two at a time.
corpus_files() {
    local size=$1 copy=0 left=$1 files=() file posts
    while [ "$left" -gt 0 ]; do
        if [ "$left" -ge "$PER_COPY" ]; then
            posts=$PER_COPY
            file=$WORK/corpus/copy-$copy.jsonl.zst
        else
            posts=$left
            file=$WORK/corpus/copy-$copy-first-$posts.jsonl.zst
        fi
        files+=("$file")
        if [ ! -s "$file" ]; then
            make_copy "$copy" "$posts" "$file" &
            [ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
        fi
        left=$((left - posts))
        copy=$((copy + 1))
    done
    wait
    printf '%s\n' "${files[@]}"
}

# CPU seconds the whole machine has spent busy (every process: PostgreSQL's too).
machine_cpu() { awk '/^cpu / {printf "%.2f", ($2 + $3 + $4 + $7 + $8) / 100}' /proc/stat; }

# Imports FILES into a new folder (or PostgreSQL) and records the cost: the importer's own
# CPU and peak RSS, and the machine's CPU over the same time (PostgreSQL's work included).
import() {
    local label=$1 size=$2 data=$3
    shift 3
    mkdir -p -m 700 "$data"
    local before cgroup= anon=0
    before=$(machine_cpu)
    [ -n "$CAP" ] && [ "$label" = import ] && cgroup=$(make_cgroup "$CAP")
    (
        [ -z "$cgroup" ] || echo "$BASHPID" > "$cgroup/cgroup.procs"
        exec /usr/bin/time -f '%U %S %M %e' -o "$WORK/time.txt" \
            "$FDX" --data "$data" --json import "$@" > "$WORK/import.json"
    ) &
    local importing=$!
    local now cap=null
    while [ -n "$cgroup" ] && kill -0 "$importing" 2> /dev/null; do
        now=$(cgroup_anon "$cgroup")
        [ "$now" -gt "$anon" ] && anon=$now
        sleep 1
    done
    wait "$importing"
    [ -z "$cgroup" ] || cap=$CAP
    local machine
    machine=$(echo "$(machine_cpu) - $before" | bc)
    read -r user sys rss_kib wall < "$WORK/time.txt"
    record "$(jq -c --arg name "$label" --argjson size "$size" --argjson user "$user" \
        --argjson sys "$sys" --argjson rss "$rss_kib" --argjson wall "$wall" \
        --argjson machine "$machine" --argjson bytes "$(du -sb "$data" | cut -f1)" \
        --argjson cap "$cap" --argjson anon "$anon" \
        '{label: $name, size: $size, posts: .posts, user_s: $user, sys_s: $sys,
          cpu_us_per_post: (($user + $sys) * 1e6 / .posts | round),
          machine_cpu_us_per_post: ($machine * 1e6 / .posts | round),
          peak_rss_mib: ($rss / 1024 | round), wall_s: $wall,
          folder_mib: ($bytes / 1048576 | round)}
         + if $cap == null then {} else {memory_cap_mib: ($cap / 1048576 | round),
             peak_anon_mib: ($anon / 1048576 | round)} end' "$WORK/import.json")"
    [ -z "$cgroup" ] || rmdir "$cgroup"
}

# A new memory cgroup capped at BYTES (cgroup v2, else v1's memory controller); prints it.
make_cgroup() {
    local cgroup
    if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        cgroup=/sys/fs/cgroup/forumdex-bench-scale
        mkdir -p "$cgroup" && echo "$1" > "$cgroup/memory.max"
    else
        cgroup=/sys/fs/cgroup/memory/forumdex-bench-scale
        mkdir -p "$cgroup" && echo "$1" > "$cgroup/memory.limit_in_bytes"
    fi
    echo "$cgroup"
}

# The anonymous memory of the processes of a cgroup, in bytes.
cgroup_anon() {
    awk '$1 == "anon" || $1 == "rss" {print $2; exit}' "$1/memory.stat"
}

serve() {
    local data=$1 addr=$2
    FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$FDX" --data "$data" serve --listen "$addr" \
        2> "$WORK/serve.log" &
    SERVER=$!
    for _ in $(seq 1 3000); do
        curl -fs "http://$addr/readyz" > /dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the server at $addr never became ready" >&2
    exit 1
}

for size in $SIZES; do
    mapfile -t files < <(corpus_files "$size")
    data=$WORK/data-$size
    if [ "$ONLY" = postgres ]; then
        [ -d "$data" ] || { echo "--postgres-only needs $data (an earlier run with --keep)" >&2; exit 2; }
        "$BIN/fdx-load" paths --data "$data" --out "$data/bench/search" --queries "$QUERIES"
        grep '/topics/' "$data/bench/search/lookups.paths" > "$data/bench/search/topics.paths"
    else
        rm -rf "$data"
        import import "$size" "$data" "${files[@]}"
        if [ "$ONLY" = import ]; then
            [ -n "$KEEP" ] || rm -rf "$data"
            continue
        fi

        # 2. The engine in process.
        for threads in 1 2; do
            record "$(FDX_LEXICAL=1 "$BIN/fdx-engine" forumdex --data "$data" --threads "$threads" \
                --seconds "$SECS" | jq -c --argjson size "$size" --argjson t "$threads" \
                '. + {label: "engine", size: $size, threads: $t}')"
        done

        # 3. Search and lookups over HTTP.
        BENCH_PORT=38531 "$ROOT/scripts/bench_search.sh" --data "$data" --queries "$QUERIES" \
            --bin "$BIN" --seconds "$SECS" | while read -r line; do
            record "$(jq -c --argjson size "$size" '. + {size: $size}' <<< "$line")"
        done

        # 4. Pages at depth.
        serve "$data" 127.0.0.1:38532
        key=$(cat "$data/bench/search/key")
        read -r topic topic_posts < "$data/bench/search/topic.txt"
        mkdir -p "$data/bench/pages"
        "$BIN/fdx-load" walk --addr 127.0.0.1:38532 --key "$key" --topic "$topic" --keep 10 \
            --out "$data/bench/pages"
        record "$("$BIN/fdx-load" run --addr 127.0.0.1:38532 --key "$key" \
            --paths "$data/bench/pages/pages-end.paths" --label pages-end --concurrency 1 \
            --seconds "$SECS" --pid "$SERVER" \
            | jq -c --argjson size "$size" --argjson n "$topic_posts" \
                '. + {size: $size, topic_posts: $n}')"
        kill "$SERVER"
        wait "$SERVER" 2> /dev/null || true
    fi

    # PostgreSQL storage at one size: import, a new node's replica, lookups.
    if [ "$size" = "$PG_SIZE" ]; then
        DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/forumdex_bench_scale}
        db=${DATABASE_URL##*/}
        psql "${DATABASE_URL%/*}/postgres" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
        (
            export FORUMDEX_STORAGE=postgres FORUMDEX_DATABASE_URL=$DATABASE_URL
            export FORUMDEX_REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/7}
            export FORUMDEX_CURSOR_SECRET_FILE=$WORK/cursor-secret FORUMDEX_IMAGES_URL=$WORK/images
            pg=$WORK/pg-$size
            rm -rf "$pg"
            "$FDX" --data "$pg" --json db migrate > /dev/null
            import import-postgres "$size" "$pg" "${files[@]}"
            /usr/bin/time -f '%U %S %M %e' -o "$WORK/time.txt" \
                "$FDX" --data "$pg" --json reindex > /dev/null
            read -r user sys rss_kib wall < "$WORK/time.txt"
            record "$(jq -nc --argjson size "$size" --argjson user "$user" --argjson sys "$sys" \
                --argjson rss "$rss_kib" --argjson wall "$wall" \
                '{label: "postgres-replica", size: $size, user_s: $user, sys_s: $sys,
                  peak_rss_mib: ($rss / 1024 | round), wall_s: $wall}')"
            account=$("$FDX" --data "$pg" accounts create --email scale@example.com \
                --credits 1000000000 --json | jq -r .account_id)
            key=$("$FDX" --data "$pg" keys create --account "$account" --json | jq -r .key)
            serve "$pg" 127.0.0.1:38533
            for paths in topics lookups; do
                record "$("$BIN/fdx-load" run --addr 127.0.0.1:38533 --key "$key" \
                    --paths "$data/bench/search/$paths.paths" --label "postgres-$paths-c4" \
                    --concurrency 4 --seconds "$SECS" --pid "$SERVER" \
                    | jq -c --argjson size "$size" '. + {size: $size}')"
            done
            kill "$SERVER"
            wait "$SERVER" 2> /dev/null || true
            [ -n "$KEEP" ] || rm -rf "$pg"
        )
    fi
    [ -n "$KEEP" ] || rm -rf "$data"
done
echo "results: $RESULTS"
