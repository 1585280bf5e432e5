"""A variable the plan persists into a venv is never left unexplained (issue 22): the plan's notes
(the script's header, ``--format json``) say why ``TORCH_BLAS_PREFER_HIPBLASLT=0`` is set -- the
GPU the wheel's hipBLASLt list leaves out -- and that it cures no hipBLAS error; a wheel whose list
covers the GPU gets neither the step nor the note."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from rwtest import sandbox


def plan(tmp_path, *args):
    env = {**os.environ, "ROCM_WIZARD_LOG_DIR": str(tmp_path / "logs"), "TMPDIR": str(tmp_path)}
    cmd = sandbox.argv([sys.executable, "-m", "rocm_wizard", "--demo", "--plan-only", "--format", "json", *args],
                       writable=[tmp_path])
    res = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180, env=env)
    assert res.returncode == 2, res.stderr
    return json.loads(res.stdout), res.stderr


def test_the_persisted_setting_comes_with_its_reason(tmp_path):
    doc, err = plan(tmp_path, "--path", "torch-reinstall", "--torch", "2.6.0")
    assert "torch-env" in [s["id"] for s in doc["steps"]]
    reason = [n for n in doc["notes"] if n.startswith("TORCH_BLAS_PREFER_HIPBLASLT=0 is persisted because")]
    assert reason and "gfx1100" in reason[0] and "rocm6.2.4" in reason[0] and "cures no error of hipBLAS" in reason[0]
    assert "note: TORCH_BLAS_PREFER_HIPBLASLT=0 is persisted because" in err  # and on the terminal


def test_no_setting_no_reason(tmp_path):
    # the rocm6.3 index's hipBLASLt list has gfx1100: nothing to persist, nothing to explain
    doc, _err = plan(tmp_path, "--path", "torch-reinstall", "--torch", "2.9.1+rocm6.3")
    env = next((s["params"]["env"] for s in doc["steps"] if s["id"] == "torch-env"), {})
    assert "TORCH_BLAS_PREFER_HIPBLASLT" not in env  # (the guard's UV_CONSTRAINT may be persisted)
    assert not [n for n in doc["notes"] if "is persisted because" in n]
