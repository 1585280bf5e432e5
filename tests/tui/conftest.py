"""Fixtures of the TUI tests: the real demo core (bundled system, real detection, diagnosis and
plan; simulated executor and smoke test) in a headless app, helpers to wait for workers, and the
snapshot directory (``snapshots/`` at the repository root)."""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from rwtest import ci

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED = Path(os.environ.get("ROCM_WIZARD_SHARED") or (REPO / ".." / "shared")).resolve()
SNAPSHOT_DIR = REPO / "snapshots"

sys.path.insert(0, str(HERE))


def frozen_clock() -> float:
    return 0.0


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


async def wait_for(pilot, predicate, timeout: float = 20.0, step: float = 0.02):
    """Pause the pilot until ``predicate()`` is true; fail the test after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {getattr(predicate, '__name__', predicate)}; "
                                 f"screen is {type(pilot.app.screen).__name__}")
        await pilot.pause(step)
    await pilot.pause()


def screen_name(app) -> str:
    return type(app.screen).__name__


async def to_screen(pilot, name: str, timeout: float = 20.0):
    await wait_for(pilot, lambda: screen_name(pilot.app) == name, timeout)


async def detected(pilot):
    await to_screen(pilot, "DetectionScreen")
    await wait_for(pilot, lambda: pilot.app.screen.done)


PATH_INDEX = {"torch-reinstall": 0, "docker": 1, "rocm-upgrade": 2}  # the demo's ranking


async def walk_to_options(pilot, path: str = "torch-reinstall"):
    await detected(pilot)
    await pilot.press("n")
    await to_screen(pilot, "FindingsScreen")
    await pilot.press("n")
    await to_screen(pilot, "PathScreen")
    for _ in range(PATH_INDEX[path]):
        await pilot.press("down")
    await pilot.press("enter")
    await to_screen(pilot, "OptionsScreen")


async def walk_to_review(pilot, path: str = "torch-reinstall"):
    await walk_to_options(pilot, path)
    await pilot.press("ctrl+n")
    await to_screen(pilot, "ReviewScreen")
    await wait_for(pilot, lambda: pilot.app.screen.plan is not None or pilot.app.screen.error is not None)


async def walk_to_execute(pilot, path: str = "torch-reinstall"):
    await walk_to_review(pilot, path)
    await pilot.press("x")
    await to_screen(pilot, "ConfirmModal")
    await pilot.press("y")
    # the run starts at once: a failure dialog may already stand on top of the execute screen
    await wait_for(pilot, lambda: any(type(s).__name__ == "ExecuteScreen" for s in pilot.app.screen_stack))


@pytest.fixture
def shared_dir():
    return ci.shared_dir()


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
