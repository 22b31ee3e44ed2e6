#!/usr/bin/env bash
# The Python client (clients/python, the `forumdex` package): installs it into a venv with
# its test extras, type-checks it with `mypy --strict`, and runs its pytest suite, which
# starts real `forumdex serve` processes on a generated corpus in a temporary folder.
#
# Steps: a venv under target/python-client-venv (reused), `pip install ./clients/python[test]`
# (the package as users install it, plus pytest, anyio, mypy), mypy --strict on the
# package's source, then pytest on clients/python/tests against the installed package.
#
# The server binary: $FORUMDEX_BIN, else target/debug/forumdex (under CARGO_TARGET_DIR when
# set), as `cargo test --workspace` builds it; this script does not build it. Needs python3
# (with venv) and PyPI on the first run. Exits non-zero on any failure, including a pytest
# run that collected no test. Extra arguments go to pytest (for example -k walk).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")
venv=$target_dir/python-client-venv
export FORUMDEX_BIN=${FORUMDEX_BIN:-$target_dir/debug/forumdex}
if [[ ! -x "$FORUMDEX_BIN" ]]; then
    echo "python_client: no forumdex binary at $FORUMDEX_BIN (run cargo test --workspace, or set FORUMDEX_BIN)" >&2
    exit 1
fi
# Nothing written into the source tree: no bytecode, caches under target/.
export PYTHONDONTWRITEBYTECODE=1

# A venv whose python no longer runs (the system python changed) is made again.
if ! "$venv/bin/python" -c "" 2>/dev/null; then
    echo "python_client: creating $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "./clients/python[test]"

cd clients/python
echo "python_client: mypy --strict (the package and its tests)" >&2
"$venv/bin/python" -m mypy --strict --cache-dir "$target_dir/python-client-mypy-cache" src/forumdex tests

echo "python_client: pytest (server: $FORUMDEX_BIN)" >&2
# pytest exits 5 when it collected no test: with `set -e` that fails the script too.
"$venv/bin/python" -m pytest -p no:cacheprovider -q "$@" tests

echo "python_client: done in $(( $(date +%s) - started )) s" >&2
