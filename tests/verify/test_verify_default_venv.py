"""`rocm-wizard verify` with no target tests the venv `detect` would pick (issue 17): the active
one, else the only venv with torch; several: it lists them and asks for --venv (exit 64)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from _verify_helpers import REPO

from rocm_wizard.commands.verify import pick_venv
from rocm_wizard.model import System, TorchEnv


def make_venv(path, torch="2.5.1+rocm6.2"):
    """A venv as detection reads it (pyvenv.cfg, torch/version.py); its python runs this interpreter."""
    py = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = path / "lib" / py / "site-packages"
    (path / "bin").mkdir(parents=True)
    (path / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {sys.version_info.major}.{sys.version_info.minor}.0\n")
    (path / "bin" / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (path / "bin" / "python").chmod(0o755)
    if torch:
        (site / "torch").mkdir(parents=True)
        (site / "torch" / "version.py").write_text(f"__version__ = '{torch}'\nhip = '6.2.41133'\ncuda = None\n")
    else:
        site.mkdir(parents=True)
    return path


def verify(home, *args, active=None):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env["HOME"] = str(home)
    if active:
        env["VIRTUAL_ENV"] = str(active)
    return subprocess.run([sys.executable, "-m", "rocm_wizard", "verify", *args], capture_output=True, text=True,
                          env=env, timeout=300, cwd=REPO)


def test_several_torch_venvs_are_listed_and_one_must_be_chosen(tmp_path):
    a = make_venv(tmp_path / "venv-a")
    b = make_venv(tmp_path / "proj" / ".venv", torch="2.6.0+rocm6.2.4")
    make_venv(tmp_path / "venv-notorch", torch=None)
    conda = make_venv(tmp_path / "miniconda3" / "envs" / "ml")  # a conda env counts: --venv can test it
    (conda / "pyvenv.cfg").unlink()
    (conda / "conda-meta").mkdir()
    res = verify(tmp_path)
    assert res.returncode == 64 and res.stdout == ""
    assert "several venvs with torch were found; choose one with --venv PATH" in res.stderr
    assert f"{a}  (torch 2.5.1+rocm6.2)" in res.stderr and f"{b}  (torch 2.6.0+rocm6.2.4)" in res.stderr
    assert f"{conda}  (torch 2.5.1+rocm6.2)" in res.stderr
    assert "venv-notorch" not in res.stderr and "running the GPU smoke test" not in res.stderr


def test_the_only_torch_venv_is_tested(tmp_path):
    only = make_venv(tmp_path / "proj" / ".venv")
    make_venv(tmp_path / "venv-notorch", torch=None)
    res = verify(tmp_path, "--json", "--only", "alloc", "--timeout", "60")
    assert f"running the GPU smoke test with {only}..." in res.stderr
    assert json.loads(res.stdout)["target"]["venv"] == str(only)


def test_the_active_venv_is_tested_among_several(tmp_path):
    make_venv(tmp_path / "venv-a")
    b = make_venv(tmp_path / "venv-b")
    res = verify(tmp_path, "--json", "--only", "alloc", "--timeout", "60", active=b)
    assert f"running the GPU smoke test with {b}..." in res.stderr
    assert json.loads(res.stdout)["target"]["venv"] == str(b)


def test_pick_venv_rules(tmp_path):
    a, b, c = (make_venv(tmp_path / n, torch=t) for n, t in (("a", "2.5.1"), ("b", "2.6.0"), ("c", None)))

    def env(path, active=False, version="2.5.1"):
        return TorchEnv(path=str(path), active=active, version=version)

    site = TorchEnv(path="/usr/lib/python3/dist-packages", version="2.1.0")  # no bin/python: never picked
    assert pick_venv(System(torch=[env(a), site]))[0] == str(a)
    assert pick_venv(System(torch=[env(b, active=True), env(a)]))[0] == str(b)
    # an active venv without torch (rocm-wizard's own) does not count: the only torch venv is picked
    assert pick_venv(System(torch=[env(c, active=True, version=None), env(a)]))[0] == str(a)
    venv, found = pick_venv(System(torch=[env(a), env(b)]))
    assert venv is None and [t.path for t in found] == [str(a), str(b)]
    assert pick_venv(System(torch=[site])) == (None, [])
