#!/usr/bin/env bash
# The test command README.md gives: install what the tests need, then run them all.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec python3 -m pytest -q "$@"
