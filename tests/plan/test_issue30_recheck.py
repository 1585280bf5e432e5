"""Issue 30, re-checked on the harmful classes of its Done-when: `doctor` and `--plan-only` on real
fixtures (tests/data/real, each with its source URL in labels.toml) and edits of the doctor's healthy
system give the answer the thread's expert gave:

* Vega 56 / Radeon VII whose rocBLAS aborts for want of Tensile kernels (300: pytorch/pytorch#179865;
  301: ROCm/legacy-rocm-build#4625): the GPU's target comes from rocBLAS's own line, the way out is a
  rocm6.3 wheel;
* an MI50 on torch 2.8.0+rocm6.4: the rocm6.3 index, not a 6.4+ wheel;
* a Core SDK 10.1 host: AMD's 10.1 index with torchvision 0.29.0a0 in the doctor's words too;
* an RDNA2 card under WSL (424: no WSL list names it): no Docker plan either;
* a WSL host on ROCm 6.1.3 whose issue form says 6.1.0 (426): the tree hipcc names decides, and the
  torch way is a 6.x wheel with its own HSA runtime removed (AMD's WSL steps)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from plan_helpers import FIXTURES, SYSTEMS, run_cli

from rocm_wizard import model

DOCTOR = Path(__file__).resolve().parents[1] / "doctor"


def _doctor(snapshot) -> dict:
    rc, out, err = run_cli(["doctor", "--json", "--snapshot", str(snapshot)])
    assert rc in (0, 2), err
    return json.loads(out)


def _ways(report: dict) -> list:
    return [w for w in report.get("ways_out", report.get("recommendations", [])) if w.get("applies", True)]


def _plan(snapshot, *args) -> dict:
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", str(snapshot), *args])
    assert rc == 2, err
    return json.loads(out)


def _torch_target(plan: dict) -> str:
    return next(v for k, v in plan["inputs"].items() if k == "torch")


def test_rocblas_pastes_of_vega_and_radeon_vii_get_the_rocm63_way():
    for name, gfx in (("300-gfx900-vega56-torch2.12-rocm7.2-rocblas-tensile-missing", "gfx900"),
                      ("301-gfx906-radeon-vii-rocm6.4.0-rocblas-tensile-missing-ubuntu24.04", "gfx906")):
        snap = FIXTURES / name
        rc, text, err = run_cli(["doctor", "--snapshot", str(snap)])
        assert rc == 2, err
        assert "wheel-library-lacks-kernels" in text and f"carries {gfx} kernels" in text, text[-3000:]
        assert "+rocm6.3" in _torch_target(_plan(snap, "--path", "torch-reinstall", "--venv", "/home/u/venv"))


def test_radeon_vii_host_rocm_comes_from_the_tree_rocblas_loaded():
    rc, out, err = run_cli(["detect", "--json", "--snapshot",
                            str(FIXTURES / "301-gfx906-radeon-vii-rocm6.4.0-rocblas-tensile-missing-ubuntu24.04")])
    assert rc == 0, err
    assert json.loads(out)["rocm"]["version"] == "6.4.0"


def test_mi50_on_a_rocm64_wheel_is_sent_to_the_rocm63_index(tmp_path):
    sys.path.insert(0, str(DOCTOR))
    from _doctor_systems import gpu, healthy

    s = healthy()
    s.gpus = [gpu("gfx906", "AMD Instinct MI50", "66a1")]
    snap = tmp_path / "mi50.json"
    snap.write_text(json.dumps(model.to_dict(s)))
    rc, text, err = run_cli(["doctor", "--snapshot", str(snap)])
    assert rc == 2 and "wheel-library-lacks-kernels" in text, err
    assert "torch 2.13.0" not in text and "+rocm7.2" not in text.split("Ways out", 1)[1]
    target = _torch_target(_plan(snap))
    assert target.endswith("+rocm6.3"), target


def test_core_sdk_101_host_is_told_torchvision_0290a0(tmp_path):
    d = json.loads((SYSTEMS / "seed-rx7900xt-resolute-fresh.json").read_text())
    d["os"].update({"version_id": "24.04", "codename": "noble", "pretty_name": "Ubuntu 24.04.5 LTS",
                    "kernel": "7.0.0-14-generic"})
    d["rocm"]["version"] = "10.1.0"
    d["rocm"]["packages"] = {"amdrocm-core-sdk10.1-gfx1100": "10.1.0-1"}
    snap = tmp_path / "core101.json"
    snap.write_text(json.dumps(d))
    rc, text, err = run_cli(["doctor", "--snapshot", str(snap)])
    assert rc in (0, 2), err
    way = text.split("Ways out", 1)[1]
    assert "torch 2.14.0 + torchvision 0.29.0a0 + torchaudio 2.11.0.3" in " ".join(way.split()), way
    plan = _plan(snap, "--path", "torch-reinstall", "--venv", "/home/u/v")
    step = next(s for s in plan["steps"] if s["kind"] == "pip-install")
    assert "torchvision[device-gfx1100]==0.29.0a0+rocm10.1.0" in json.dumps(step["params"])


def test_rdna2_under_wsl_gets_no_docker_plan_either():
    snap = FIXTURES / "424-wsl2-rx6800xt-rocm7.1.0-rdna2-oor"
    for args in ((), ("--path", "docker")):
        rc, out, err = run_cli(["--plan-only", "--snapshot", str(snap), *args])
        # README's exit rule: a way that does not apply to this system is 3, whether asked for with
        # --path or taken by the default rule
        assert rc == 3 and not out, (args, err)
        assert "AMD does not support gfx1030 under WSL" in err and "no image can run on it" in err


def test_docker_ways_are_checked_against_amds_wsl_list():
    from rocm_wizard.resolve import resolver
    from rocm_wizard.resolve.facts import Facts, GpuFact

    f = Facts(gpus=[GpuFact("gfx1030", "AMD Radeon RX 6800 XT", False)], python="3.12", os_id="ubuntu",
              os_version="24.04", wsl=True)
    res = resolver.docker_ways(f)
    assert not res.offered
    assert any(w.check("wsl-gpu") is not None and w.check("wsl-gpu").verdict == "violated" for w in res.rejected)
    native = Facts(gpus=[GpuFact("gfx1030", "AMD Radeon RX 6800 XT", False)], python="3.12", os_id="ubuntu",
                   os_version="24.04")
    assert all(w.check("wsl-gpu") is None for w in resolver.docker_ways(native).rejected + resolver.docker_ways(native).offered)


def test_wsl_host_on_rocm_613_gets_a_6x_wheel_without_its_own_hsa_runtime():
    snap = FIXTURES / "426-wsl2-rx7900xtx-rocm6.1.3-torch-not-available"
    rc, out, err = run_cli(["detect", "--json", "--snapshot", str(snap)])
    rocm = json.loads(out)["rocm"]
    assert rocm["version"] == "6.1.3" and "Configuration file" in rocm["sources"]["version"]
    assert any("issue form says ROCm 6.1.0" in n for n in rocm["notes"])
    plan = _plan(snap, "--path", "torch-reinstall", "--venv", "/home/u/v")
    assert _torch_target(plan).endswith("+rocm6.1")
    assert any(s["kind"] == "wsl-hsa-remove" for s in plan["steps"])
