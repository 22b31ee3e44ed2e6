#!/usr/bin/env bash
# Property-based contract test of a running server with schemathesis (PyPI, pinned):
# generates requests from the served OpenAPI document (valid and invalid parameters) and
# checks every answer: no 5xx, a documented status, the documented content type, headers
# and body schema.
#
# Steps: a venv under target/ (reused), the debug build of forumdex, a fresh temporary data
# folder with a small generated corpus, an account, credits and a key made with the CLI's
# --json output, `forumdex serve` on a free port, schemathesis against
# /api/v1/openapi.json with the key, then the server is stopped. Exits non-zero when a
# check fails.
#
# Settings (environment): SCHEMATHESIS_EXAMPLES (examples per operation and phase, default
# 100), SCHEMATHESIS_SEED (default 1), SCHEMATHESIS_POSTS (corpus size, default 300).
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
examples=${SCHEMATHESIS_EXAMPLES:-100}
seed=${SCHEMATHESIS_SEED:-1}
posts=${SCHEMATHESIS_POSTS:-300}
# Cargo's target folder (CARGO_TARGET_DIR when set, as a shared build cache may set it).
target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")
venv=$target_dir/schemathesis-venv
report=$target_dir/schemathesis-events.ndjson  # every request and response of the last run

if [[ "$("$venv/bin/st" --version 2>/dev/null || true)" != *"$version"* ]]; then
    echo "schemathesis: installing $version into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

# The binary as `cargo test --workspace` builds it (target/debug/forumdex): after the test
# suite (as in .ci/run) this is a no-op, where `cargo build -p forumdex` would resolve
# features differently and recompile dependencies.
cargo test --workspace --no-run --quiet
bin=$target_dir/debug/forumdex

work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

data="$work/data"
fdx() { "$bin" --data "$data" --json "$@"; }
field() { python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }

fdx generate --posts "$posts" --seed 7 --out "$work/corpus.jsonl" >/dev/null
# ID 1 of each kind exists too: generated IDs often hit the minimum of a range, so lookups
# and collections answer 200 (and their bodies are checked) as well as 404.
at=2024-03-01T12:00:00Z
cat >"$work/ones.jsonl" <<JSONL
{"kind":"board","board_id":1,"name":"Bitcoin Discussion","observed_at":"$at"}
{"kind":"profile","profile_id":1,"username":"first","observed_at":"$at"}
{"kind":"topic","topic_id":1,"board_id":1,"title":"The first topic","views":10,"observed_at":"$at"}
{"kind":"post","post_id":1,"topic_id":1,"board_id":1,"post_number":0,"title":"The first topic","author":{"profile_id":1,"username":"first"},"posted_at":"2024-01-01T00:00:00Z","content_html":"The first post, about bitcoin mining.","language":"en","observed_at":"$at"}
{"kind":"post","post_id":2,"topic_id":1,"board_id":1,"post_number":1,"title":"Re: The first topic","author":{"profile_id":1,"username":"first"},"posted_at":"2024-01-02T00:00:00Z","content_html":"A reply about bitcoin wallets.","language":"en","observed_at":"$at"}
JSONL
fdx import "$work/corpus.jsonl" "$work/ones.jsonl" >/dev/null
account=$(fdx accounts create --email schemathesis@example.com | field account_id)
fdx credits add --account "$account" --amount 1000000 >/dev/null
key=$(fdx keys create --account "$account" --name schemathesis | field key)

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# No rate limit in the way: schemathesis sends thousands of requests a minute.
FORUMDEX_RATE_LIMIT_PER_MINUTE=100000000 RUST_LOG=warn \
    "$bin" --data "$data" serve --listen "127.0.0.1:$port" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 1 300); do
    if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" \
        "$base/readyz" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        cat "$work/serve.log" >&2
        echo "schemathesis: the server did not start" >&2
        exit 1
    fi
    sleep 0.2
done

status=0
# From the temporary folder: schemathesis keeps a cache of failures in its working directory.
(cd "$work" && "$venv/bin/st" run "$base/api/v1/openapi.json" \
    --url "$base" \
    --header "Authorization: Bearer $key" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --phases examples,coverage,fuzzing \
    --max-examples "$examples" \
    --seed "$seed" \
    --workers 2 \
    --generation-database none \
    --generation-with-security-parameters false \
    --suppress-health-check too_slow \
    --no-color \
    --report ndjson --report-ndjson-path "$report") \
    || status=$?

# The number of generated cases, from the event stream.
python3 - "$report" <<'EOF' || true
import json, sys
cases = 0
for line in open(sys.argv[1]):
    event = json.loads(line)
    for name, body in event.items():
        if name == "ScenarioFinished":
            recorder = body.get("recorder") or {}
            cases += len(recorder.get("cases") or {})
print(f"schemathesis: {cases} generated cases")
EOF
if grep -qE "panicked|ERROR" "$work/serve.log"; then
    echo "schemathesis: the server logged errors:" >&2
    grep -E "panicked|ERROR" "$work/serve.log" | head -20 >&2
    status=1
fi
exit "$status"
