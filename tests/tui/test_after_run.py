"""The TUI flows of issue 15 on the real core (the demo bundle: RX 7900 XT, ROCm 6.2 with its amdgpu
driver train 6.2, torch 2.11.0+rocm7.2 in a venv made in place): what happens after the run of a
ROCm upgrade with and without a new kernel driver, `--venv-mode new` on that venv, and the images
the docker way offers for the host's driver."""
from __future__ import annotations

from _screen import shown
from _tui_helpers import answer_questions, to_screen, wait_for, walk_to_execute, walk_to_options

VENV = "/home/demo/trainer/venv"


async def _run_to_the_end(pilot, app):
    await pilot.press("ctrl+n")
    await to_screen(pilot, "ReviewScreen")
    await wait_for(pilot, lambda: app.screen.plan is not None)
    await pilot.press("x")
    await to_screen(pilot, "ConfirmModal")
    await pilot.press("y")
    await answer_questions(pilot)
    await to_screen(pilot, "ExecuteScreen")
    await wait_for(pilot, lambda: app.outcome is not None)
    assert app.outcome.status == "done", app.outcome


async def test_without_a_new_kernel_driver_the_smoke_test_runs_and_the_torch_way_comes_next(make_app):
    from textual.widgets import Checkbox

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        app.screen.query_one("#in-dkms", Checkbox).value = False
        await pilot.pause()
        await _run_to_the_end(pilot, app)
        assert not app.outcome.reboot and shown(app, "Press n for the GPU smoke test")
        await pilot.press("n")
        await to_screen(pilot, "VerifyScreen")
        await wait_for(pilot, lambda: app.verify_report is not None)
        await pilot.press("n")
        await to_screen(pilot, "DoneScreen")
        kept = app.plan.facts["venv_kept"]
        # the kernel driver stays 6.2 (AMD's window: ROCm 6.0-7.0): the resolver's torch next stays within
        # that window; no rocm7.2 wheel is (the policy's ROCm is 7.2.4), so the venv's own build is kept
        from rocm_wizard.catalog import compat, wheels

        assert kept["venv"] == VENV and kept["rocm"] == "7.2.4", kept
        assert compat.in_window("6.2", wheels.rocm_of_version(kept["torch_next"]))[0] is True, kept
        assert shown(app, "Reboot: not needed", "Smoke test: the GPU works",
                     f"Your venv {VENV} is untouched: it still has torch 2.11.0+rocm7.2.", "Next, run:",
                     f"1. rocm-wizard --path torch-reinstall --venv {VENV} --torch {kept['torch_next']}",
                     f"2. rocm-wizard verify --venv {VENV}")


async def test_venv_mode_new_on_the_demo_venv_moves_it_aside(make_app):
    from textual.widgets import Select

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await walk_to_options(pilot, "torch-reinstall")
        assert app.screen.query_one("#in-venv_mode", Select).value == "existing"
        app.screen.query_one("#in-venv_mode", Select).value = "new"
        await pilot.pause()
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None)
        switch = next(s for s in app.plan.steps if s.kind == "venv-link")
        aside = VENV + "-torch2.11.0-rocm7.2"
        assert switch.params["link"] == VENV and switch.params["aside"] == aside
        report = next(r for r in app.reports if r.step.id == switch.id)
        assert report.check.status == "change" and f"moved to {aside} first" in report.check.detail
        assert any(f"is moved to {aside} first" in n for n in app.plan.notes)
        await pilot.press("x")
        await to_screen(pilot, "ConfirmModal")
        await pilot.press("y")
        await to_screen(pilot, "ExecuteScreen")
        await wait_for(pilot, lambda: app.outcome is not None)
        assert app.outcome.status == "done" and app.outcome.results[switch.id] == "changed"


async def test_the_docker_way_offers_only_images_within_the_drivers_window(make_app):
    from textual.widgets import Select

    from rocm_wizard.catalog import compat, docker

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "docker")
        sel = app.screen.query_one("#in-image", Select)
        offered = [value for _label, value in sel._options if value is not Select.BLANK]
        rocm = {t.tag: t.rocm for t in docker.tags()}
        assert offered and all(compat.in_window("6.2", rocm[tag])[0] for tag in offered), offered
        outside = [t.tag for t in docker.tags() if compat.in_window("6.2", t.rocm)[0] is False]
        assert outside and not set(outside) & set(offered)  # the catalog has some; none is offered


async def test_the_plans_yes_no_questions_are_asked_before_it_runs(make_app):
    """Each open question of the plan (Plan.confirmations: apt removing packages that are not
    ROCm's) is a modal after the run confirmation; a yes plans again with that choice, then runs."""
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None)
        review = app.screen
        questions = app.core.confirmations(app.plan)
        asked = [c for s in app.plan.steps for c in getattr(s, "confirmations", lambda: [])()]
        assert questions == list({c["key"]: c for c in reversed(asked)}.values())[::-1]  # once per key
        await pilot.press("x")
        await to_screen(pilot, "ConfirmModal")
        await pilot.press("y")
        for q in questions:
            await wait_for(pilot, lambda q=q: getattr(app.screen, "question", None) == q["question"])
            await pilot.press("y")
        await to_screen(pilot, "ExecuteScreen")
        for q in questions:  # the plan that runs is the one built with the answers
            assert app.plan.inputs[q["key"]] is True and review.values[q["key"]] is True
        assert app.core.confirmations(app.plan) == []
        await wait_for(pilot, lambda: app.outcome is not None)
        assert app.outcome.status == "done"


def test_the_done_screen_wraps_prose_between_words_and_never_a_command():
    """The Done screen's rule for what a user copies (as doctor's): prose is wrapped to the width,
    never inside a command it quotes; a command line stays whole however long (the screen scrolls
    sideways instead), with its style; the words keep theirs."""
    from rich.text import Text

    from rocm_wizard.plan import after
    from rocm_wizard.tui.screens.done import fit
    from types import SimpleNamespace as NS

    me = "sudo /home/someone/.local/share/pipx/venvs/rocm-wizard/bin/rocm-wizard-installed-for-everyone"
    plan = NS(steps=[NS(id="gpu-groups", kind="user-groups")])
    lines = after.reminders(plan, ["gpu-groups"], me)
    out = Text()
    out.append("Answers file: ", style="bold")
    out.append("none kept: the demo's choices are for the demo machine, and its files go when you quit\n")
    out.append("\n".join(lines) + "\n")
    cmds = {ln for ln in lines if ln.startswith("    ")}
    shown = fit(out, cmds, 40)
    plain = shown.plain.splitlines()
    assert f"    {me} rollback" in plain  # 100 columns, whole
    assert all(len(ln) <= 40 for ln in plain if ln != f"    {me} rollback"), plain
    assert any("newgrp render" in ln for ln in plain)  # the command in the sentence kept together
    assert " ".join(" ".join(plain).split()) == " ".join(out.plain.split())  # nothing lost or added
    bold = [shown.plain[s.start:s.end] for s in shown.spans if s.style == "bold"]
    assert bold == ["Answers file: "]


async def test_the_demo_done_screen_keeps_the_rollback_command_whole_at_80_columns(make_app):
    """At 80x24 the rollback hint's sentence wraps clear of the scrollbar and its command is a line of
    its own, whole; the text itself is never wrapped by the widget (it scrolls sideways)."""
    from textual.widgets import Static

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot, "docker")
        await wait_for(pilot, lambda: app.outcome is not None)
        assert app.outcome.status == "done", app.outcome
        await pilot.press("n")
        await to_screen(pilot, "VerifyScreen")
        await wait_for(pilot, lambda: app.verify_report is not None)
        await pilot.press("n")
        await to_screen(pilot, "DoneScreen")
        text = app.screen.query_one("#done-text", Static)
        assert text.styles.text_wrap == "nowrap"
        plain = app.screen.summary().plain.splitlines()
        assert '    sudo "$(command -v rocm-wizard)" rollback' in plain
        # prose fits; a path or command alone on its line is kept whole however long (the run log's
        # path holds the test's temporary directory)
        assert not [ln for ln in plain if len(ln) > 75 and " " in ln.strip()], [ln for ln in plain if len(ln) > 75]
        k = next(i for i, ln in enumerate(plain) if ln.startswith("To put back the files"))
        assert plain[k + 2] == '    sudo "$(command -v rocm-wizard)" rollback', plain[k:k + 3]  # prose, then the command
