"""A native Windows host (detect's ``os.windows_native``): every way out here is a Linux plan (AMD's apt
repositories, PyTorch's Linux ROCm wheels, AMD's Linux images), so each is refused with the reason, and
the same system under WSL or Linux is not refused for it."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from rocm_wizard.resolve import resolve
from rocm_wizard.resolve.facts import Facts, GpuFact, from_system
from rocm_wizard.resolve.model import VIOLATED
from rocm_wizard.resolve.resolver import docker_ways, rocm_ways, torch_ways
from rwtest.ci import real_fixture


def _facts(**kw) -> Facts:
    base = dict(gpus=[GpuFact("gfx1100", "Radeon RX 7900 XTX", False)], python="3.12", torch="2.9.1+rocm6.4",
                os_id="ubuntu", os_version="24.04", kernel="6.8.0-60-generic")
    base.update(kw)
    return Facts(**base)


@pytest.mark.parametrize("ways", [torch_ways, docker_ways, rocm_ways])
def test_every_way_is_refused_on_a_native_windows_host_and_says_why(ways):
    res = ways(_facts(windows_native=True, os_id="", os_version="", kernel=""))
    assert not res.offered
    assert res.rejected and all(w.check("linux-host").verdict == VIOLATED for w in res.rejected)
    assert "native Windows host" in res.reason or any("native Windows" in c.detail for w in res.rejected
                                                      for c in w.checks if c.constraint == "linux-host")


@pytest.mark.parametrize("ways", [torch_ways, docker_ways, rocm_ways])
def test_linux_and_wsl_hosts_get_no_linux_host_check(ways):
    for f in (_facts(), _facts(wsl=True, kernel="6.6.87.2-microsoft-standard-WSL2")):
        res = ways(f)
        assert all(c.constraint != "linux-host" for w in res.offered + res.rejected for c in w.checks)
    assert torch_ways(_facts()).offered  # the Linux host still gets a way out


def test_wsl_wins_over_a_windows_sign():
    # a WSL kernel on the same system: the Linux side of WSL, whose plans do apply
    osi = SimpleNamespace(kernel="6.6.87.2-microsoft-standard-WSL2", wsl=True, windows_native=True, id="ubuntu",
                          version_id="24.04")
    f = from_system(SimpleNamespace(os=osi))
    assert f.wsl and not f.windows_native


def test_a_real_windows_paste_gets_no_linux_plan():
    from rocm_wizard.detect import detect_snapshot

    system = detect_snapshot(str(real_fixture("1147")))
    assert system.os.windows_native is True
    for path, res in resolve(system).items():
        assert not res.offered, path
