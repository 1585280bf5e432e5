#!/usr/bin/env bash
# The test command README.md gives: install what the tests need (scripts/setup.sh: apt packages
# when root, the project venv), then run them all with the venv's interpreter and tools first on
# PATH.  Arguments go to pytest.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV="${ROCM_WIZARD_VENV:-$PWD/.venv}"
export PATH="$VENV/bin:$PATH"
exec "$VENV/bin/python" -m pytest -q "$@"
