"""uv venvs (``uv = `` in pyvenv.cfg, no pip in the venv): every venv step uses ``uv pip`` (the
executor's argv, the script's branch), and a uv project beside the venv is warned about with the
pyproject.toml lines that make the change last.  The run in the Debian root is
tests/integration/test_exec_uv.py."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rocm_wizard.plan.context import Context, StepError
from rocm_wizard.plan.steps.python import pip_argv, uv_project_warning, uv_venv


def _venv(root: Path, venv: str, uv: bool, pip: bool) -> None:
    base = root / venv.lstrip("/")
    (base / "bin").mkdir(parents=True)
    (base / "pyvenv.cfg").write_text("home = /usr/bin\nimplementation = CPython\n" + ("uv = 0.13.9\n" if uv else "")
                                     + "version_info = 3.11.2\ninclude-system-site-packages = false\n")
    site = base / "lib/python3.11/site-packages"
    site.mkdir(parents=True)
    if pip:
        (site / "pip").mkdir()


def _uv_on_path(root: Path) -> dict:
    (root / "usr/local/bin").mkdir(parents=True, exist_ok=True)
    uv = root / "usr/local/bin/uv"
    uv.write_text("#!/bin/sh\n")
    os.chmod(uv, 0o755)
    return {"PATH": "/usr/local/bin:/usr/bin:/bin"}


def test_uv_venv_steps_use_uv_pip(tmp_path):
    _venv(tmp_path, "/p/.venv", uv=True, pip=False)
    ctx = Context(root=str(tmp_path), env=_uv_on_path(tmp_path))
    assert uv_venv(ctx, "/p/.venv")
    assert pip_argv(ctx, "/p/.venv", "freeze", "--all") == ["uv", "pip", "freeze", "--python", "/p/.venv/bin/python"]
    assert pip_argv(ctx, "/p/.venv", "uninstall", "-y", "triton") == [
        "uv", "pip", "uninstall", "--python", "/p/.venv/bin/python", "triton"]
    assert pip_argv(ctx, "/p/.venv", "check") == ["uv", "pip", "check", "--python", "/p/.venv/bin/python"]


def test_venvs_with_pip_keep_pip_and_uv_missing_is_a_clear_error(tmp_path):
    _venv(tmp_path, "/a", uv=True, pip=True)  # uv venv --seed: pip is there
    _venv(tmp_path, "/b", uv=False, pip=True)
    _venv(tmp_path, "/c", uv=True, pip=False)
    ctx = Context(root=str(tmp_path), env={"PATH": "/nowhere"})
    assert pip_argv(ctx, "/a", "check") == ["/a/bin/python", "-m", "pip", "check"]
    assert pip_argv(ctx, "/b", "freeze", "--all") == ["/b/bin/python", "-m", "pip", "freeze", "--all"]
    with pytest.raises(StepError, match="made by uv and has no pip, and uv is not installed"):
        pip_argv(ctx, "/c", "freeze")


def test_a_uv_project_beside_the_venv_is_warned_about(tmp_path):
    _venv(tmp_path, "/p/.venv", uv=True, pip=False)
    ctx = Context(root=str(tmp_path), env={})
    assert uv_project_warning(ctx, "/p/.venv") is None
    (tmp_path / "p/pyproject.toml").write_text("[project]\nname = 'x'\n")
    warn = uv_project_warning(ctx, "/p/.venv")
    assert "uv sync" in warn and "[tool.uv.sources]" in warn and "[[tool.uv.index]]" in warn
