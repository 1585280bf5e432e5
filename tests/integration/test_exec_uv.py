"""A venv made by uv has no pip: ``rocm-wizard --yes`` reinstalls its torch with ``uv pip`` only
(freeze, uninstall, install, check), in the Debian root with uv from PyPI's wheel, against the local
download.pytorch.org-like index; a second run changes nothing."""
from __future__ import annotations

import glob
import os

import pytest

from harness import checks, uvtool, wizard
from harness.wheels import read_version_py

from test_exec_torch import site, torch_args  # noqa: E402

VENV = "/srv/uv-project/.venv"
UVENV = {"UV_CACHE_DIR": "/root/.cache/uv", "UV_PYTHON_DOWNLOADS": "never", "HOME": "/root"}


@pytest.fixture(scope="session")
def uv_wheel(tier_ready):
    from harness.procs import CommandFailed
    from rwtest import ci

    try:
        return uvtool.ensure_wheel()
    except CommandFailed as exc:
        ci.missing(f"uv from PyPI (downloaded once with pip): {exc}")


def test_a_uv_venv_gets_its_torch_with_uv_only(wroot, pyindex, uv_wheel):
    root = wroot
    uvtool.install(root, uv_wheel)
    root.run(["uv", "venv", "--python", "/usr/bin/python3", VENV], env=UVENV, check=True)
    root.run(["uv", "pip", "install", "--python", VENV + "/bin/python", "--index-url", pyindex.url("rocm6.2"),
              "torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2"],
             env=UVENV, check=True)
    root.write("/srv/uv-project/pyproject.toml", '[project]\nname = "x"\nversion = "0"\n')
    root.write("/srv/uv-project/uv.lock", "version = 1\n")
    assert not glob.glob(root.host_path(VENV) + "/lib/python3*/site-packages/pip")  # no pip in it
    assert "uv = " in root.read(VENV + "/pyvenv.cfg")

    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert res.returncode == 0, res.stderr
    assert read_version_py(site(root, VENV))["__version__"] == "2.4.1+rocm6.1"
    argvs = [e["argv"] for e in checks.events(root) if e["event"] == "command"]
    assert not any(a[1:3] == ["-m", "pip"] for a in argvs), argvs
    assert any(a[:3] == ["uv", "pip", "freeze"] for a in argvs) and any(a[:3] == ["uv", "pip", "check"] for a in argvs)
    assert any(a[:3] == ["uv", "pip", "install"] for a in argvs), argvs
    freeze = os.listdir(root.host_path(VENV + "/rocm-wizard"))
    assert freeze and "torch==2.5.1+rocm6.2" in root.read(VENV + "/rocm-wizard/" + freeze[0])
    # a uv project beside the venv would undo it: said, with what to write instead
    assert "uv sync" in res.stderr and "[tool.uv.sources]" in res.stderr

    again = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr
