"""Issue 22: on a machine without an AMD GPU (and no ROCm) the wizard says what doctor says --
there is nothing to diagnose -- instead of "No known problem found ... choose a way out"; the ways
screen offers the diagnosis' ways as not applying, with the reason."""
from __future__ import annotations

from _screen import screen_text
from _tui_helpers import detected, to_screen, wait_for

from rocm_wizard.model import GPU, RocmInfo, System


def _no_amd(system: System) -> None:
    """What a machine with an NVIDIA card, no ROCm and no torch looks like to detection."""
    system.origin = "live"
    system.gpus = [GPU(vendor_id="10de", device_id="2684", is_amd=False, name="NVIDIA GeForce RTX 4090",
                       bdf="0000:01:00.0")]
    system.rocm = RocmInfo()
    system.torch = []
    system.errors = []  # the demo's pasted traceback is not part of this machine


def _core():
    from rocm_wizard.demo import DemoCore

    class NoAmd(DemoCore):
        def finish(self, source, system):
            _no_amd(system)
            from rocm_wizard.doctor import diagnose

            return diagnose(system, None)

    return NoAmd


async def test_no_amd_gpu_is_nothing_to_diagnose_not_no_known_problem(make_app, tmp_path):
    core = _core()(speed=0, fail={}, state_dir=str(tmp_path / "state"))
    app = make_app(core=core)
    async with app.run_test(size=(80, 24)) as pilot:
        await detected(pilot)
        await pilot.press("n")
        await to_screen(pilot, "FindingsScreen")
        text = " ".join(screen_text(app).split())
        assert "Nothing to diagnose: this system has no AMD GPU and no ROCm" in text, text
        assert "No known problem found" not in text, text
        await pilot.press("n")
        await to_screen(pilot, "PathScreen")
        text = " ".join(screen_text(app).split())
        # the diagnosis' ways are offered as not applying, each with the reason (the demo's clean
        # list, a way of its own, still applies)
        assert text.count("(does not apply)") >= 2 and "No AMD GPU was found, so no ROCm setup can help" in text, text
