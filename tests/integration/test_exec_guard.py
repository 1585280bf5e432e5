"""The guard for real (issue "Keep it ROCm and keep it clean"): after ``rocm-wizard --yes`` puts
torch 2.4.1+rocm6.1 in a venv, an app's install that asks for PyPI's torch (a CUDA build) is refused
by pip through the venv's own pip.conf and by uv through UV_CONSTRAINT from bin/activate, in the
Debian root against the local indexes; the ROCm torch stays; a second run changes nothing; the
script guards the same way; --no-guard leaves the venv open."""
from __future__ import annotations

import pytest

from harness import checks, uvtool, wizard

from test_exec_torch import make_torch_venv, torch_args  # noqa: E402

VENV = "/srv/guarded"
UVENV = {"UV_CACHE_DIR": "/root/.cache/uv", "UV_PYTHON_DOWNLOADS": "never", "HOME": "/root"}


def _torch(root, venv=VENV):
    code = "import importlib.metadata as m; print(m.version('torch'))"
    return root.run([venv + "/bin/python", "-c", code], check=True).stdout.strip()


def _pip_swap(root, pyindex, *args):
    # as a user runs pip: the harness' PIP_CONFIG_FILE=/dev/null (which turns every pip.conf off,
    # the venv's too) is dropped; the root has no /etc/pip.conf
    return root.run(["env", "-u", "PIP_CONFIG_FILE", VENV + "/bin/python", "-m", "pip", "install",
                     "--index-url", pyindex.url("pypi-cuda"), *args])


def test_a_guarded_venv_keeps_its_rocm_torch_against_pip_and_uv(wroot, pyindex):
    root = wroot
    make_torch_venv(root, pyindex, VENV)
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert res.returncode == 0, res.stderr
    assert _torch(root) == "2.4.1+rocm6.1"
    assert "torch==2.4.1+rocm6.1" in root.read(VENV + "/rocm-wizard-guard.txt").splitlines()
    assert f"constraint = {VENV}/rocm-wizard-guard.txt" in root.read(VENV + "/pip.conf").splitlines()

    for args in (["torch==2.5.0"], ["--force-reinstall", "torch==2.5.0"]):
        swap = _pip_swap(root, pyindex, *args)
        assert swap.returncode != 0, swap.stdout
        assert "constraint" in swap.stdout + swap.stderr
        assert _torch(root) == "2.4.1+rocm6.1"
    ok = _pip_swap(root, pyindex, "--upgrade", "torch")  # a plain requirement is met by the ROCm build
    assert ok.returncode == 0, ok.stderr
    assert _torch(root) == "2.4.1+rocm6.1"

    # past the guard (pip with PIP_CONFIG_FILE=/dev/null reads no pip.conf): doctor names the swap
    past = root.run([VENV + "/bin/python", "-m", "pip", "install", "--index-url", pyindex.url("pypi-cuda"),
                     "torch==2.5.0"], env={"PIP_CONFIG_FILE": "/dev/null"})
    assert past.returncode == 0, past.stderr
    doc = wizard.run(root, "doctor", "--json", "--venv", VENV)
    import json

    found = {f["id"]: f for f in json.loads(doc.stdout)["findings"]}
    assert "guard-broken" in found, doc.stdout
    ev = " ".join(found["guard-broken"]["evidence"])
    assert "torch==2.4.1+rocm6.1" in ev and "torch 2.5.0" in ev and "by pip on 20" in ev, ev
    assert f"--venv {VENV} --torch 2.4.1+rocm6.1" in found["guard-broken"]["fix"]

    again = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert again.returncode == 0, again.stderr
    assert _torch(root) == "2.4.1+rocm6.1"  # the way back puts the pinned build back
    third = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert third.returncode == 0, third.stderr
    words = checks.step_lines(third.stderr)
    assert words.get("2") == "ok" and set(words.values()) == {"ok"}, third.stderr
    assert "[2/7] Guard the venv" in third.stderr


@pytest.fixture(scope="session")
def uv_wheel(tier_ready):
    from harness.procs import CommandFailed
    from rwtest import ci

    try:
        return uvtool.ensure_wheel()
    except CommandFailed as exc:
        ci.missing(f"uv from PyPI (downloaded once with pip): {exc}")


def test_uv_reads_the_guard_from_the_activated_venv_and_the_script_guards_too(wroot, pyindex, uv_wheel, tmp_path):
    root = wroot
    uvtool.install(root, uv_wheel)
    make_torch_venv(root, pyindex, VENV)
    script = wizard.run(root, "--plan-only", *torch_args(pyindex, VENV))
    assert script.returncode == 2, script.stderr
    root.write("/root/plan.sh", script.stdout, mode=0o755)
    res = root.run(["bash", "/root/plan.sh"], timeout=300)
    assert res.returncode == 0, res.stderr
    assert _torch(root) == "2.4.1+rocm6.1"
    cmd = (f'. {VENV}/bin/activate && uv pip install --python {VENV}/bin/python '
           f'--index-url {pyindex.url("pypi-cuda")} torch==2.5.0')
    swap = root.run(["bash", "-c", cmd], env=UVENV)
    assert swap.returncode != 0, swap.stdout
    assert _torch(root) == "2.4.1+rocm6.1"
    # the same install without the venv's environment goes through: the guard is what stopped it
    bare = root.run(["uv", "pip", "install", "--python", VENV + "/bin/python", "--index-url",
                     pyindex.url("pypi-cuda"), "torch==2.5.0"], env=UVENV)
    assert bare.returncode == 0, bare.stderr
    assert _torch(root) == "2.5.0"


def test_no_guard_leaves_the_venv_open(wroot, pyindex):
    root = wroot
    make_torch_venv(root, pyindex, VENV)
    res = wizard.run(root, "--yes", "--no-verify", "--no-guard", *torch_args(pyindex, VENV))
    assert res.returncode == 0, res.stderr
    assert not root.exists(VENV + "/rocm-wizard-guard.txt")
    swap = _pip_swap(root, pyindex, "torch==2.5.0")
    assert swap.returncode == 0, swap.stderr
    assert _torch(root) == "2.5.0"


def test_the_guard_way_guards_a_venv_as_it_is(wroot, pyindex):
    """--path guard on a venv that already has a ROCm torch: nothing reinstalled, the pins are what
    is installed, pip then refuses PyPI's torch; a second run has nothing to do."""
    root = wroot
    make_torch_venv(root, pyindex, VENV)  # torch 2.5.1+rocm6.2
    res = wizard.run(root, "--yes", "--no-verify", "--path", "guard", "--venv", VENV)
    assert res.returncode == 0, res.stderr
    pins = root.read(VENV + "/rocm-wizard-guard.txt").splitlines()
    assert {"torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2", "pytorch-triton-rocm==3.1.0"} <= set(pins)
    swap = _pip_swap(root, pyindex, "torch==2.5.0")
    assert swap.returncode != 0 and _torch(root) == "2.5.1+rocm6.2", swap.stdout
    again = wizard.run(root, "--yes", "--no-verify", "--path", "guard", "--venv", VENV)
    assert again.returncode == 0, again.stderr
    assert set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr
