# Sourced by the HTTP search benchmarks (bench_search.sh, bench_embed_load.sh): their
# options, a key with credits for the load, and the waits for a started node.

# Sets DATA, QUERIES, BIN (default: the release build) and SECS (the caller's default) from
# the options --data DIR --queries FILE [--bin DIR] [--seconds S]; exits on anything else.
search_bench_args() {
    BIN=$ROOT/target/release
    DATA=
    QUERIES=
    while [ $# -gt 0 ]; do
        case "$1" in
            --data) DATA=$2; shift 2 ;;
            --queries) QUERIES=$2; shift 2 ;;
            --bin) BIN=$2; shift 2 ;;
            --seconds) SECS=$2; shift 2 ;;
            *) echo "unknown argument $1" >&2; exit 2 ;;
        esac
    done
    [ -n "$DATA" ] && [ -n "$QUERIES" ] || { echo "--data and --queries are required" >&2; exit 2; }
}

# Writes to OUT/key the key of a new account with a billion credits in DATA, unless one is
# there; EMAIL names the account.
bench_key() {
    local data=$1 out=$2 email=$3 account
    [ -s "$out/key" ] && return 0
    account=$("$BIN/forumdex" --data "$data" accounts create --email "$email" \
        --credits 1000000000 --json | jq -r .account_id)
    "$BIN/forumdex" --data "$data" keys create --account "$account" --name bench --json \
        | jq -r .key > "$out/key"
    chmod 600 "$out/key"
}

# Waits up to a minute for the node at ADDR to answer /readyz.
wait_ready() {
    local addr=$1
    for _ in $(seq 1 600); do
        curl -fs "http://$addr/readyz" > /dev/null 2>&1 && return 0
        sleep 0.1
    done
}

# Waits until the node at ADDR has a vector for every post (at once when search is lexical
# only), so that the background embedding job does not run beside the load.
wait_embedded() {
    local addr=$1
    until curl -fs "http://$addr/readyz" | jq -e '.semantic == null or .semantic.coverage == 1' > /dev/null; do
        sleep 1
    done
}
