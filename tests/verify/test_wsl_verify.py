"""verify under WSL 2: no /dev/kfd there, so the device-node check looks at /dev/dxg (ROCm's WSL path,
librocdxg README), the failure points at WSL and the Windows driver, and `verify --docker` passes
/dev/dxg with the WSL libraries instead of /dev/kfd."""
from __future__ import annotations

import copy
import types

from rocm_wizard.verify.runner import analyse, docker_device_args

from _verify_helpers import fixture_doc, load_smoke_module

SMOKE = load_smoke_module()
DXG_OK = {"path": "/dev/dxg", "exists": True, "mode": "crw-rw-rw-", "group": "root", "accessible": True}


def _kfd_check(host):
    smoke = SMOKE.Smoke.__new__(SMOKE.Smoke)
    seen = []
    smoke.opts = types.SimpleNamespace(only=None)
    smoke.build = "rocm"
    smoke.host = host
    smoke.add = lambda name, device, res: seen.append((name, res))
    smoke.skip = lambda name, device, reason: seen.append((name, {"status": "skip", "reason": reason}))
    smoke.check_kfd()
    assert len(seen) == 1 and seen[0][0] == "kfd"
    return seen[0][1]


def test_wsl_passes_on_dxg_without_kfd():
    res = _kfd_check({"wsl": True, "user": "u", "device_nodes": [{"path": "/dev/kfd", "exists": False}, DXG_OK]})
    assert res["status"] == "pass" and "/dev/dxg usable" in res["reason"]


def test_dxg_alone_means_wsl_even_when_the_kernel_was_not_recognised():
    res = _kfd_check({"user": "u", "device_nodes": [{"path": "/dev/kfd", "exists": False}, DXG_OK]})
    assert res["status"] == "pass" and res["details"]["wsl"] is True


def test_wsl_without_dxg_fails_with_the_wsl_reason_and_layer():
    res = _kfd_check({"wsl": True, "user": "u", "device_nodes": [{"path": "/dev/kfd", "exists": False},
                                                                 {"path": "/dev/dxg", "exists": False}]})
    assert res["status"] == "fail" and res["reason"].startswith("WSL: /dev/dxg does not exist")
    assert "amdgpu" not in res["reason"]
    doc = copy.deepcopy(fixture_doc("handmade/rocm-kfd-not-accessible.json"))
    for c in doc["checks"]:
        if c["name"] == "kfd":
            c.update(status="fail", reason=res["reason"], details=res["details"])
    report = analyse(doc)
    rules = [d.rule_id for d in report.errors]
    assert "wsl-dxg-missing" in rules and "amdgpu-not-loaded" not in rules


def test_native_host_still_checks_kfd():
    res = _kfd_check({"user": "u", "amdgpu_loaded": False, "device_nodes": [{"path": "/dev/kfd", "exists": False}]})
    assert res["status"] == "fail" and "/dev/kfd does not exist" in res["reason"]


def test_docker_args_under_wsl(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "dxg").write_text("")
    (tmp_path / "usr" / "lib" / "wsl" / "lib").mkdir(parents=True)
    (tmp_path / "usr" / "lib" / "wsl" / "lib" / "libdxcore.so").write_text("")
    args = docker_device_args(str(tmp_path))
    assert args[0] == "--device=/dev/dxg" and not any("kfd" in a or "/dev/dri" in a for a in args)
    assert "/usr/lib/wsl/lib/libdxcore.so:/usr/lib/libdxcore.so:ro" in args
    assert not any("librocdxg" in a for a in args)  # not on this host: not mounted
    assert "HSA_ENABLE_DXG_DETECTION=1" in args
