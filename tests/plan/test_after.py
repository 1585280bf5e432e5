"""What comes after a run (rocm_wizard.plan.after): the smoke test waits for the reboot a new
kernel driver needs, the exact command lines to run next, and a ROCm upgrade saying plainly that
it leaves the venv's torch as it is, with the torch way the resolver picks for the new release."""
from __future__ import annotations

import pytest
from plan_helpers import SYSTEMS, run_cli

from rocm_wizard import model
from rocm_wizard.plan import after
from rocm_wizard.plan.build import Choices, build_plan

SEED = SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json"  # torch 2.5.1+rocm6.2 in a venv, driver train 6.2
VENV = "/home/dev/train/.venv"


@pytest.fixture(scope="module")
def system():
    import json

    data = json.loads(SEED.read_text())
    return model.from_dict(model.System, data.get("system", data))


def test_a_rocm_upgrade_keeps_the_venv_and_names_the_torch_way_next(system):
    plan = build_plan(system, Choices(path="rocm-upgrade"))
    kept = after.kept_venv(plan)
    venv = kept["venv"]
    assert venv and kept["torch_now"] == "2.5.1+rocm6.2"
    # the resolver's torch for the new release: the index of its series
    assert kept["torch_next"].endswith("+rocm" + plan.inputs["rocm"].rsplit(".", 1)[0]), kept
    assert any(n.startswith(f"this plan changes no venv: {venv} keeps torch 2.5.1+rocm6.2; the torch way next")
               for n in plan.notes), plan.notes
    steps = after.next_steps(plan, reboot=True)
    assert steps == [f"rocm-wizard --path torch-reinstall --venv {venv} --torch {kept['torch_next']}",
                     f"rocm-wizard verify --venv {venv}"]
    assert not any(s.kind.startswith("pip") or s.kind == "venv" for s in plan.steps)  # truly untouched


def test_the_smoke_test_waits_only_for_a_changed_kernel_driver(system):
    plan = build_plan(system, Choices(path="rocm-upgrade"))
    flag = next(s.id for s in plan.steps if s.kind == "reboot-flag")
    assert after.rebooting(plan, [flag]) and not after.rebooting(plan, ["rocm-packages"])
    no_dkms = build_plan(system, Choices(path="rocm-upgrade", dkms=False))
    assert not any(s.kind == "reboot-flag" for s in no_dkms.steps)


def test_next_steps_of_the_other_ways(system):
    torch = build_plan(system, Choices(path="torch-reinstall", venv=VENV, venv_mode="existing"))
    assert after.next_steps(torch, reboot=False) == []  # the smoke test runs at once, nothing left
    assert after.next_steps(torch, reboot=True) == [f"rocm-wizard verify --venv {VENV}"]
    docker = build_plan(system, Choices(path="docker"))
    assert after.verify_command(after.target(docker)).startswith("rocm-wizard verify --docker rocm/pytorch:")


def test_plan_only_says_the_venv_is_untouched():
    rc, out, err = run_cli(["--plan-only", "--snapshot", str(SEED), "--path", "rocm-upgrade"])
    assert rc == 2 and out
    assert "note: this plan changes no venv:" in err and "rocm-wizard --path torch-reinstall --venv" in err


def test_yes_keeps_the_smoke_test_for_after_the_reboot_and_says_what_to_run(system, tmp_path):
    """--yes's last step (verify_after) with the real journal and run log: the kernel driver changed,
    so verification is pending and the log names the exact commands, in order."""
    import io

    from rocm_wizard.commands.apply import verify_after
    from rocm_wizard.execute.journal import CHANGED, Journal
    from rocm_wizard.execute.runlog import RunLog

    plan = build_plan(system, Choices(path="rocm-upgrade"))
    journal = Journal.create(str(tmp_path / "journal.json"), run_id="r1", plan=plan, argv=[], root="/",
                             backup_dir=str(tmp_path / "backup"))
    for s in plan.steps:
        journal.end_step(s.id, CHANGED, "")
    console = io.StringIO()
    log = RunLog(str(tmp_path), console=console)
    try:
        assert verify_after(plan, journal, log) == 0
    finally:
        log.close()
    assert journal.data["verify"] == {"status": "pending", "why": after.REBOOT_WHY}
    text = console.getvalue()
    kept = after.kept_venv(plan)
    assert (f"verification pending: {after.REBOOT_WHY}; then run:\n"
            f"  rocm-wizard --path torch-reinstall --venv {kept['venv']} --torch {kept['torch_next']}\n"
            f"  rocm-wizard verify --venv {kept['venv']}\n") in text, text
