"""The torch playbook on a venv made by ``uv venv`` (no pip in it), run for real inside the Debian
root under each ansible-core (``ansible_in``), with uv from PyPI's wheel as the only installer:
``--check`` changes nothing, the run puts torch 2.4.1+rocm6.1 in with ``uv pip`` (no pip appears in
the venv), a second run reports ``changed=0``; the same venv on a host without uv is refused by the
playbook's own check before anything changes."""
from __future__ import annotations

import glob
import os

from harness import ansible, uvtool, wizard
from harness.wheels import read_version_py

from test_exec_torch import site, torch_args  # noqa: E402
from test_exec_uv import UVENV, VENV, uv_wheel  # noqa: E402,F401  (uv_wheel: the session fixture)


def _uv_project(root, pyindex):
    root.run(["uv", "venv", "--python", "/usr/bin/python3", VENV], env=UVENV, check=True)
    root.run(["uv", "pip", "install", "--python", VENV + "/bin/python", "--index-url", pyindex.url("rocm6.2"),
              "torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2"],
             env=UVENV, check=True)
    assert not glob.glob(root.host_path(VENV) + "/lib/python3*/site-packages/pip")
    root.write("/srv/uv-project/pyproject.toml", '[project]\nname = "x"\nversion = "0"\n')
    root.write("/srv/uv-project/uv.lock", "version = 1\n")


def _no_pip(root):
    return not glob.glob(root.host_path(VENV) + "/lib/python3*/site-packages/pip")


def test_uv_venv_torch_playbook_check_converge_and_changed_0(wroot, pyindex, uv_wheel, ansible_in):  # noqa: F811
    root = wroot
    uvtool.install(root, uv_wheel)
    _uv_project(root, pyindex)
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, VENV))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/uv.yml", res.stdout)
    watched = [VENV, "/etc"]
    before = root.snapshot(watched)

    check = ansible.playbook(root, "/root/uv.yml", "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before

    run = ansible.playbook(root, "/root/uv.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert read_version_py(site(root, VENV))["__version__"] == "2.4.1+rocm6.1"
    assert _no_pip(root)  # uv did it: no pip was brought in
    # the uv project beside the venv would undo it: said on the host, with what to write instead
    assert "/srv/uv-project is a uv project" in run.stdout and "[tool.uv.sources]" in run.stdout, run.stdout[-4000:]
    records = os.listdir(root.host_path(VENV + "/rocm-wizard"))  # the package list saved first, by uv pip freeze
    assert records and "torch==2.5.1+rocm6.2" in root.read(VENV + "/rocm-wizard/" + records[0])

    again = ansible.playbook(root, "/root/uv.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_uv_venv_on_a_host_without_uv_is_refused_before_any_change(wroot, pyindex, uv_wheel, ansible_debs):  # noqa: F811
    root = wroot
    uvtool.install(root, uv_wheel)
    _uv_project(root, pyindex)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, VENV))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/uv.yml", res.stdout)
    root.remove("/usr/local/bin/uv")  # the fleet's other host: the same venv, no uv
    ansible.install(root, ansible_debs)
    before = root.snapshot([VENV])
    run = ansible.playbook(root, "/root/uv.yml")
    assert run.returncode != 0
    assert "was made by uv and has no pip, and uv is not installed on this host" in run.stdout, run.stdout[-4000:]
    assert root.snapshot([VENV]) == before
