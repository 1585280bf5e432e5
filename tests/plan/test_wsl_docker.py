"""Docker under WSL 2: no /dev/kfd or /dev/dri there, so the plan passes AMD's WSL container flags
(librocdxg README: --device /dev/dxg, the host's DXCore and librocdxg mounted, HSA_ENABLE_DXG_DETECTION=1)
on a real WSL report, and the native flags elsewhere."""
from __future__ import annotations

import json
from pathlib import Path

from plan_helpers import SYSTEMS, run_cli

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
WSL = str(REAL / "008-gfx1100-rx7900xt-rocm6.4-wsl2-ubuntu24.04")
NATIVE = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")


def _plan(snapshot, fmt="json"):
    rc, out, err = run_cli(["--plan-only", "--format", fmt, "--snapshot", snapshot, "--path", "docker"])
    assert rc == 2, err
    return out


def test_wsl_plan_passes_dxg_and_the_wsl_libraries_not_kfd():
    from rocm_wizard.catalog import docker

    out = _plan(WSL, "shell")
    assert "--device=/dev/dxg" in out
    assert "/usr/lib/wsl/lib/libdxcore.so:/usr/lib/libdxcore.so" in out
    assert "HSA_ENABLE_DXG_DETECTION=1" in out
    assert "/dev/kfd" not in out.replace("instead of /dev/kfd", "")
    facts = json.loads(_plan(WSL))["facts"]["docker"]
    assert facts["run_flags_sources"] == list(docker.wsl_run_flags_sources()) == ["librocdxg-readme"]


def test_native_plan_keeps_kfd_and_dri():
    out = _plan(NATIVE, "shell")
    assert "--device=/dev/kfd" in out and "--device=/dev/dri" in out and "/dev/dxg" not in out


def test_compose_file_carries_the_wsl_mounts_and_env():
    from rocm_wizard.plan.steps.docker import DockerRunScript
    from rocm_wizard.catalog import docker

    step = DockerRunScript("s", "run script", dir="/home/u/ws", image="rocm/pytorch:latest", flags=list(docker.wsl_run_flags()))
    compose = step.compose_template
    assert '- "/dev/dxg"' in compose and "/dev/kfd" not in compose
    assert '- "/opt/rocm/lib/librocdxg.so:/usr/lib/librocdxg.so"' in compose
    assert '- "/home/u/ws:/workspace"' in compose
    assert "environment:" in compose and '"HSA_ENABLE_DXG_DETECTION=1"' in compose


def test_run_argv_under_wsl():
    from rocm_wizard.catalog import docker

    argv = docker.run_argv("rocm/pytorch:latest", wsl=True)
    assert "--device=/dev/dxg" in argv and not any("kfd" in a or "/dev/dri" in a for a in argv)
