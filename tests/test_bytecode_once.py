"""rwtest/bytecode.py: the sources compiled once are what a later interpreter started with
``PYTHONDONTWRITEBYTECODE=1`` loads, and an edited source is compiled again, never run stale."""
from __future__ import annotations

import os
import subprocess
import sys

from rwtest import bytecode


def _loads(top, module: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(top), PYTHONDONTWRITEBYTECODE="1")
    res = subprocess.run([sys.executable, "-v", "-c", f"import {module}; print({module}.VALUE)"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout.strip() + "|" + ("pyc" if f"code object from '{top}/{module}/__pycache__/" in res.stderr else "source")


def test_compiled_once_then_loaded_and_an_edit_is_compiled_again(tmp_path):
    pkg = tmp_path / "src" / "rwpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("VALUE = 'one'\n")
    top = tmp_path / "src"
    assert _loads(top, "rwpkg") == "one|source"  # nothing compiled: each start compiles in memory
    assert not (pkg / "__pycache__").exists()

    assert bytecode.compile_sources([top])
    assert _loads(top, "rwpkg") == "one|pyc"

    (pkg / "__init__.py").write_text("VALUE = 'two, longer'\n")  # an edit, a second later: the cache is stale
    later = os.stat(pkg / "__init__.py").st_mtime + 2
    os.utime(pkg / "__init__.py", (later, later))
    assert _loads(top, "rwpkg") == "two, longer|source"
    assert bytecode.compile_sources([top])
    assert _loads(top, "rwpkg") == "two, longer|pyc"


def test_the_tests_run_with_the_flag_the_interpreter_started_with():
    # keep_rewritten_tests lifts sys.dont_write_bytecode for the collection only (pytest's rewritten
    # test modules kept); the tests themselves, and the wizard's TOML cache, see the start's flag
    assert sys.dont_write_bytecode == bool(sys.flags.dont_write_bytecode)
