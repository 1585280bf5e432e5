"""The checkout's ``src`` byte-compiled once, before any test runs.

The suite starts the wizard as a new interpreter thousands of times (``python3 -m rocm_wizard`` in
the integration tier's roots, where the checkout is mounted read-only; CLI tests on the host; the
wizard's own helpers such as ``python3 -m rocm_wizard.ownerrule`` as other users).  Where no
``__pycache__`` is there -- a fresh clone run with ``PYTHONDONTWRITEBYTECODE=1``, as many CI and
container environments set, or a read-only mount -- every one of those starts compiles every module
it imports from source again: 0.1-0.3 CPU seconds a start (``--plan-only`` 0.50 -> 0.19 s).  What
the modules do is the same either way; only the compiling is done once.

The files are what ``python -m compileall`` writes: ``__pycache__/<module>.<tag>.pyc`` beside each
source, checked against the source's time stamp and size at every import (an edited source is
compiled again, never run stale), ignored by git (``.gitignore``) and left out of the wheel.
Interpreters of another version (another cache tag) ignore them.  ``ROCM_WIZARD_TEST_BYTECODE=0``
leaves the checkout alone (to measure what this saves: delete ``src``'s ``__pycache__`` first).
"""
from __future__ import annotations

import compileall
import contextlib
import os
import sys
from pathlib import Path
from typing import Iterable

REPO = Path(__file__).resolve().parents[2]
SOURCES = (REPO / "src",)


def compile_sources(dirs: Iterable[Path] = SOURCES) -> bool:
    """Byte-compile ``dirs`` with this interpreter (what is up to date is skipped); ``False`` where
    a file could not be written (a read-only checkout: each start compiles in memory, as before)."""
    ok = True
    for top in dirs:
        if not top.is_dir():
            continue
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            ok = bool(compileall.compile_dir(str(top), quiet=1, workers=1)) and ok
    return ok


def keep_rewritten_tests() -> None:
    """pytest's assertion rewriting of the test modules kept between runs: pytest stores each
    rewritten module as ``__pycache__/<module>.<tag>-pytest-<version>.pyc`` beside the test file
    (checked against the source's time stamp and size; ignored by git) unless
    ``sys.dont_write_bytecode`` is set -- as ``PYTHONDONTWRITEBYTECODE=1`` sets it -- and then every
    run's every worker rewrites all ~280 test modules again at collection: about 10 CPU seconds a
    process (``--collect-only`` of the suite: 13.9 -> 7.7 CPU-s from the second run on).  Called in
    each process (the workers collect everything themselves) before the collection, and
    :func:`collection_done` puts the flag back after it: the tests themselves run with the flag the
    environment gave (the wizard's own TOML cache, ``catalog/_data.py``, reads it), and the
    subprocesses they start keep the environment as it was.  ``ROCM_WIZARD_TEST_BYTECODE=0``
    leaves the flag alone."""
    if sys.implementation.cache_tag is not None and os.environ.get("ROCM_WIZARD_TEST_BYTECODE", "1") != "0":
        _FLAG.append(sys.dont_write_bytecode)
        sys.dont_write_bytecode = False


_FLAG: list = []


def collection_done() -> None:
    """``sys.dont_write_bytecode`` as it was before :func:`keep_rewritten_tests`."""
    if _FLAG:
        sys.dont_write_bytecode = _FLAG.pop()


def wanted(config) -> bool:
    """Once per run: in the process that starts pytest-xdist's workers (before it starts them), or
    in the only process without xdist; never in a worker."""
    return (not hasattr(config, "workerinput") and sys.implementation.cache_tag is not None
            and os.environ.get("ROCM_WIZARD_TEST_BYTECODE", "1") != "0")
