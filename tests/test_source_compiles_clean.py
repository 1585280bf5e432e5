"""Every Python file the project ships or runs (``src``, ``scripts``, ``benchmarks``, ``tests``) compiles
without a warning: an invalid escape in a string (a regex written without ``r``) is a
``SyntaxWarning``/``DeprecationWarning`` today and an error in a later Python, and it hides in
cached bytecode (the warning shows only on the first compile)."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FILES = sorted(p for d in ("src", "scripts", "benchmarks", "tests") for p in (REPO / d).rglob("*.py"))


def test_there_are_files():
    assert len(FILES) > 100


@pytest.mark.parametrize("chunk", range(4))
def test_compiles_without_warnings(chunk):
    bad = []
    for path in FILES[chunk::4]:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        bad += [f"{path.relative_to(REPO)}:{w.lineno}: {w.message}" for w in seen]
    assert not bad, "\n".join(bad)


def test_the_check_sees_an_invalid_escape():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        compile('x = "\\s+"\n', "<probe>", "exec", dont_inherit=True)
    assert seen
