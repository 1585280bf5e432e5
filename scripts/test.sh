#!/usr/bin/env bash
# The test command README.md gives: install what the tests need (scripts/setup.sh: apt packages
# when root, the project venv), then run them all with the venv's interpreter and tools first on
# PATH.  Arguments go to pytest.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV="${ROCM_WIZARD_VENV:-$PWD/.venv}"
export PATH="$VENV/bin:$PATH"
# Three workers (pytest-xdist) by default -- RW_TEST_WORKERS=0 runs in one process.  Three on a
# machine of two CPUs: a test often waits (dpkg's writes to disk, a timeout waited out, a server on
# 127.0.0.1; one process outside the integration tier ran 472 s of wall for 363 CPU-s), and a third
# worker uses the CPU time the other two leave (the fifteenth session: README's "Last full run").
# The workers'
# temporary directories sit under a short fresh directory: a gpg-agent's socket path inside a test's
# GNUPGHOME must fit the 108 bytes of a Unix socket address, and xdist's default (pytest-of-USER/
# pytest-N/popen-gwK/...) does not leave room for it.
# --maxschedchunk: the workers take at most 4 tests at a time (xdist's load scheduling otherwise
# hands out up to a quarter of what is left at once, so the integration tier's minute-long tests,
# contiguous in collection order, could all land on one worker while the other runs out of work).
# The base directory lets other users through (0711, not readable): tests that run a step as a
# second user (the clean check reads a home's files as its owner) need to reach their own files.
WORKERS="${RW_TEST_WORKERS:-3}"
BASE=$(mktemp -d "${TMPDIR:-/tmp}/rwt.XXXXXX")
chmod 0711 "$BASE"
XDIST=()
if [[ $WORKERS != 0 ]]; then XDIST=(-n "$WORKERS" --maxschedchunk 4); fi
rc=0
"$VENV/bin/python" -m pytest -q "${XDIST[@]}" --basetemp="$BASE/t" "$@" || rc=$?
if [[ $rc == 0 ]]; then rm -rf "$BASE"; else echo "the failed tests' temporary files: $BASE" >&2; fi
exit "$rc"
