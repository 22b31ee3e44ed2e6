#!/usr/bin/env bash
# A soak run (issue 41; figures and how to read them: BENCHMARKS.md "Soak").
#
#   scripts/soak.sh [--corpus FILE] [--minutes M] [--work DIR] [--bin DIR] [--reuse]
#
# For M minutes (default 10) of mixed traffic on one embedded node serving the real corpus
# (default ../shared/data/bitcointalk-1.4m.jsonl.gz; --reuse keeps an already imported
# $WORK/data): searches, lookups, pages of a topic, image searches and the dashboard's public
# pages, each by its own fdx-load (closed loop, keep-alive connections that reconnect when
# the node is gone). Meanwhile: an import of the 100k sample into the same data folder, a
# crawl of the saved SMF pages served by a local fixture forum, a burst of 1,000 connections
# searching for 20 s (the node sheds what it cannot take with 503; its memory must stay under
# memory_limit and come back after), and at the half-way mark the node is killed (SIGKILL)
# and started again.
#
# It reports, one JSON line each in $WORK/results.jsonl: every load's requests, answers by
# status, p50/p99 latency (the pages: the worst of its stretches); the node's resident memory sampled every 5 s ($WORK/rss.tsv:
# seconds, MiB, pid); the import's and the crawl's outcomes; the burst's answers and the
# node's memory before, at most during, and 30 s after it; and the ledger check: the
# credits the account lost against the 200 answers counted on paid routes (a request the
# node charged as the kill struck, whose answer was lost with the connection, is the only
# allowed difference, at most one per connection). Nothing here runs in CI (.ci/run).
set -euo pipefail
ROOT=${BENCH_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ROOT/scripts/run_from_copy.sh"
SHARED=$ROOT/../shared/data
CORPUS=$SHARED/bitcointalk-1.4m.jsonl.gz
SAMPLE=$SHARED/bitcointalk-sample.jsonl.gz
PAGES=$SHARED/smf-pages
MINUTES=10
WORK=${TMPDIR:-/tmp}/forumdex-soak
BIN=
REUSE=no
while [ $# -gt 0 ]; do
    case "$1" in
        --corpus) CORPUS=$2; shift 2 ;;
        --minutes) MINUTES=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --bin) BIN=$2; shift 2 ;;
        --reuse) REUSE=yes; shift ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
for file in "$CORPUS" "$SAMPLE" "$PAGES/topic_14.html"; do
    [ -e "$file" ] || { echo "missing $file (see ../shared/data/README.md)" >&2; exit 2; }
done
if [ -z "$BIN" ]; then
    cargo build --release -p forumdex -p forumdex-bench
    BIN=$ROOT/target/release
fi
FDX=$BIN/forumdex
LOAD=$BIN/fdx-load
SECS=$((MINUTES * 60))
DATA=$WORK/data
PORT=38690
FORUM_PORT=38691
mkdir -p "$WORK"
ulimit -n "$(ulimit -Hn)"  # 1,000 connections each side of the burst
RESULTS=$WORK/results.jsonl
: > "$RESULTS"
record() { jq -c --arg what "$1" '. + {what: $what}' <<< "$2" | tee -a "$RESULTS"; }
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; commit $(git rev-parse --short HEAD); $MINUTES minutes" \
    | tee "$WORK/machine.txt"
PIDS=()
cleanup() { kill "${PIDS[@]}" 2> /dev/null || true; [ -f "$WORK/server.pid" ] && kill "$(cat "$WORK/server.pid")" 2> /dev/null || true; }
trap cleanup EXIT

# 1. The data folder, an account and its key, the loads' paths.
if [ "$REUSE" = no ] || [ ! -s "$DATA/corpus.sqlite" ]; then
    rm -rf "$DATA"
    /usr/bin/time -f '%e %M' -o "$WORK/import.time" "$FDX" --data "$DATA" --json import "$CORPUS" \
        > "$WORK/import-corpus.json"
    read -r wall rss < "$WORK/import.time"
    record import-corpus "$(jq -c --argjson wall "$wall" --argjson rss "$rss" \
        '{accepted, rejected, wall_s: $wall, peak_rss_mib: (($rss / 1024) | round)}' "$WORK/import-corpus.json")"
fi
ACCOUNT=$("$FDX" --data "$DATA" --json accounts create --email "soak-$(date +%s)@example.com" \
    --credits 1000000000 | jq -r .account_id)
KEY=$("$FDX" --data "$DATA" --json keys create --account "$ACCOUNT" | jq -r .key)
"$LOAD" paths --data "$DATA" --out "$WORK/paths"
sed 's|^/api/v1/search?|/api/v1/images/search?|' "$WORK/paths/search.paths" > "$WORK/paths/images.paths"
printf '%s\n' / /docs /login /signup /dashboard /api/v1/openapi.json > "$WORK/paths/dashboard.paths"

# 2. The fixture forum: the saved pages by their forum URLs, a robots.txt with a delay.
python3 - "$PAGES" "$FORUM_PORT" > "$WORK/forum.log" 2>&1 << 'EOF' &
import http.server, sys
pages, port = sys.argv[1], int(sys.argv[2])
saved = {"topic=14.0": "topic_14.html", "board=74.0": "board_74.html"}
class Forum(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/robots.txt":
            body, kind = b"User-agent: *\nCrawl-delay: 1\nDisallow: /index.php?action=profile\n", "text/plain"
        elif path == "/index.php" and query in saved:
            body, kind = open(f"{pages}/{saved[query]}", "rb").read(), "text/html; charset=ISO-8859-1"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.ThreadingHTTPServer(("127.0.0.1", port), Forum).serve_forever()
EOF
PIDS+=($!)

# 3. The node, and its memory every 5 s (the pid file follows the restart).
serve() {
    FORUMDEX_RATE_LIMIT_PER_MINUTE=1000000000 "$FDX" --data "$DATA" serve --listen "127.0.0.1:$PORT" \
        >> "$WORK/serve.log" 2>&1 &
    echo $! > "$WORK/server.pid"
}
wait_ready() {
    for _ in $(seq 1 6000); do
        curl -fs "http://127.0.0.1:$PORT/readyz" > /dev/null 2>&1 && return
        sleep 0.1
    done
    echo "the node did not become ready" >&2
    exit 1
}
: > "$WORK/serve.log"
serve
wait_ready
START=$(date +%s)
(
    while sleep 5; do
        pid=$(cat "$WORK/server.pid")
        rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status" 2> /dev/null || echo 0)
        printf '%s\t%s\t%s\n' $(($(date +%s) - START)) "${rss:-0}" "$pid"
    done
) > "$WORK/rss.tsv" &
PIDS+=($!)
CREDITS_BEFORE=$("$FDX" --data "$DATA" --json accounts show "$ACCOUNT" | jq .credits)
: > "$WORK/walks.txt"
# The pages of the largest topic: a cursor expires cursor_idle_seconds (300) after it was
# issued, so the pages are walked again (fresh cursors, charged: counted in walks.txt) every
# 4 minutes, each stretch one fdx-load run.
pages_load() {
    local end=$(($(date +%s) + SECS)) stretch=0 left
    while [ "$(date +%s)" -lt "$end" ]; do
        left=$((end - $(date +%s)))
        [ "$left" -gt 240 ] && left=240
        mkdir -p "$WORK/paths/pages-$stretch"
        if ! "$LOAD" walk --addr "127.0.0.1:$PORT" --key "$KEY" --keep 15 \
            --topic "$(cut -d' ' -f1 "$WORK/paths/topic.txt")" --out "$WORK/paths/pages-$stretch" \
            > "$WORK/walk-$stretch.out" 2>&1; then
            echo "walk $stretch failed: $(tail -1 "$WORK/walk-$stretch.out")" >&2
            sleep 1
            continue
        fi
        sed -n 's/^walked \([0-9]*\) pages.*/\1/p' "$WORK/walk-$stretch.out" >> "$WORK/walks.txt"
        "$LOAD" run --addr "127.0.0.1:$PORT" --key "$KEY" --label pages --concurrency 1 \
            --paths "$WORK/paths/pages-$stretch/pages-start.paths" --seconds "$left" --warmup 0 \
            --reconnect yes > "$WORK/pages-$stretch.json"
        stretch=$((stretch + 1))
    done
    jq -s '{label: "pages", concurrency: 1, requests: (map(.requests) | add),
        statuses: (map(.statuses | to_entries) | add | group_by(.key)
            | map({key: .[0].key, value: (map(.value) | add)}) | from_entries),
        rps: ((map(.requests) | add) / '"$SECS"' | round),
        p50_ms: (map(.p50_ms) | max), p99_ms: (map(.p99_ms) | max),
        p999_ms: (map(.p999_ms) | max), max_ms: (map(.max_ms) | max), stretches: length}' \
        "$WORK"/pages-*.json > "$WORK/load-pages.json"
}

# 4. The loads, for the whole run.
LOADS=()
pages_load 2> "$WORK/load-pages.err" &
LOADS+=($!)
for spec in search:2 lookups:2 images:1 dashboard:1; do
    label=${spec%%:*}
    "$LOAD" run --addr "127.0.0.1:$PORT" --key "$KEY" --paths "$WORK/paths/$label.paths" \
        --label "$label" --concurrency "${spec##*:}" --seconds "$SECS" --warmup 0 --reconnect yes \
        > "$WORK/load-$label.json" 2> "$WORK/load-$label.err" &
    LOADS+=($!)
done

# 5. Beside them: an import, then a crawl; the kill and restart half-way.
sleep 30
/usr/bin/time -f '%e %M' -o "$WORK/import-sample.time" "$FDX" --data "$DATA" --json import "$SAMPLE" \
    > "$WORK/import-sample.json" 2> "$WORK/import-sample.err"
read -r wall rss < "$WORK/import-sample.time"
record import-sample "$(jq -c --argjson wall "$wall" --argjson rss "$rss" --argjson at $(($(date +%s) - START)) \
    '{accepted, rejected, wall_s: $wall, peak_rss_mib: (($rss / 1024) | round), started_at_s: 30, ended_at_s: $at}' \
    "$WORK/import-sample.json")"
FORUMDEX_CRAWL_USER_AGENT="forumdex-soak (ops@example.test)" "$FDX" --data "$DATA" --json crawl \
    --forum-url "http://127.0.0.1:$FORUM_PORT" --topic 14 --board 74 --max-requests 20 \
    > "$WORK/crawl.json" 2> "$WORK/crawl.err" || echo '{"failed": true}' > "$WORK/crawl.json"
record crawl "$(jq -c --argjson at $(($(date +%s) - START)) '. + {ended_at_s: $at}' "$WORK/crawl.json")"
rss_now() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$(cat "$WORK/server.pid")/status"; }
BEFORE=$(rss_now)
"$LOAD" run --addr "127.0.0.1:$PORT" --key "$KEY" --paths "$WORK/paths/search.paths" --label burst \
    --concurrency 1000 --seconds 20 --warmup 0 --reconnect yes --pid "$(cat "$WORK/server.pid")" \
    > "$WORK/load-burst.json" 2> "$WORK/load-burst.err"
sleep 30
record burst "$(jq -c --argjson before "$BEFORE" --argjson after "$(rss_now)" \
    --argjson threads "$(awk '/Threads/ {print $2}' "/proc/$(cat "$WORK/server.pid")/status")" \
    '{requests, statuses, p50_ms, p99_ms, rss_before_mib: $before, rss_max_mib: .server_rss_mib,
      rss_30s_after_mib: $after, threads_30s_after: $threads}' "$WORK/load-burst.json")"
HALF=$((START + SECS / 2))
[ "$(date +%s)" -lt "$HALF" ] && sleep $((HALF - $(date +%s)))
KILLED_AT=$(($(date +%s) - START))
KILLED=$(cat "$WORK/server.pid")
kill -KILL "$KILLED"
wait "$KILLED" 2> /dev/null || true
serve
RESTART=$(date +%s)
wait_ready
record restart "$(jq -nc --argjson killed "$KILLED_AT" --argjson ready $(($(date +%s) - RESTART)) \
    '{killed_at_s: $killed, ready_after_s: $ready}')"

# 6. The figures.
wait "${LOADS[@]}"
for label in search lookups pages images dashboard; do
    record "load-$label" "$(jq -c '{label: .label, concurrency, requests, statuses, rps, p50_ms, p99_ms, p999_ms, max_ms}' \
        "$WORK/load-$label.json")"
done
record rss "$(awk '{print $2}' "$WORK/rss.tsv" | sort -n | jq -sc \
    '{samples: length, min_mib: min, median_mib: .[length / 2 | floor], max_mib: max}')"
CREDITS_AFTER=$("$FDX" --data "$DATA" --json accounts show "$ACCOUNT" | jq .credits)
# A walk of N pages sent N + 1 requests (its last, past the end, an empty page).
WALKED=$(awk '{n += $1 + 1} END {print n + 0}' "$WORK/walks.txt")
PAID_200=$(jq -s --argjson walked "$WALKED" \
    '[.[] | select(.label != "dashboard") | .statuses["200"] // 0] | add + $walked' "$WORK"/load-*.json)
CONNECTIONS=$(jq -s '[.[] | select(.label != "dashboard" and .label != "burst") | .concurrency] | add' "$WORK"/load-*.json)
record ledger "$(jq -nc --argjson spent $((CREDITS_BEFORE - CREDITS_AFTER)) --argjson ok "$PAID_200" \
    --argjson connections "$CONNECTIONS" \
    '{credits_spent: $spent, paid_200s: $ok, difference: ($spent - $ok),
      holds: (($spent - $ok) >= 0 and ($spent - $ok) <= $connections)}')"
