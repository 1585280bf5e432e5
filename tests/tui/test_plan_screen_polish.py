"""What a first-time user touches at 80x24 (issue 17): the plan screen's focus, keys, titles, help
and script view; the options form's errors, user names, version lists and index example; leaving a
run; the Docker way's Done screen.  Pilot on the demo core."""
from __future__ import annotations

import os

from _screen import flat, screen_text, shown
from _tui_helpers import detected, to_screen, wait_for, walk_to_execute, walk_to_options, walk_to_review


def _footer(app) -> str:
    return flat(screen_text(app).splitlines()[-1])


# -- plan screen ------------------------------------------------------------------------------------------

async def test_the_shown_tab_has_the_focus_and_scrolls_at_once(make_app):
    from textual.widgets import TextArea

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot, "rocm-upgrade")
        scr = app.screen
        assert scr.focused is scr.query_one("#steps-scroll")
        await pilot.press("2")
        changes = scr.query_one("#changes-scroll")
        await wait_for(pilot, lambda: scr.focused is changes)
        assert changes.max_scroll_y > 0  # the rocm-upgrade changes are longer than the screen
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: changes.scroll_y > 0)
        await pilot.press("home")
        await wait_for(pilot, lambda: changes.scroll_y == 0)
        await pilot.press("down")
        await wait_for(pilot, lambda: changes.scroll_y == 1)
        # clicking a tab (not a number key) hands the focus to its content as well
        await pilot.click("#review-tabs Tab#--content-tab-tab-script")
        script = scr.query_one("#script", TextArea)
        await wait_for(pilot, lambda: scr.focused is script)
        await pilot.press("down", "down")
        assert script.cursor_location[0] == 2


async def test_the_focused_content_is_marked(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        steps, changes = app.screen.query_one("#steps-scroll"), app.screen.query_one("#changes-scroll")
        focused_bar = steps.styles.border_left
        await pilot.press("2")
        await wait_for(pilot, lambda: app.screen.focused is changes)
        assert changes.styles.border_left == focused_bar
        assert steps.styles.border_left != focused_bar  # the bar moved with the focus
        assert focused_bar[0] != "" and focused_bar[0] != "none"


async def test_tab_keys_and_exports_are_in_the_footer(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot)
        footer = _footer(app)
        for key in ("x Run", "1/2/3 Tabs", "s/p/a Save", "? Help", "q Quit"):
            assert key in footer, footer


async def test_script_tab_does_not_wrap_and_saves_to_a_file(make_app, tmp_path):
    from textual.widgets import Input, TextArea

    app = make_app()
    target = tmp_path / "plan.sh"
    target.write_text("mine\n")
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot, "rocm-upgrade")
        await pilot.press("3")
        script = app.screen.query_one("#script", TextArea)
        await wait_for(pilot, lambda: app.screen.focused is script)
        assert not script.soft_wrap
        assert max(len(line) for line in script.text.splitlines()) > 80
        assert script.max_scroll_x > 0  # long lines scroll sideways, each stays one line
        first_long = next(line for line in script.text.splitlines() if len(line) > 78)
        assert first_long[:70] in screen_text(app) and first_long[-5:] not in screen_text(app)
        await pilot.click("#save-script")
        await to_screen(pilot, "ExportModal")
        app.screen.query_one(Input).value = str(target)
        await pilot.pause()
        await pilot.press("enter")  # the file exists: not replaced silently
        await pilot.pause()
        assert type(app.screen).__name__ == "ExportModal"
        # read from the modal's own message (how the screen wraps it depends on the path's length)
        from textual.widgets import Static

        said = str(app.screen.query_one("#path-error", Static).render())
        assert " ".join(said.split()) == f"{target} already exists: press Save (or Enter) again to replace it, " \
                                         "or change the name", said
        assert shown(app, "press Save (or Enter) again")
        assert target.read_text() == "mine\n"
        await pilot.press("enter")
        await to_screen(pilot, "ReviewScreen")
    assert target.read_text() == app.core.render(app.plan, "shell")
    assert os.access(target, os.X_OK)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "state") == ["plan.sh"]  # no temporary left


async def test_long_finding_and_step_titles_wrap_or_end_in_an_ellipsis(make_app):
    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui.widgets.steps import StepChecks

    long_title = ("The AMD image supports this GPU only from ROCm 6.4 on, and the host's kernel driver is "
                  "older than the window AMD documents for it")

    class LongTitles(DemoCore):
        def finish(self, source, system):
            d = super().finish(source, system)
            d.findings[0].title = long_title
            return d

        def build_plan(self, system, path, values):
            plan = super().build_plan(system, path, values)
            plan.steps[1].title = long_title
            return plan

    app = make_app(core=LongTitles(speed=0, fail={}))
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n")
        await to_screen(pilot, "FindingsScreen")
        assert shown(app, long_title)  # wrapped over two lines, not cut at the edge
        app.pop_screen()
        await walk_to_review(pilot, "docker")
        rows = str(app.screen.query_one(StepChecks).render()).splitlines()
        row = next(r for r in rows if "The AMD image supports" in r)
        assert "…" in row and len(row) <= 80 and long_title not in row


async def test_help_fits_80x24_and_scrolls_inside(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot, "rocm-upgrade")
        await pilot.press("question_mark")
        await to_screen(pilot, "HelpModal")
        box = app.screen.query_one(".help")
        region = box.region
        assert region.x >= 0 and region.y >= 0 and region.right <= 80 and region.bottom <= 24
        assert box.max_scroll_y > 0  # the rest is inside, reached by scrolling
        await pilot.press("end")
        await wait_for(pilot, lambda: box.scroll_y == box.max_scroll_y)
        assert shown(app, "Escape or ? to close this help.")
        assert shown(app, "1 Steps tab") and shown(app, "s Save the script")


# -- options -------------------------------------------------------------------------------------------------

async def test_a_long_inline_error_wraps_inside_the_screen(make_app):
    from textual.widgets import Input

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot)
        env = app.screen.query_one("#in-env", Input)
        env.focus()
        env.value = "TORCH_" + "A" * 70  # no =VALUE: the message quotes it, longer than the screen
        await pilot.pause()
        err = app.screen.query_one("#err-env")
        message = str(err.render())
        assert "expected NAME=VALUE" in flat(message)
        app.screen.query_one("#options").scroll_to_widget(err, animate=False)
        await pilot.pause()
        assert err.region.right <= 80 and err.region.height >= 2
        assert shown(app, "': expected NAME=VALUE")  # its end is on the screen, not cut off


async def test_a_user_that_does_not_exist_is_refused(make_app):
    from textual.widgets import Input

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        user = app.screen.query_one("#in-user", Input)
        assert user.value == "demo"
        assert str(app.screen.query_one("#err-user").render()) == ""
        user.value = "nosuchuser"
        await pilot.pause()
        assert "shows no user 'nosuchuser'" in str(app.screen.query_one("#err-user").render())
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert type(app.screen).__name__ == "OptionsScreen"  # refused


def test_live_user_names_are_the_passwd_database():
    import pwd

    from rocm_wizard.tui import fields as F

    me = pwd.getpwuid(os.getuid()).pw_name
    assert F.check_user(me, F.live_users) is None
    missing = "rwnosuch" + str(os.getpid())
    assert "no user" in F.check_user(missing, F.live_users)
    assert F.check_user("", F.live_users) is None  # empty: the user running the wizard


async def test_version_lists_explain_third_party(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        labels = [label for _v, label in next(f for f in app.screen.fields if f.name == "rocm").choices]
        assert any("(third-party)" in label for label in labels)
        text = flat(screen_text(app))
        assert "officially" not in text
        assert "(third-party): known only from other people's scripts" in text
        await pilot.press("escape")
        await to_screen(pilot, "PathScreen")
        await pilot.press("up", "enter")
        await to_screen(pilot, "OptionsScreen")
        assert "officially" not in flat(screen_text(app))
        assert "(third-party): known only" in next(f for f in app.screen.fields if f.name == "image").help


async def test_wheel_index_example_follows_the_chosen_build(make_app):
    from textual.widgets import Input, Select

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot)
        sel = app.screen.query_one("#in-torch", Select)
        index = app.screen.query_one("#in-torch_index_url", Input)
        assert index.placeholder == "https://download.pytorch.org/whl/" + sel.value.split("+")[1]
        other = next(v for _l, v in sel._options if v is not Select.BLANK and v.split("+")[1] != sel.value.split("+")[1])
        sel.value = other
        await pilot.pause()
        assert index.placeholder == "https://download.pytorch.org/whl/" + other.split("+")[1]


# -- leaving ---------------------------------------------------------------------------------------------------

async def test_stop_and_quit_says_how_to_resume(make_app):
    app = make_app(speed=0.3)
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot, "rocm-upgrade")
        await wait_for(pilot, lambda: app.screen.current is not None)
        await pilot.press("q")
        await to_screen(pilot, "ConfirmModal")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.return_code is not None, timeout=30)
    assert app.return_code == 130
    assert 'sudo "$(command -v rocm-wizard)" resume' in app.farewell() and "demo" in app.farewell()


def test_a_real_run_left_unfinished_names_its_run_directory():
    from rocm_wizard.tui.app import WizardApp
    from rocm_wizard.tui.core import Core
    from rocm_wizard.tui.execution import ExecOutcome

    app = WizardApp(Core(), environ={}, animate=False)
    assert app.farewell() is None
    run = "/var/log/rocm-wizard/20261123-101500-abc"
    app.outcome = ExecOutcome("cancelled", run_dir=run, log_path=run + "/run.log")
    # the command root can find (sudo and this program's path), on a line of its own
    assert any(line.startswith("    sudo ") and line.endswith(f" resume {run}") for line in app.farewell().splitlines())
    assert "safe point" in app.farewell()
    app.outcome = ExecOutcome("failed", run_dir=run)
    assert any(line.startswith("    sudo ") and line.endswith(f" rollback {run}") for line in app.farewell().splitlines())
    app.outcome = ExecOutcome("done", run_dir=run)
    assert app.farewell() is None


async def test_docker_done_screen_says_how_to_start_the_container(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_execute(pilot, "docker")
        await wait_for(pilot, lambda: app.outcome is not None)
        assert app.outcome.status == "done"
        await pilot.press("n")
        await to_screen(pilot, "VerifyScreen")
        await wait_for(pilot, lambda: app.verify_report is not None)
        await pilot.press("n")
        await to_screen(pilot, "DoneScreen")
        step = next(s for s in app.plan.steps if s.kind == "docker-run-script")
        d = step.params["dir"].rstrip("/")
        assert shown(app, f"Start the container: {d}/run-rocm-pytorch.sh")
        assert shown(app, f"or: cd {d} && docker compose run --rm pytorch")
        await pilot.press("end")  # the last lines, below the fold at 80x24
        await pilot.pause()
        assert shown(app, "The demo's simulated run log is removed when you quit.")


def test_the_demo_directory_goes_also_when_the_app_fails(capsys):
    import pytest

    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui.app import WizardApp, run_app

    class Failing(WizardApp):
        def run(self, *args, **kwargs):
            self.made = self.core.state_dir()  # the demo wrote its files, then the app broke
            raise RuntimeError("the terminal went away")

    app = Failing(DemoCore(speed=0, fail={}), environ={}, animate=False)
    with pytest.raises(RuntimeError):
        run_app(app)
    assert os.path.basename(app.made).startswith("rocm-wizard-demo-") and not os.path.exists(app.made)
