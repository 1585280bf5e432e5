"""A live detection's commands share one time budget, and every command that timed out is named.

A hung amdgpu driver hangs every ROCm tool that talks to it; one probe runs its tools in turn, so
without a shared budget each would take its whole timeout.  The tools here are real processes that
hang (scripts on the source's own PATH); files are read from an empty captured tree, not from this
machine."""
from __future__ import annotations

import shutil
import time

from rocm_wizard.detect import detect
from rocm_wizard.detect.sources import LiveSource

HUNG = ("rocminfo", "amd-smi", "rocm-smi")


def test_hung_tools_share_the_budget_and_are_named(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    sleep = shutil.which("sleep")
    for name in HUNG:
        tool = bindir / name
        tool.write_text("#!/bin/sh\nexec %s 60\n" % sleep)
        tool.chmod(0o755)
    source = LiveSource(root=str(root), commands=True, environ={"PATH": str(bindir)}, budget=1.5)
    start = time.monotonic()
    system = detect(source)
    took = time.monotonic() - start
    notes = "\n".join(system.notes)
    for name in HUNG:
        assert "%s " % name in notes or "%s timed out" % name in notes, (name, system.notes)
    assert "budget" in notes
    # each tool alone would have taken its 10 s timeout: three in one probe, 30 s
    assert took < 20, took


def test_no_note_when_nothing_timed_out(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    source = LiveSource(root=str(root), commands=True, environ={"PATH": str(tmp_path / "empty")})
    system = detect(source)
    assert not [n for n in system.notes if "timed out" in n]
