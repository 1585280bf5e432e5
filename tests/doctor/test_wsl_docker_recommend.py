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
    assert "--device=/dev/dxg" in r.target["run"]
    assert not any("kfd" in a for a in r.target["run"])
    assert "librocdxg-readme" in r.sources
    assert "HSA_ENABLE_DXG_DETECTION=1" in r.why


def test_native_docker_way_keeps_kfd():
    r = _docker(healthy())
    assert r.applies
    assert "--device=/dev/kfd" in r.target["run"] and "/dev/dxg" not in " ".join(r.target["run"])
