"""The wizard says on its first screen what root is for (issue 22), not after Run fails."""
from __future__ import annotations


async def test_the_wizard_shows_it_on_its_first_screen_at_80x24(make_app):
    from rocm_wizard.demo import DemoCore

    class LiveLike(DemoCore):  # the demo's data, as a live run whose Run would change this machine
        def changes_this_machine(self):
            return True

    core = LiveLike(speed=0, fail={})
    app = make_app(core=core, environ={"SUDO_USER": "nobody-here", "PATH": "/nonexistent"})
    app.euid = 1000
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notice = app.screen.query_one("#root-notice")
        text = " ".join(str(notice.render()).split())
        assert "needs root" in text and "sudo" in text
    demo = make_app()
    async with demo.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not demo.screen.query("#root-notice")


def test_the_resume_hint_is_a_command_root_can_find(make_app, monkeypatch, tmp_path):
    """On leaving a stopped run: ``sudo <this program> resume <run>``, whole on its own line (the runs
    are root's; ``rocm-wizard`` alone is not on sudo's secure_path)."""
    import sys

    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui.execution import ExecOutcome

    tool = tmp_path / "rocm-wizard"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(tool)])

    class LiveLike(DemoCore):
        demo = False

    app = make_app(core=LiveLike(speed=0, fail={}))
    app.outcome = ExecOutcome(status="failed", run_dir="/var/log/rocm-wizard/20261127-010203-abcd",
                              log_path="/var/log/rocm-wizard/20261127-010203-abcd/run.log")
    lines = app.farewell().splitlines()
    assert f"    sudo {tool} resume /var/log/rocm-wizard/20261127-010203-abcd" in lines
    assert f"    sudo {tool} rollback /var/log/rocm-wizard/20261127-010203-abcd" in lines


async def test_the_help_says_how_to_close_it_above_the_fold(make_app):
    """At 80x24 the help's first line says how to close it (the rest may be below the fold)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        title = app.screen.query(".question").first()
        assert "Escape or ? closes" in str(title.render())
        assert title.region.y < 24 and title.region.bottom <= 24


async def test_a_plan_error_names_the_field_on_screen_and_run_is_not_offered(make_app):
    from _tui_helpers import detected, to_screen, wait_for

    from rocm_wizard.tui import fields as F
    from rocm_wizard.tui.screens.review import ReviewScreen

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        values = F.values(app.core.fields(app.system, app.diagnosis, "rocm-upgrade"))
        values["rocm_key_fingerprint"] = "not-hex"
        app.push_screen(ReviewScreen("rocm-upgrade", values))
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.error is not None)
        head = " ".join(str(app.screen.query_one("#review-head").render()).split())
        assert "the field 'Key fingerprint'" in head and "--rocm-key-fingerprint" not in head, head
        assert "answers file" not in head
        assert app.screen.check_action("execute", ()) is False  # hidden from the footer
        shown_keys = [k for k, b in app.screen.active_bindings.items() if b.binding.show]
        assert "x" not in shown_keys and "s" not in shown_keys, shown_keys
        await pilot.press("x")
        await pilot.pause()
        assert type(app.screen).__name__ == "ReviewScreen"


def test_a_long_diff_line_keeps_its_marker_on_every_piece():
    from types import SimpleNamespace as NS

    from rocm_wizard.tui.widgets.steps import description_text

    deb = ("deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.2.4 "
           "jammy main")
    f = NS(action="write", path="/etc/apt/sources.list.d/rocm.list", note="", diff=f"--- a\n+++ b\n@@ -0,0 +1 @@\n+{deb}\n-old\n")
    report = NS(step=NS(index=2), check=NS(status="change", detail=""),
                description=NS(title="ROCm repository", actions=[], packages=[], commands=[], files=[f]))
    lines = description_text(report, 74).plain.splitlines()
    pieces = [l for l in lines if l.startswith("    +") and not l.startswith("    +++")]
    assert len(pieces) > 1 and all(len(l) <= 74 for l in pieces)
    assert "".join(p[5:] for p in pieces) == deb  # nothing lost, every piece marked
    assert "    -old" in lines
    assert description_text(report).plain.count(deb) == 1  # no width: the line whole, as before


def test_what_next_is_one_rule_for_yes_and_the_done_screen():
    from types import SimpleNamespace as NS

    from rocm_wizard.plan import after

    plan = NS(steps=[NS(id="torch-env", kind="env-persist"), NS(id="gpu-groups", kind="user-groups"),
                     NS(id="pip-check", kind="pip-check")])
    lines = after.reminders(plan, ["torch-env", "gpu-groups"], "sudo /opt/x/rocm-wizard")
    text = "\n".join(lines)
    assert "open a new shell" in text and "log out and in" in text
    assert "    sudo /opt/x/rocm-wizard rollback" in lines  # a command on its own line
    assert after.reminders(plan, ["pip-check"], "sudo x") == [
        l for l in after.reminders(plan, ["pip-check"], "sudo x") if "shell" not in l and "login" not in l]
    assert after.reminders(plan, []) == []
