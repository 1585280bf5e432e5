"""The whole walk of each of the three ways out in the demo, keyboard only, from detection to Done:
what a newcomer does after `rocm-wizard --demo`."""
from __future__ import annotations

import pytest
from _tui_helpers import PATH_INDEX, answer_questions, detected, to_screen, wait_for
from _screen import shown

EXPECT = {
    # path: (a step the plan must have, what the Done screen names as changed, reboot, verify target)
    "torch-reinstall": ("torch", "Install torch 2.10.0+rocm7.0", "Reboot: not needed", ("venv", "/home/demo/trainer/venv")),
    "docker": ("image", "rocm/pytorch:rocm7.0_ubuntu22.04_py3.10_pytorch_release_2.8.0", "Reboot: not needed",
               ("image", "rocm/pytorch:rocm7.0_ubuntu22.04_py3.10_pytorch_release_2.8.0")),
    "rocm-upgrade": ("rocm-packages", "Install ROCm 7.2.4", "Reboot: needed", ("venv", "/home/demo/trainer/venv")),
}
# what the Done screen says to run next, in order
NEXT = {
    "rocm-upgrade": ("Smoke test: not run yet", "Your venv /home/demo/trainer/venv is untouched: it still has torch "
                     "2.11.0+rocm7.2", "After the reboot, run:",
                     # the venv's torch 2.11.0+rocm7.2 is inside the new driver's window: nothing to
                     # reinstall, only the smoke test
                     "1. rocm-wizard verify --venv /home/demo/trainer/venv"),
}


@pytest.mark.parametrize("path, size", [("torch-reinstall", (80, 24)), ("docker", (80, 24)), ("rocm-upgrade", (80, 24)),
                                        ("torch-reinstall", (120, 40))])
async def test_full_flow(make_app, path, size):
    step_id, changed, reboot, (target_kind, target) = EXPECT[path]
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await detected(pilot)
        assert shown(app, "2 problems found")
        await pilot.press("n")                      # 2. findings
        await to_screen(pilot, "FindingsScreen")
        assert shown(app, "The kernel driver is outside AMD's window")  # the root cause leads
        await pilot.press("n")                      # 3. way out
        await to_screen(pilot, "PathScreen")
        for _ in range(PATH_INDEX[path]):
            await pilot.press("down")
        await pilot.press("enter")                  # 4. options (defaults are valid)
        await to_screen(pilot, "OptionsScreen")
        assert app.screen.path == path and app.screen.errors() == {}
        await pilot.press("ctrl+n")                 # 5. plan review
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None)
        assert app.plan.path == path and step_id in [s.id for s in app.plan.steps]
        assert shown(app, "will change")
        await pilot.press("x")                      # confirm, 6. run
        await to_screen(pilot, "ConfirmModal")
        await pilot.press("y")
        await answer_questions(pilot)
        await to_screen(pilot, "ExecuteScreen")
        await wait_for(pilot, lambda: app.outcome is not None)
        assert app.outcome.status == "done" and app.outcome.simulated
        assert set(app.outcome.results) == {s.id for s in app.plan.steps}
        if app.outcome.reboot:
            # a new kernel driver: the smoke test waits for the reboot (as --yes does), straight to Done
            assert shown(app, "The GPU smoke test waits")
            await pilot.press("n")
            await to_screen(pilot, "DoneScreen")
            assert app.verify_report is None
            assert app.core.verify_target(app.plan, app.system) == {target_kind: target}
        else:
            await pilot.press("n")                  # 7. verify
            await to_screen(pilot, "VerifyScreen")
            await wait_for(pilot, lambda: app.verify_report is not None)
            assert app.verify_report.status == "ok"
            assert getattr(app.verify_report.target, target_kind) == target
            await pilot.press("n")                  # 8. done
            await to_screen(pilot, "DoneScreen")
        assert shown(app, "The plan ran to the end.", reboot, *NEXT.get(path, ()))
        assert not shown(app, "rocm-wizard --path torch-reinstall")
        if app.outcome.reboot:
            assert not shown(app, "the GPU works")  # never "Reboot: needed" together with "the GPU works"
        done = app.screen.query_one("#done")
        seen = shown(app, changed)
        for _ in range(8):  # at 80x24 "What changed" may run below the fold: scroll to it
            if seen:
                break
            done.scroll_relative(y=5, animate=False)
            await pilot.pause()
            seen = shown(app, changed)
        assert seen, changed
        done.scroll_end(animate=False)
        await pilot.pause()
        assert shown(app, "Answers file:")
        from rocm_wizard.execute import answers

        assert answers.load(app.answers_path)["path"] == path
        await pilot.press("q")
    assert app.return_code == 0


async def test_back_and_forth_keeps_the_walk_consistent(make_app):
    """Going back from the review to another way out plans the new one, not the old."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n", "n")
        await to_screen(pilot, "PathScreen")
        await pilot.press("enter")
        await to_screen(pilot, "OptionsScreen")
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None)
        assert app.plan.path == "torch-reinstall"
        await pilot.press("escape", "escape")
        await to_screen(pilot, "PathScreen")
        await pilot.press("down", "enter")
        await to_screen(pilot, "OptionsScreen")
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None)
        assert app.plan.path == "docker" and app.path == "docker"
