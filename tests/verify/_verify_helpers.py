"""Helpers of the verify tests: the smoke script, an interpreter with torch, the fixtures."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import ci

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SMOKE = REPO / "src" / "rocm_wizard" / "verify" / "smoke.py"
FIXTURES = HERE / "fixtures"
TORCH_PYTHON_ENV = "ROCM_WIZARD_TEST_TORCH_PYTHON"


def load_smoke_module():
    """smoke.py imported as a plain module (it has no side effects at import)."""
    spec = importlib.util.spec_from_file_location("rocm_wizard_smoke_under_test", SMOKE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fixture_doc(rel: str):
    with open(FIXTURES / rel, encoding="utf-8") as fh:
        return json.load(fh)


def find_torch_python() -> str:
    """An interpreter that has torch (CI: the CPU wheel), or skip.  Never imports torch here."""
    exe = os.environ.get(TORCH_PYTHON_ENV)
    if exe:
        return exe
    if importlib.util.find_spec("torch") is None:
        ci.missing(f"no torch in this interpreter (scripts/setup.sh installs it; or set {TORCH_PYTHON_ENV} to one that has it)")
    return sys.executable


def run_smoke(python: str, *args: str, env_extra=None, script: Path = SMOKE, timeout: float = 300):
    env = dict(os.environ)
    for name in list(env):  # the caller's GPU settings must not leak into the assertions
        if name.startswith(("HSA_", "HIP_", "ROCR_", "TORCH_BLAS_", "ROCM_WIZARD_SMOKE")) or name == "CUDA_VISIBLE_DEVICES":
            del env[name]
    env.update(env_extra or {})
    proc = subprocess.run([python, str(script), *args], capture_output=True, text=True, env=env, timeout=timeout)
    return proc


def checks_by_name(doc):
    return {(c["name"], c["device"]): c for c in doc["checks"]}


class NoGpu:
    """What the smoke test must say about the torch in ``python`` on this machine, which has no GPU:
    scripts/setup.sh installs the CPU build where PyTorch's CPU index is reachable, elsewhere
    possibly the CUDA build; either way the device check fails with "no GPU", for a reason and with
    a diagnosis that depend on the build (read here from torch itself, not from smoke.py)."""

    def __init__(self, python: str) -> None:
        probe = subprocess.run([python, "-c", "import torch; v = torch.version; "
                                "print('rocm' if getattr(v, 'hip', None) else 'cuda' if getattr(v, 'cuda', None) "
                                "else 'cpu', getattr(v, 'cuda', None) or '')"],
                               capture_output=True, text=True, timeout=300)
        assert probe.returncode == 0, probe.stderr
        self.build, _, self.cuda = probe.stdout.strip().partition(" ")
        assert self.build in ("cpu", "cuda"), f"a {self.build} build of torch on a machine without a GPU?"
        if self.build == "cpu":
            self.rule_id, self.layer = "torch-cpu-wheel", "wheel"
            self.reason = self.headline = "CPU-only build"
        else:  # a CUDA build with no AMD driver here (no /dev/kfd): the device is simply not visible
            self.rule_id = "torch-cuda-wheel" if os.path.exists("/dev/kfd") else "no-gpu-visible"
            self.layer = "wheel" if self.rule_id == "torch-cuda-wheel" else "runtime"
            self.reason = f"(CUDA {self.cuda} build) sees no device"
            self.headline = "is a CUDA build" if self.rule_id == "torch-cuda-wheel" else self.reason

