"""The doctor's Docker way under WSL 2 passes AMD's WSL container flags (/dev/dxg, DXCore, librocdxg)
instead of refusing or passing /dev/kfd, and names its source."""
from __future__ import annotations

from _doctor_systems import healthy
from rocm_wizard.doctor import diagnose


def _docker(system):
    r = diagnose(system).recommendation("docker")
    assert r is not None
    return r


def test_wsl_docker_way_uses_dxg():
    system = healthy()
    system.os.wsl = True
    assert _docker(healthy()).applies  # the same box, native: the way applies
    r = _docker(system)
    assert r.applies, r.why
    assert "--device=/dev/dxg" in r.target["flags"]
    assert not any("kfd" in a for a in r.target["flags"])
    assert "librocdxg-readme" in r.sources
    assert "HSA_ENABLE_DXG_DETECTION=1" in r.why


def test_native_docker_way_keeps_kfd():
    r = _docker(healthy())
    assert r.applies
    assert "--device=/dev/kfd" in r.target["flags"] and "/dev/dxg" not in " ".join(r.target["flags"])


# -- the wsl2 finding names the ROCm WSL user space the pastes show, with its sources ---------------
from pathlib import Path  # noqa: E402

from rocm_wizard.detect import detect_snapshot  # noqa: E402

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _wsl2(folder):
    d = diagnose(detect_snapshot(str(REAL / folder)))
    return next(f for f in d.findings if f.id == "wsl2")


def test_wsl2_finding_on_the_6x_runtime():
    f = _wsl2("244-wsl2-rx7900xtx-rocm6.3.4-thunk-proxy-assertion")
    assert any(e.startswith("ROCm WSL user space: rocr4wsl") and "thunk_proxy" in e for e in f.evidence)
    assert "libhsa-runtime64" in f.fix and "amd-wsl-pytorch" in f.fix


def test_wsl2_finding_on_librocdxg():
    f = _wsl2("421-wsl2-win10-rx9070xt-rocm7.2.3-librocdxg-not-found")
    assert any(e.startswith("ROCm WSL user space: librocdxg") for e in f.evidence)
    assert "HSA_ENABLE_DXG_DETECTION=1" in f.fix and "librocdxg-readme" in f.fix


def test_wsl2_finding_without_a_user_space_claims_none():
    f = _wsl2("422-wsl2-win10-rx9060xt-hsa-oor-rocdxg")
    assert not any("user space" in e for e in f.evidence)
