"""The package must run on Python 3.10 (Ubuntu 22.04's system Python): ``vermin`` checks every
source file for newer syntax, modules and functions.

``--eval-annotations``: model.from_dict evaluates annotations (typing.get_type_hints), so they must
be valid on 3.10 too.  Vermin cannot see that ``tomllib`` is only imported on 3.11+ with ``tomli``
as the fallback; such guarded imports are accepted, any other violation fails the test.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import ci

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
# module -> the backport that must be imported as its fallback in the same file
GUARDED = {"tomllib": "tomli"}


def _vermin_cmd():
    exe = shutil.which("vermin")
    if exe:
        return [exe]
    # (the interpreter's own scripts folder, where PATH does not name it: vermin has no __main__ for -m)
    beside = Path(sys.executable).parent / "vermin"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    try:
        import vermin  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "vermin"]


def violations():
    cmd = _vermin_cmd()
    if cmd is None:
        ci.missing("vermin is not installed (pip install vermin)")
    proc = subprocess.run(cmd + ["-t=3.10-", "--no-tips", "--violations", "--eval-annotations", "--no-parse-comments",
                                 str(SRC)], capture_output=True, text=True, timeout=300)
    found = []
    current = None
    for line in proc.stdout.splitlines():
        m = re.match(r"^\S.*?\s+(/\S+\.py)\s*$", line)
        if m:
            current = m.group(1)
            continue
        if current and line.startswith("  ") and "requires" in line:
            found.append((current, line.strip()))
    return proc, found


def _allowed(path: str, reason: str) -> bool:
    m = re.match(r"^'(\w+)' module requires", reason)
    if not m or m.group(1) not in GUARDED:
        return False
    text = Path(path).read_text(encoding="utf-8")
    fallback = GUARDED[m.group(1)]
    return bool(re.search(r"^\s+import %s\b" % fallback, text, re.M)) and bool(
        re.search(r"sys\.version_info|except (ModuleNotFoundError|ImportError)", text))


def test_vermin_finds_violations_when_there_are_some(tmp_path):
    """The checker itself works: 3.11-only code is reported."""
    cmd = _vermin_cmd()
    if cmd is None:
        ci.missing("vermin is not installed (pip install vermin)")
    bad = tmp_path / "bad.py"
    bad.write_text("try:\n    pass\nexcept* ValueError:\n    pass\nfrom typing import Self\n")
    proc = subprocess.run(cmd + ["-t=3.10-", "--no-tips", "--violations", str(bad)], capture_output=True, text=True)
    assert proc.returncode != 0 and "bad.py" in proc.stdout


def test_sources_run_on_python_310():
    proc, found = violations()
    bad = [(p, r) for p, r in found if not _allowed(p, r)]
    assert not bad, "\n".join("%s: %s" % (Path(p).relative_to(REPO), r) for p, r in bad)
    if proc.returncode != 0:
        assert found, proc.stdout + proc.stderr
