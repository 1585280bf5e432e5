"""Fixtures of the TUI tests: the real demo core (bundled system, real detection, diagnosis and
plan; simulated executor and smoke test) in a headless app, helpers to wait for workers, and the
snapshot directory (``snapshots/`` at the repository root)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from rwtest import ci

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SNAPSHOT_DIR = REPO / "snapshots"

sys.path.insert(0, str(HERE))

from _tui_helpers import (PATH_INDEX, detected, frozen_clock, screen_name, to_screen, wait_for,  # noqa: E402,F401
                          walk_to_execute, walk_to_options, walk_to_review)


@pytest.fixture
def make_app(tmp_path):
    """``make_app(core=None, environ=None, **core_kwargs)``: a WizardApp on the demo core whose
    state directory is under tmp_path; still spinners and a frozen clock."""
    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui.app import WizardApp

    def make(core=None, environ=None, clock=frozen_clock, **kw):
        kw.setdefault("speed", 0)
        kw.setdefault("fail", {})
        kw.setdefault("state_dir", str(tmp_path / "state"))
        core = core or DemoCore(**kw)
        return WizardApp(core, environ=environ or {}, animate=False, clock=clock)

    return make


@pytest.fixture
def real_fixture():
    return ci.real_fixture


# -- snapshots in snapshots/ at the repository root ------------------------------------------------

@pytest.fixture
def snapshot(snapshot):
    """syrupy's snapshot, with pytest-textual-snapshot's SVG files kept in ``snapshots/<module>/``."""
    from pytest_textual_snapshot import SVGImageExtension

    class RootSVG(SVGImageExtension):
        @classmethod
        def dirname(cls, *, test_location) -> str:
            return str(SNAPSHOT_DIR / Path(test_location.filepath).stem)

    original = snapshot.use_extension

    def use_extension(extension_class=None):
        if extension_class is SVGImageExtension:
            extension_class = RootSVG
        return original(extension_class)

    object.__setattr__(snapshot, "use_extension", use_extension)
    return snapshot
