"""SVG snapshots of every screen at 80x24 and 120x40 (pytest-textual-snapshot), stored in
``snapshots/test_snapshots/`` at the repository root.  Review a changed one by eye (the HTML report,
or ``_screen.svg_text`` for its text) before accepting it with ``--snapshot-update``.

The demo core runs with a frozen clock, still spinners and a state directory at a fixed relative
path, so a screen
draws the same every time."""
from __future__ import annotations

import pytest
from _tui_helpers import detected, frozen_clock, to_screen, wait_for, walk_to_execute, walk_to_options, \
    walk_to_review

STATE_DIR = "state"  # shown on the Done screen, so it must not vary: relative to the test's own directory


@pytest.fixture
def app_for(tmp_path, monkeypatch):
    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui.app import WizardApp

    monkeypatch.chdir(tmp_path)

    def make(**kw):
        core = DemoCore(speed=0, fail=kw.pop("fail", {}), state_dir=STATE_DIR)
        return WizardApp(core, environ=kw.pop("environ", {}), animate=False, clock=frozen_clock)

    return make


async def _detection(pilot):
    await detected(pilot)


async def _help(pilot):
    await detected(pilot)
    await pilot.press("question_mark")
    await to_screen(pilot, "HelpModal")


async def _findings(pilot):
    await detected(pilot)
    await pilot.press("n")
    await to_screen(pilot, "FindingsScreen")


async def _paths(pilot):
    await _findings(pilot)
    await pilot.press("n")
    await to_screen(pilot, "PathScreen")


async def _options(pilot):
    await walk_to_options(pilot, "rocm-upgrade")


async def _releases(pilot):
    """The ROCm release list open, each release with its stream (legacy or Core SDK) and status."""
    await walk_to_options(pilot, "rocm-upgrade")
    assert pilot.app.focused is not None and pilot.app.focused.id == "in-rocm", pilot.app.focused
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.focused is not None and type(pilot.app.focused).__name__ == "SelectOverlay")


async def _options_error(pilot):
    """A field's error under it and Next refused with the field named."""
    await walk_to_options(pilot, "rocm-upgrade")
    field = pilot.app.screen.query_one("#in-rocm_mirror")
    field.focus()
    field.value = "ftp://mirror.example/rocm"
    await pilot.pause()
    await pilot.press("ctrl+n")
    await wait_for(pilot, lambda: len(pilot.app._notifications) > 0)
    assert type(pilot.app.screen).__name__ == "OptionsScreen"


async def _clean(pilot):
    """The clean way's checklist on the demo machine's disk (demo/host_state.toml), one item ticked."""
    await walk_to_options(pilot, "clean")
    await pilot.press("down", "down", "space")
    await pilot.pause()


async def _review(pilot):
    await walk_to_review(pilot, "torch-reinstall")


async def _review_changes(pilot):
    await walk_to_review(pilot, "rocm-upgrade")
    await pilot.press("2")


async def _log_at_end(pilot):
    """The run's log scrolls to its end after a refresh: draw once it has, not half-way."""
    screen = next(s for s in pilot.app.screen_stack if type(s).__name__ == "ExecuteScreen")
    log = screen.query_one("#exec-log")
    await wait_for(pilot, lambda: log.scroll_y >= log.max_scroll_y)


async def _execute(pilot):
    await walk_to_execute(pilot, "docker")
    await wait_for(pilot, lambda: pilot.app.outcome is not None)
    await _log_at_end(pilot)


async def _failure(pilot):
    await walk_to_execute(pilot, "rocm-upgrade")
    await to_screen(pilot, "FailureModal")
    await _log_at_end(pilot)


async def _verify(pilot):
    await _execute(pilot)
    # n leads to the smoke test only after a run that is done (else to the summary): say so at once
    assert pilot.app.outcome.status == "done", pilot.app.outcome
    await pilot.press("n")
    await to_screen(pilot, "VerifyScreen")
    await wait_for(pilot, lambda: pilot.app.verify_report is not None)


async def _done(pilot):
    await _verify(pilot)
    await pilot.press("n")
    await to_screen(pilot, "DoneScreen")


SCREENS = {
    "detection": (_detection, {}),
    "help": (_help, {}),
    "findings": (_findings, {}),
    "paths": (_paths, {}),
    "options": (_options, {}),
    "releases": (_releases, {}),
    "options_error": (_options_error, {}),
    "review": (_review, {}),
    "review_changes": (_review_changes, {}),
    "execute": (_execute, {}),
    "failure": (_failure, {"fail": {"apt-update": 1}}),
    "verify": (_verify, {}),
    "done": (_done, {}),
    "ssh_notice": (_detection, {"environ": {"SSH_CONNECTION": "192.0.2.1 50000 192.0.2.2 22"}}),
    "clean": (_clean, {}),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_screen(snap_compare, app_for, screen, size):
    drive, kw = SCREENS[screen]
    assert snap_compare(app_for(**kw), terminal_size=size, run_before=drive)
