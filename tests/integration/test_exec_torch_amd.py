"""``rocm-wizard --yes`` on the torch-reinstall path from an index laid out like AMD's Core SDK 7.14
index (repo.amd.com/rocm/whl-multi-arch): real pip installs torch and torchvision with the GPU's
``device-gfx1100`` extra and the ``rocm[libraries,device-gfx1100]`` wheels pinned to 7.14.0; a
second run changes nothing; a run killed after a step resumes; a device wheel missing (what an
interrupted pip can leave) is noticed and installed again."""
from __future__ import annotations

import signal

from harness import checks, wizard
from harness.wheels import read_version_py
from test_exec_torch import dists, make_torch_venv, site

VENV = "/srv/envs/comfy"
PINS = {"torch": "2.12.0+rocm7.14.0", "torchvision": "0.27.0+rocm7.14.0", "torchaudio": "2.12.0+rocm7.14.0",
        "rocm": "7.14.0", "rocm-sdk-core": "7.14.0", "rocm-sdk-libraries": "7.14.0",
        "rocm-sdk-device-gfx1100": "7.14.0", "amd-torch-device-gfx1100": "2.12.0+rocm7.14.0"}


def amd_args(pyindex):
    return ["--path", "torch-reinstall", "--torch", "2.12.0+rocm7.14.0", "--venv", VENV, "--venv-mode", "existing",
            "--torch-index-url", pyindex.url("amd-rocm7.14.0")]


def _installed(root, venv=VENV):
    d = dists(root, venv)
    assert {k: d.get(k) for k in PINS} == PINS, d
    assert "rocm-sdk-device-gfx1031" not in d and "pytorch-triton-rocm" not in d  # the card's device wheel only
    assert read_version_py(site(root, venv))["__version__"] == "2.12.0+rocm7.14.0"


def _unchanged(root, pyindex):
    again = wizard.run(root, "--yes", "--no-verify", *amd_args(pyindex))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr


def test_torch_from_amds_index_with_the_rocm_wheels_converges(wroot, pyindex):
    root = wroot
    make_torch_venv(root, pyindex, VENV)
    plan = wizard.run(root, "--plan-only", "--format", "json", *amd_args(pyindex))
    assert plan.returncode == 2, plan.stderr
    assert '"rocm[libraries,device-gfx1100]==7.14.0"' in plan.stdout
    assert '"torch[device-gfx1100]==2.12.0+rocm7.14.0"' in plan.stdout
    res = wizard.run(root, "--yes", "--no-verify", *amd_args(pyindex))
    assert res.returncode == 0, res.stderr
    _installed(root)
    _unchanged(root, pyindex)
    # a device wheel gone (an interrupted pip, a user's pip uninstall): the pins alone still match,
    # the extras' check does not, and the run puts it back
    root.run([VENV + "/bin/python", "-m", "pip", "uninstall", "-y", "rocm-sdk-device-gfx1100"], check=True)
    fixed = wizard.run(root, "--yes", "--no-verify", *amd_args(pyindex))
    assert fixed.returncode == 0, fixed.stderr
    assert "rocm[device-gfx1100]: rocm-sdk-device-gfx1100 not installed" in fixed.stderr
    _installed(root)
    _unchanged(root, pyindex)


def test_killed_after_a_step_then_resume_converges(wroot, pyindex):
    root = wroot
    make_torch_venv(root, pyindex, VENV)
    res = wizard.run(root, "--yes", "--no-verify", *amd_args(pyindex),
                     extra_env={"ROCM_WIZARD_FAULT": "kill-after:triton-strays"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    assert checks.journal(root)["state"] == "running"
    assert dists(root, VENV)["torch"] == "2.5.1+rocm6.2"  # killed before the install
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert checks.journal(root)["state"] == "finished"
    _installed(root)
    _unchanged(root, pyindex)


def test_the_script_in_a_new_venv_carries_the_rest_over_and_then_changes_nothing(wroot, pyindex):
    # the --plan-only script (bash, rw_pins_ok with the extras' check) in new-venv mode
    from test_plan_script import make_script, run_script

    root = wroot
    old = VENV + "-torch2.5.1"
    make_torch_venv(root, pyindex, old)
    root.run(["ln", "-s", old, VENV], check=True)  # the venv path is a link, as a new-mode run leaves it
    root.run([old + "/bin/python", "-m", "pip", "install", "--index-url", pyindex.url("pypi"), "triton==3.0.0"],
             check=True)  # a plain triton in the old venv: a stray, not carried over
    script = make_script(root, "--path", "torch-reinstall", "--torch", "2.12.0+rocm7.14.0", "--venv", VENV,
                         "--venv-mode", "new", "--torch-index-url", pyindex.url("amd-rocm7.14.0"))
    assert "'rocm[libraries,device-gfx1100]==7.14.0'" in root.read(script)
    res = run_script(root, script)
    assert res.returncode == 0, res.stderr
    new = VENV + "-torch2.12.0-amd-rocm7.14.0"
    assert root.run(["readlink", VENV]).stdout.strip() == new
    _installed(root, new)
    assert dists(root, old)["torch"] == "2.5.1+rocm6.2"  # the previous venv is kept as it was
    again = run_script(root, script)
    assert again.returncode == 0 and "done: 0 step(s)" in again.stderr, again.stderr
