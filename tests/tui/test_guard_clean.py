"""The ways screen's "Guard this venv" and "Clean up" entries (issue "Keep it ROCm and keep it
clean") on the demo core: the guard way pins the demo venv's ROCm torch; the clean way is a
checklist of what the demo machine's disk (demo/host_state.toml) can lose, nothing ticked by
default, a size and a why per item and a total, whose ticks become the plan's ``clean_items``."""
from __future__ import annotations

from _screen import screen_text
from _tui_helpers import to_screen, wait_for, walk_to_options, walk_to_review

from rocm_wizard.model import System, TorchEnv
from rocm_wizard.tui import fields as F


async def test_the_ways_screen_lists_guard_and_clean_after_the_diagnosis_ways(make_app):
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await walk_to_options(pilot, "torch-reinstall")
        await pilot.press("escape")
        await to_screen(pilot, "PathScreen")
        paths = [r.path for r in app.screen.recs]
        assert paths[:3] == ["torch-reinstall", "docker", "rocm-upgrade"] and paths[3:] == ["guard", "clean"]
        from textual.widgets import OptionList

        ol = app.screen.query_one(OptionList)
        prompts = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
        assert prompts[3] == "4. Guard this venv\n   pin the ROCm torch in /home/demo/trainer/venv", prompts
        assert prompts[4] == "5. Clean up\n   7 things can go: pick from a checklist", prompts
        await pilot.press("end")
        await pilot.pause()
        assert "Why: 7 things can go" in screen_text(app)
        # the torch options keep their guard flag, on by default
        await pilot.press("home", "enter")
        await to_screen(pilot, "OptionsScreen")
        guard = next(f for f in app.screen.fields if f.name == "guard")
        assert guard.kind == F.FLAG and guard.value is True


async def test_the_clean_checklist_starts_empty_and_its_ticks_become_the_plan(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "clean")
        (field,) = app.screen.fields
        assert field.kind == F.CHECKLIST and field.value == []
        ids = [v for v, _ in field.choices]
        assert ids == ["rocm:/opt/rocm-6.1.3", "venv:/home/demo/trainer/venv-torch2.4.1-rocm6.1", "cache:pip",
                       "cache:triton", "cache:miopen", "apt:/etc/apt/keyrings/amdrocm.gpg",
                       "apt:/etc/apt/preferences.d/amdrocm-pin-600"]
        text = screen_text(app)
        assert "0 of 7 picked: 0 B (of 1.3 MiB)" in text, text
        assert "/opt/rocm-6.1.3  384.0 KiB  (old ROCm tree)" in text
        assert "Why: a ROCm tree /opt/rocm does not point at" in text
        await pilot.press("space", "down", "down", "space")
        await pilot.pause()
        assert field.value == ["rocm:/opt/rocm-6.1.3", "cache:pip"]
        text = screen_text(app)
        assert "2 of 7 picked: 640.0 KiB (of 1.3 MiB)" in text and "Why: pip's download and wheel cache" in text
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None or app.screen.error is not None)
        plan = app.screen.plan
        assert plan is not None, app.screen.error
        assert plan.inputs["clean_items"] == ["rocm:/opt/rocm-6.1.3", "cache:pip"]
        assert [(s.kind, s.params["path"]) for s in plan.steps] == [("remove-path", "/opt/rocm-6.1.3"),
                                                                     ("remove-path", "/home/demo/.cache/pip")]


async def test_an_empty_checklist_plans_nothing(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "clean")
        await pilot.press("ctrl+n")
        await to_screen(pilot, "ReviewScreen")
        await wait_for(pilot, lambda: app.screen.plan is not None or app.screen.error is not None)
        assert app.screen.plan is not None and app.screen.plan.steps == []


async def test_the_guard_way_pins_the_demo_venv(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_review(pilot, "guard")
        plan = app.screen.plan
        assert plan is not None, app.screen.error
        assert plan.path == "guard" and plan.inputs["venv"] == "/home/demo/trainer/venv"
        assert any(s.kind == "pip-guard" for s in plan.steps)


def test_guard_applies_only_to_an_unguarded_rocm_torch():
    s = System()
    s.torch = [TorchEnv(path="/srv/a", version="2.5.1+rocm6.2", build="rocm"),
               TorchEnv(path="/srv/b", version="2.5.1+cu124", build="cuda"),
               TorchEnv(path="/srv/c", version="2.5.1+rocm6.2", build="rocm", guard={"torch": "2.5.1+rocm6.2"},
                        guard_wired=True),
               TorchEnv(path="/srv/d", version="2.5.1+rocm6.2", build="rocm", guard={"torch": "2.5.1+rocm6.2"},
                        guard_wired=False)]
    assert [p for p, _ in F.guard_venvs(s)] == ["/srv/a", "/srv/d"]
    assert F.guard_venvs(System()) == []


def test_the_demo_host_state_is_written_only_inside_the_given_directory(tmp_path):
    import os

    from rocm_wizard.demo.host_state import materialize
    from rocm_wizard.plan import clean

    root = materialize(str(tmp_path / "hs"))
    for dirpath, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(dirpath, n)
            if os.path.islink(p):  # its links point inside the tree (relative)
                assert not os.readlink(p).startswith("/"), p
    assert clean.pick(clean.apt_files(root), ["all"])[0], "the demo's stale key and pin are recognised"


def test_the_demo_sizes_are_the_files_lengths_whatever_the_file_system(tmp_path):
    """The demo's sizes (snapshots) must not depend on where its temporary directory lies: the
    files' lengths, not the blocks a file system allocates."""
    from rocm_wizard.demo.host_state import materialize
    from rocm_wizard.plan import clean

    root = materialize(str(tmp_path / "hs"))
    assert clean.size_of(root + "/opt/rocm-6.1.3", apparent=True) == (393216 + len("6.1.3-122\n"), True)


async def test_on_a_machine_the_sizes_are_counted_after_the_checklist_shows(make_app, tmp_path):
    """On this machine's disk the walk can take seconds: the checklist shows at once with
    "counting...", a worker counts, and the lines and the total follow (the demo's tree stands for
    the disk here, so nothing of the machine running the test is read)."""
    import threading

    from rocm_wizard.demo import DemoCore

    gate = threading.Event()

    class Later(DemoCore):
        def sizes_later(self):
            return True

        def count_sizes(self):
            gate.wait(10)
            super().count_sizes()

    core = Later(speed=0, fail={}, state_dir=str(tmp_path / "state"))
    app = make_app(core=core)
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "clean")
        text = screen_text(app)
        assert "/opt/rocm-6.1.3  counting...  (old ROCm tree)" in text and "counting the sizes" in text, text
        await pilot.press("space")
        gate.set()
        await wait_for(pilot, lambda: "384.0 KiB" in screen_text(app))
        text = screen_text(app)
        assert "1 of 7 picked: 384.0 KiB (of 1.3 MiB)" in text, text
        assert app.screen.fields[0].value == ["rocm:/opt/rocm-6.1.3"]  # the tick survives the redraw


async def test_what_is_in_use_is_shown_under_the_checklist_and_cannot_be_ticked(make_app):
    """An old ROCm tree the demo user's ~/.bashrc still puts on PATH (demo/host_state.toml) is not a
    choice: it is a dimmed line under the checklist saying the file and line that name it, as the
    plan's notes do; ticking everything there is to tick never picks it."""
    from textual.widgets import SelectionList, Static

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "clean")
        (field,) = app.screen.fields
        assert "rocm:/opt/rocm-5.7.1" not in [v for v, _ in field.choices]
        assert field.notes == ["not offered: /opt/rocm-5.7.1  (old ROCm tree): named by /home/demo/.bashrc line 2 "
                               "(a service or a shell start-up file uses it; remove that line or the unit first)"]
        held = app.screen.query_one("#held-clean_items", Static)
        assert "field-held" in held.classes and str(held.render()).startswith("not offered: /opt/rocm-5.7.1")
        sl = app.screen.query_one("#in-clean_items", SelectionList)
        assert sl.option_count == 7
        for _ in range(sl.option_count):
            await pilot.press("space", "down")
        await pilot.pause()
        assert len(field.value) == 7 and "rocm:/opt/rocm-5.7.1" not in field.value
        assert "7 of 7 picked" in screen_text(app)


def test_a_held_line_names_the_process_or_the_file():
    from rocm_wizard.plan.clean import Item

    it = Item("venv:/home/a/v", "/home/a/v", "venv", "a venv a torch plan left")
    assert F.held_label(it, "in use by process 42 (its program, working directory or a loaded library; stop it "
                            "first)") == ("not offered: /home/a/v  (venv left behind): in use by process 42 (its "
                                          "program, working directory or a loaded library; stop it first)")
    (f,) = F.clean_fields([], held=[(it, "named by /etc/systemd/system/x.service line 3")])
    assert f.choices == [] and f.notes == ["not offered: /home/a/v  (venv left behind): named by "
                                           "/etc/systemd/system/x.service line 3"]
