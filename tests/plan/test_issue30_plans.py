"""Issue 30 on --plan-only: the Core SDK key pinned by default (AMD's repo-package builder, ROCm/TheRock
build_repo_package.py, PR #7269), the Core SDK release chosen by OS and kernel, Ryzen APUs on the
kernel's own driver (no amdgpu-dkms), and an MI50 (gfx906) sent to the last index whose rocBLAS has
its kernels.  Systems: the seed scenarios, the real Strix Halo paste tests/data/real/111-* (Ubuntu
26.04, kernel 7.0; its thread's answer: install with --no-dkms) and edits of them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from plan_helpers import SYSTEMS, run_cli

from rocm_wizard import model
from rocm_wizard.detect import detect_snapshot
from rocm_wizard.plan.build import Choices, build_plan

CORE_FPR = "D0F004A0025A1145C7807FCD0701EAC4D5E02107"
REAL = Path(__file__).resolve().parents[1] / "data" / "real"
RESOLUTE = SYSTEMS / "seed-rx7900xt-resolute-fresh.json"


def _seed(path: Path) -> model.System:
    with open(path) as fh:
        s = model.from_dict(model.System, json.load(fh))
    s.origin = "snapshot"
    return s


def test_coresdk_plan_on_ubuntu_2604_needs_no_fingerprint_flag_and_checks_amds_key():
    rc, out, err = run_cli(["--plan-only", "--path", "rocm-upgrade", "--snapshot", str(RESOLUTE)])
    assert rc == 2, err
    assert "Core SDK" in out and f"fpr={CORE_FPR}" in out
    assert "https://stable.repo.amd.com/rocm/gpg/packages.gpg" in out
    assert "build_repo_package.py" in err and "--rocm-core-key-fingerprint overrides it" in err
    rc, out, _err = run_cli(["--plan-only", "--format", "json", "--path", "rocm-upgrade", "--snapshot", str(RESOLUTE)])
    plan = json.loads(out)
    key = plan["facts"]["key"]
    assert key["fingerprint"] == CORE_FPR and key["status"] == "observed" and key["given"] is False
    assert "7269" in key["source"]


def test_a_given_core_fingerprint_still_overrides():
    other = "0123456789ABCDEF0123456789ABCDEF01234567"
    rc, out, err = run_cli(["--plan-only", "--path", "rocm-upgrade", "--snapshot", str(RESOLUTE),
                            "--rocm-core-key-fingerprint", other])
    assert rc == 2, err
    assert f"fpr={other}" in out and f"fpr={CORE_FPR}" not in out
    assert "given by you" in err


def test_ryzen_apu_upgrade_keeps_the_kernels_driver():
    """Strix Halo on Ubuntu 26.04 / kernel 7.0 (ROCm/legacy-rocm-build#6193): amdgpu-dkms fails to build
    there; AMD's Ryzen docs install ROCm on the kernel's own driver."""
    system = detect_snapshot(str(next(REAL.glob("111-*"))))
    plan = build_plan(system, Choices(path="rocm-upgrade", dkms=None))
    assert plan.inputs["dkms"] is False
    names = " ".join(st.id + " " + st.title for st in plan.steps)
    assert "amdgpu-dkms" not in names and "kernel driver" not in names
    note = next(n for n in plan.notes if "Ryzen APU" in n)
    assert "amdgpu-dkms" in note and "7.0 (generic)" in note  # AMD's Ryzen kernel on Ubuntu 26.04
    assert "gfx1151 needs at least Ubuntu HWE 6.17.0-19" in note and "6.18.4" in note  # the APU's own floor
    rc, out, err = run_cli(["--plan-only", "--path", "rocm-upgrade", "--snapshot", str(next(REAL.glob("111-*")))])
    assert rc == 2, err
    steps = [line for line in out.splitlines() if line.startswith("#    ") and ". " in line]
    assert steps and not any("amdgpu-dkms" in line or "kernel driver" in line for line in steps), steps
    from rocm_wizard.doctor import diagnose

    up = [r for r in diagnose(system).recommendations if r.path == "rocm-upgrade"][0]
    assert up.target["kernel_driver"].startswith("none (Ryzen APU")
    # asked for explicitly, the driver is still planned (the user's choice)
    assert build_plan(system, Choices(path="rocm-upgrade", dkms=True)).inputs["dkms"] is True


def test_coresdk_101_where_only_its_lists_name_the_os_and_kernel():
    s = _seed(RESOLUTE)
    s.os.pretty_name = "Ubuntu 26.04.1 LTS"
    plan = build_plan(s, Choices(path="rocm-upgrade", dkms=None))
    assert plan.inputs["rocm"] == "10.1.0"
    # 10.1's driver repository is not known: the installed driver is kept, said so, not refused
    assert plan.inputs["dkms"] is False and any("not known" in n and "kept" in n for n in plan.notes)
    s = _seed(RESOLUTE)  # plain 26.04: 10.0's list names it
    assert build_plan(s, Choices(path="rocm-upgrade", dkms=None)).inputs["rocm"] == "10.0.0"
    s = _seed(RESOLUTE)  # Ubuntu 24.04.5 with the HWE 7.0 kernel: only 10.1 lists it
    s.os.version_id, s.os.codename, s.os.pretty_name = "24.04", "noble", "Ubuntu 24.04.5 LTS"
    s.os.kernel = "7.0.0-14-generic"
    assert build_plan(s, Choices(path="rocm-upgrade", dkms=None)).inputs["rocm"] == "10.1.0"


def test_mi50_torch_plan_uses_the_rocm63_index():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "doctor"))
    from _doctor_systems import gpu, healthy

    s = healthy()
    s.gpus = [gpu("gfx906", "AMD Instinct MI50", "66a1")]
    plan = build_plan(s, Choices(path="torch-reinstall"))
    assert plan.inputs["torch"].endswith("+rocm6.3")
    assert plan.inputs["torch_index_url"] == "https://download.pytorch.org/whl/rocm6.3"


def test_wsl_torch_notes_follow_the_wheels_rocm():
    """AMD's WSL steps: ROCm 6.x wheels lose torch/lib/libhsa-runtime64.so*; from 7.2 librocdxg with
    HSA_ENABLE_DXG_DETECTION=1 instead (rocm-2026 errata; ROCm/librocdxg README)."""
    s = _seed(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
    s.os.wsl, s.os.kernel = True, "6.6.87.2-microsoft-standard-WSL2"
    # the host's 6.2 WSL runtime (rocr4wsl) takes a wheel no newer than itself (resolver check wsl-userspace)
    old = build_plan(s, Choices(path="torch-reinstall", torch="2.5.1+rocm6.2", venv="/home/u/v"))
    assert any("libhsa-runtime64.so" in n for n in old.notes)
    # a librocdxg host (7.2+) takes a 7.2 wheel, which keeps its own runtime
    s.os.wsl_userspace = "librocdxg"
    s.rocm.version = "7.2.1"
    new = build_plan(s, Choices(path="torch-reinstall", torch="2.13.0+rocm7.2", venv="/home/u/v"))
    note = next(n for n in new.notes if n.startswith("WSL:"))
    assert "librocdxg" in note and "HSA_ENABLE_DXG_DETECTION=1" in note and "libhsa-runtime64" not in note
