"""Pilot tests of every screen of the wizard, on the demo core (real detection, diagnosis and
plans on the bundled system; simulated execution), plus a live-style core on real pasted outputs."""
from __future__ import annotations

import os
import threading

import pytest
from _tui_helpers import detected, screen_name, to_screen, wait_for, walk_to_execute, walk_to_options, walk_to_review
from _screen import screen_text, shown


# -- 1. detection -----------------------------------------------------------------------------------

async def test_detection_rows_turn_into_results_and_a_summary(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        probes = app.screen.query_one("#probes")
        assert probes.done and set(probes.rows) == {"os", "gpus", "rocm", "python", "docker", "access", "errors"}
        assert all(state == "ok" for state, _t, _s in probes.rows.values())
        text = " ".join(screen_text(app).split())
        assert "AMD Radeon RX 7900 XT (gfx1100)" in text
        assert "2 problems found" in text
        assert "ROCm 6.2.0 (/opt/rocm-6.2.0)" in text
        assert "n Next" in text and "? Help" in text  # the footer of keys
        assert app.system is not None and app.diagnosis is not None


async def test_detection_waits_for_slow_probes_and_shows_spinners(make_app):
    import threading

    from rocm_wizard.demo import DemoCore

    gate = threading.Event()

    class SlowDocker(DemoCore):
        def run_probe(self, name, source, system):
            if name == "docker":
                gate.wait(10)
            super().run_probe(name, source, system)

    app = make_app(core=SlowDocker(speed=0, fail={}))
    async with app.run_test(size=(80, 24)) as pilot:
        probes = app.screen.query_one("#probes")
        await wait_for(pilot, lambda: sum(1 for s, _t, _x in probes.rows.values() if s == "ok") == 6)
        assert probes.rows["docker"][0] == "running" and not app.screen.done
        assert shown(app, "…")  # the still spinner row
        await pilot.press("n")  # refused while detection runs
        assert screen_name(app) == "DetectionScreen"
        gate.set()
        await wait_for(pilot, lambda: app.screen.done)


async def test_a_failing_probe_is_a_note_not_a_crash(make_app):
    from rocm_wizard.demo import DemoCore

    class Broken(DemoCore):
        def run_probe(self, name, source, system):
            if name == "docker":
                raise RuntimeError("probe bug")
            super().run_probe(name, source, system)

    app = make_app(core=Broken(speed=0, fail={}))
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        assert app.screen.query_one("#probes").rows["docker"][0] == "failed"
        assert shown(app, "RuntimeError: probe bug")
        assert any("docker probe failed" in n for n in app.system.notes)
        await pilot.press("n")
        await to_screen(pilot, "FindingsScreen")


async def test_unreadable_snapshot_says_why(make_app, tmp_path):
    from rocm_wizard.tui.core import Core

    app = make_app(core=Core(snapshot=str(tmp_path / "missing")))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: shown(app, "Cannot read the system"))
        assert "no such file or directory" in " ".join(screen_text(app).split())
        await pilot.press("n")
        assert screen_name(app) == "DetectionScreen"


async def test_ssh_without_tmux_notice(make_app):
    app = make_app(environ={"SSH_CONNECTION": "192.0.2.1 50000 192.0.2.2 22"})
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await detected(pilot)
        notice = app.screen.query_one("#ssh-notice")
        assert "tmux" in str(notice.render()) and "re-attach" in str(notice.render())
    app = make_app(environ={"SSH_CONNECTION": "x", "TMUX": "/tmp/tmux-0/default,1,0"})
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        assert not app.screen.query("#ssh-notice")


async def test_rerun_detection(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        first = app.system
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen.done and app.system is not first)
        assert app.system.amd_gpus[0].gfx_target == "gfx1100"


# -- 2. findings ---------------------------------------------------------------------------------------

async def test_findings_worst_first_and_expandable(make_app):
    from textual.widgets import Collapsible

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n")
        await to_screen(pilot, "FindingsScreen")
        coll, *others = app.screen.query(Collapsible)
        assert not coll.collapsed and others and all(c.collapsed for c in others)  # the worst one opens
        text = " ".join(screen_text(app).split())
        assert "ERROR The kernel driver is outside" in text and "Evidence" in text
        await pilot.press("enter")  # the focused title toggles
        assert coll.collapsed and not shown(app, "Evidence")
        await pilot.press("enter")
        assert not coll.collapsed
        await pilot.press("escape")
        await to_screen(pilot, "DetectionScreen")


async def test_no_findings_still_lets_you_choose(make_app):
    from rocm_wizard.demo import DemoCore
    from rocm_wizard.doctor.model import Diagnosis

    class Healthy(DemoCore):
        def finish(self, source, system):
            d = super().finish(source, system)
            return Diagnosis(findings=[], recommendations=d.recommendations)

    app = make_app(core=Healthy(speed=0, fail={}))
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        assert shown(app, "no known problem found")
        await pilot.press("n")
        await to_screen(pilot, "FindingsScreen")
        assert shown(app, "No known problem found")


# -- 3. path choice ------------------------------------------------------------------------------------

async def test_paths_recommended_first_with_why(make_app):
    from textual.widgets import OptionList

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n", "n")
        await to_screen(pilot, "PathScreen")
        ol = app.screen.query_one(OptionList)
        assert [ol.get_option_at_index(i).id for i in range(ol.option_count)] == [
            "torch-reinstall", "docker", "rocm-upgrade", "guard", "clean"]  # then the ways of one's own
        text = " ".join(screen_text(app).split())
        assert "1. Reinstall PyTorch in the venv (recommended)" in text
        assert "Why: torch 2.10.0" in text
        await pilot.press("down")
        await wait_for(pilot, lambda: shown(app, "Why: AMD's image rocm/pytorch"))


async def test_paths_that_do_not_apply_are_disabled_with_the_reason(make_app, real_fixture):
    """A real system without an AMD GPU (a user's pasted outputs): no way out applies."""
    from textual.widgets import OptionList

    from rocm_wizard.tui.core import Core

    folder = real_fixture("013")
    app = make_app(core=Core(snapshot=str(folder)))
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n", "n")
        await to_screen(pilot, "PathScreen")
        ol = app.screen.query_one(OptionList)
        assert ol.option_count == 3
        assert all(ol.get_option_at_index(i).disabled for i in range(ol.option_count))
        text = " ".join(screen_text(app).split())
        assert text.count("(does not apply)") == 3 and "Why not:" in text
        assert "rocm-wizard --demo" in text
        await pilot.press("n")  # choosing a disabled way is refused
        assert screen_name(app) == "PathScreen"


# -- 4. options ----------------------------------------------------------------------------------------

async def test_options_validate_as_you_type(make_app):
    from textual.widgets import Input

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot)
        venv = app.screen.query_one("#in-venv", Input)
        assert app.screen.focused is venv
        err = app.screen.query_one("#err-venv")
        assert str(err.render()) == ""
        venv.value = ""
        await pilot.press("r", "e", "l")
        assert "absolute path" in str(err.render())
        await pilot.press("ctrl+n")  # refused while invalid
        await pilot.pause()
        assert screen_name(app) == "OptionsScreen"
        venv.value = "/etc/venv"
        await pilot.pause()
        assert "system directory" in str(err.render())
        venv.value = "/home/demo/other-venv"
        await pilot.pause()
        assert str(err.render()) == ""
        mirror = app.screen.query_one("#in-torch_index_url", Input)
        mirror.focus()
        await pilot.press(*"ftp://x")
        assert "http, https or file URL" in str(app.screen.query_one("#err-torch_index_url").render())


async def test_options_offer_only_valid_versions(make_app):
    from textual.widgets import Select

    from rocm_wizard.tui.fields import torch_choices

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot)
        sel = app.screen.query_one("#in-torch", Select)
        offered = [value for _label, value in sel._options if value is not Select.BLANK]
        assert offered == [v for v, _ in torch_choices(app.system)]
        assert sel.value == "2.10.0+rocm7.0"  # the recommendation


async def test_options_of_each_path(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        names = [f.name for f in app.screen.fields]
        assert names == ["rocm", "dkms", "user", "rocm_mirror", "rocm_key_fingerprint", "rocm_core_mirror",
                         "rocm_core_key_fingerprint"]
        await pilot.press("escape")
        await to_screen(pilot, "PathScreen")
        await pilot.press("up")
        await pilot.press("enter")
        await to_screen(pilot, "OptionsScreen")
        assert [f.name for f in app.screen.fields] == ["image", "workspace", "user"]


async def test_options_say_how_recent_the_catalogs_versions_are(make_app):
    from rocm_wizard.catalog import overlay

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot)
        date = overlay.knowledge()["knowledge_date"]
        assert shown(app, f"Versions known as of {date}")
        assert str(app.screen.query_one("#catalog-date").render()).startswith(f"Versions known as of {date}")


async def test_options_to_plan_with_a_changed_choice(make_app):
    from textual.widgets import Checkbox, Select

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        app.screen.query_one("#in-rocm", Select).value = "6.3.3"
        app.screen.query_one("#in-dkms", Checkbox).value = False
        await pilot.pause()
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None)
        assert app.plan.inputs["rocm"] == "6.3.3" and app.plan.inputs["dkms"] is False
        assert "kernel-driver" not in [s.id for s in app.plan.steps]


# -- 5. plan review --------------------------------------------------------------------------------------

async def test_review_shows_checks_changes_and_script(make_app):
    from textual.widgets import TabbedContent, TextArea

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        scr = app.screen
        assert [r.check.status for r in scr.reports] == [r.check.status for r in app.reports]
        text = " ".join(screen_text(app).split())
        assert "will change" in text and "Install torch 2.10.0+rocm7.0" in text
        await pilot.press("2")
        assert scr.query_one(TabbedContent).active == "tab-changes"
        for _ in range(8):  # the guard's files come first: page down to the package change
            if shown(app, "torch 2.11.0+rocm7.2 -> 2.10.0+rocm7.0"):
                break
            await pilot.press("pagedown")
        assert shown(app, "torch 2.11.0+rocm7.2 -> 2.10.0+rocm7.0")
        await pilot.press("3")
        assert scr.query_one(TextArea).text == app.core.render(app.plan, "shell")
        assert scr.query_one(TextArea).read_only


async def test_review_shows_why_a_plan_cannot_be_made(make_app):
    """The demo system inside a container: the doctor says an upgrade does not apply, and the plan
    engine refuses one; the review screen shows the refusal and runs nothing."""
    from textual.widgets import OptionList

    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui import fields as F
    from rocm_wizard.tui.screens.review import ReviewScreen

    class InContainer(DemoCore):
        def finish(self, source, system):
            system.os.container = "docker"
            return super().finish(source, system)

    app = make_app(core=InContainer(speed=0, fail={}))
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n", "n")
        await to_screen(pilot, "PathScreen")
        ol = app.screen.query_one(OptionList)
        upgrade = next(i for i in range(ol.option_count) if ol.get_option_at_index(i).id == "rocm-upgrade")
        assert ol.get_option_at_index(upgrade).disabled and shown(app, "(does not apply)")
        values = F.values(app.core.fields(app.system, app.diagnosis, "rocm-upgrade"))
        app.push_screen(ReviewScreen("rocm-upgrade", values))  # as if the form had been reached anyway
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.error is not None)
        assert shown(app, "Cannot build the plan: this system is a container (docker)")
        await pilot.press("x")
        await pilot.pause()
        assert screen_name(app) == "ReviewScreen" and app.outcome is None


@pytest.mark.parametrize("key, kind", [("s", "script"), ("p", "playbook"), ("a", "answers")])
async def test_export(make_app, tmp_path, key, kind):
    from textual.widgets import Input

    app = make_app()
    target = tmp_path / "out" / f"export-{kind}"
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        await pilot.press(key)
        await to_screen(pilot, "ExportModal")
        field = app.screen.query_one(Input)
        field.value = str(tmp_path)  # a directory: refused as you type
        await pilot.pause()
        assert "directory" in str(app.screen.query_one("#path-error").render())
        field.value = str(target)
        await pilot.pause()
        await pilot.press("enter")
        await to_screen(pilot, "ReviewScreen")
    data = target.read_text()
    assert app.exports[kind] == str(target)
    if kind == "script":
        assert data.startswith("#!/usr/bin/env bash") and os.access(target, os.X_OK)
    elif kind == "playbook":
        assert "hosts:" in data
    else:
        from rocm_wizard.execute import answers

        doc = answers.load(str(target))  # the executor's own reader (--yes --answers)
        assert doc["path"] == "torch-reinstall" and doc["torch"] == "2.10.0+rocm7.0"
        assert oct(target.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary file left behind


async def test_export_cancel_writes_nothing(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        await pilot.press("s")
        await to_screen(pilot, "ExportModal")
        await pilot.press("escape")
        await to_screen(pilot, "ReviewScreen")
    assert list(tmp_path.iterdir()) == [] or all(p.name == "state" for p in tmp_path.iterdir())


async def test_run_needs_a_confirmation(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        await pilot.press("x")
        await to_screen(pilot, "ConfirmModal")
        assert shown(app, "simulated, nothing is changed")
        await pilot.press("n")
        await to_screen(pilot, "ReviewScreen")
        assert app.outcome is None


# -- 6. execute ----------------------------------------------------------------------------------------------

async def test_execute_shows_progress_log_and_finishes(make_app):
    from textual.widgets import ProgressBar

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot)
        scr = app.screen
        await wait_for(pilot, lambda: not scr.running)
        assert app.outcome.status == "done"
        steps = scr.query_one("#exec-steps")
        assert all(s in ("ok", "changed") for s in steps.states.values())
        assert scr.query_one(ProgressBar).progress == len(app.plan.steps)
        assert any("Install torch 2.10.0+rocm7.0" in ln for ln in scr.log_lines)
        assert shown(app, "Finished") and shown(app, "0:00")
        await pilot.press("escape")  # no way back once it ran
        assert screen_name(app) == "ExecuteScreen"
        await pilot.press("n")
        await to_screen(pilot, "VerifyScreen")


async def test_cancel_asks_then_stops_at_a_safe_point(make_app):
    # the first step pauses until the test lets it go: the cancel lands mid-step on any machine
    release = threading.Event()
    app = make_app(speed=1, sleep=lambda _s: release.wait(300))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await walk_to_execute(pilot, "rocm-upgrade")
            scr = app.screen
            await wait_for(pilot, lambda: scr.current is not None)  # the executor's step-start event
            await pilot.press("c")
            await to_screen(pilot, "ConfirmModal")
            await pilot.press("n")  # keep running
            await to_screen(pilot, "ExecuteScreen")
            assert not scr.control.cancelled
            await pilot.press("c")
            await to_screen(pilot, "ConfirmModal")
            await pilot.press("y")
            await to_screen(pilot, "ExecuteScreen")
            assert scr.control.cancelled and scr.running
            release.set()  # the held step finishes; the executor stops before the next one
            await wait_for(pilot, lambda: not scr.running, timeout=30)
            assert app.outcome.status == "cancelled"
            states = scr.query_one("#exec-steps").states
            assert "cancelled" in states.values() and "running" not in states.values()
            assert len(app.outcome.results) < len(app.plan.steps)
            await pilot.press("n")
            await to_screen(pilot, "DoneScreen")
            assert shown(app, "cancelled at a safe point")
    finally:
        release.set()  # never leave the executor thread held


@pytest.mark.parametrize("answer, status, result", [("r", "done", "changed"), ("t", "failed", "failed")])
async def test_failed_step_retry_or_stop(make_app, answer, status, result):
    app = make_app(fail={"apt-update": 1})
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot, "rocm-upgrade")
        await to_screen(pilot, "FailureModal")
        await wait_for(pilot, lambda: shown(app, "Step failed"))
        text = " ".join(screen_text(app).split())
        assert "Step failed: Refresh the package lists" in text and "simulated failure" in text and "status 100" in text
        assert app.screen.query_one("#skip").disabled  # later steps need the package lists
        await pilot.press(answer)
        await to_screen(pilot, "ExecuteScreen")
        await wait_for(pilot, lambda: not app.screen.running)
        assert app.outcome.status == status and app.outcome.results["apt-update"] == result


async def test_failed_step_skip_where_safe(make_app):
    app = make_app(fail={"torch-env": 1})
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot)
        await to_screen(pilot, "FailureModal")
        assert not app.screen.query_one("#skip").disabled
        await pilot.press("s")
        await to_screen(pilot, "ExecuteScreen")
        await wait_for(pilot, lambda: not app.screen.running)
        assert app.outcome.status == "done" and app.outcome.results["torch-env"] == "skipped"


async def test_skip_is_refused_where_unsafe(make_app):
    app = make_app(fail={"torch": 1})
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await walk_to_execute(pilot)
        await to_screen(pilot, "FailureModal")
        await pilot.press("s")
        assert screen_name(app) == "FailureModal"
        assert shown(app, "environment would be left without torch")
        await pilot.press("t")
        await wait_for(pilot, lambda: app.outcome is not None)
        assert app.outcome.status == "failed"


async def test_quit_during_a_run_asks_and_stops_at_a_safe_point(make_app):
    app = make_app(speed=0.3)
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot, "rocm-upgrade")
        await wait_for(pilot, lambda: app.screen.current is not None)
        await pilot.press("q")
        await to_screen(pilot, "ConfirmModal")
        assert shown(app, "Stop it after the current step and quit")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.return_code is not None, timeout=30)
    assert app.return_code == 130 and app.outcome.status == "cancelled"


# -- 7. verify and 8. done --------------------------------------------------------------------------------

async def test_verify_by_layer_then_done(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot)
        await wait_for(pilot, lambda: not app.screen.running)
        await pilot.press("n")
        await to_screen(pilot, "VerifyScreen")
        await wait_for(pilot, lambda: app.verify_report is not None)
        text = " ".join(screen_text(app).split())
        assert "the GPU works for PyTorch" in text and "(simulated)" in text
        for layer in ("driver", "runtime", "wheel", "BLAS", "triton", "compile"):
            assert f" {layer} " in text
        assert app.verify_report.target.venv == "/home/demo/trainer/venv"
        await pilot.press("r")
        await wait_for(pilot, lambda: not app.screen.running)
        await pilot.press("n")
        await to_screen(pilot, "DoneScreen")
        text = " ".join(screen_text(app).split())
        assert "The plan ran to the end." in text and "Reboot: not needed" in text
        assert "Install torch 2.10.0+rocm7.0" in text
        from rocm_wizard.execute import answers

        assert answers.load(app.answers_path)["torch"] == "2.10.0+rocm7.0"
        for _ in range(8):  # below "What changed" at 80x24: page down to it
            if "rocm-wizard --yes --answers" in text:
                break
            await pilot.press("pagedown")
            text = " ".join(screen_text(app).split())
        assert "rocm-wizard --yes --answers" in text
        # issue 22: the demo's answers file (in its temporary directory, gone on quit, naming the demo
        # machine's venv) is never offered as something to replay
        assert "answers.toml" not in text and app.answers_path not in text
        assert "none kept: the demo's choices are for the demo machine" in text
        await pilot.press("enter")
    assert app.return_code == 0


async def test_done_after_a_failure_says_so_and_exits_1(make_app):
    app = make_app(fail={"apt-update": 1})
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot, "rocm-upgrade")
        await to_screen(pilot, "FailureModal")
        await pilot.press("t")
        await to_screen(pilot, "ExecuteScreen")
        await wait_for(pilot, lambda: not app.screen.running)
        await pilot.press("n")
        await to_screen(pilot, "DoneScreen")
        text = " ".join(screen_text(app).split())
        assert "The run stopped at a failed step." in text and "Refresh the package lists: failed" in text
        await pilot.press("q")
    assert app.return_code == 1


# -- help, quit, terminal ------------------------------------------------------------------------------------

async def test_help_on_every_screen(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("question_mark")
        await to_screen(pilot, "HelpModal")
        text = " ".join(screen_text(app).split())
        assert "Help: Detection" in text and "only reads files" in text
        await pilot.press("escape")
        await to_screen(pilot, "DetectionScreen")
        await walk_to_options(pilot)
        await pilot.press("f1")  # inside a text field ? is typed, F1 still helps
        await to_screen(pilot, "HelpModal")
        assert shown(app, "Help: Options") and shown(app, "ctrl+n")
        await pilot.press("escape")
        await to_screen(pilot, "OptionsScreen")


async def test_quit_before_running_exits_0(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("q")
    assert app.return_code == 0


def _chromatic(svg):
    import re

    def chroma(c):
        rgb = [int(c[i:i + 2], 16) for i in (1, 3, 5)]
        return max(rgb) - min(rgb)

    return {c for c in set(re.findall(r"fill: (#[0-9a-f]{6})", svg)) if chroma(c) > 8}


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 20), (200, 60)])
async def test_resizes_without_breaking(make_app, size):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        await pilot.resize_terminal(*size)
        await pilot.pause()
        raw = screen_text(app)
        assert shown(app, "rocm-wizard", "x Run")
        assert max(len(line) for line in raw.splitlines()) <= size[0]
        assert len(raw.splitlines()) <= size[1]


async def test_no_color(make_app, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        assert _chromatic(app.export_screenshot())  # colours by default...
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        assert app.no_color
        # ...and only greys with NO_COLOR (Rich's SVG template adds its near-grey default #c5c8c6)
        assert _chromatic(app.export_screenshot()) == set()
