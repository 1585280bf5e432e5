"""The rocm-upgrade way on dnf hosts (issue 26): offered with AMD's rpm repositories on RHEL and its
rebuilds, Fedora's own packages on Fedora, refused with a reason elsewhere; a real Rocky 9.0 paste
gets AMD's point-release list instead of "apt only"."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from _doctor_systems import healthy
from rocm_wizard.doctor import diagnose

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _on(os_id, version, kernel="5.14.0-570.12.1.el9_6.x86_64", rocm=None):
    sysm = healthy()
    osi = dataclasses.replace(sysm.os, id=os_id, version_id=version, codename=None, pretty_name=f"{os_id} {version}",
                              kernel=kernel, hwe=None, kernel_flavour=None)
    out = dataclasses.replace(sysm, os=osi)
    if rocm is not None:
        out = dataclasses.replace(out, rocm=dataclasses.replace(sysm.rocm, version=rocm))
    return out


@pytest.mark.parametrize("os_id", ["rhel", "rocky", "almalinux", "ol"])
def test_el_hosts_are_offered_amds_rpm_repositories(os_id):
    up = diagnose(_on(os_id, "9.6", rocm="6.2.4")).recommendation("rocm-upgrade")
    assert up.applies, up.why
    assert up.target["stream"] == "dnf" and up.target["rocm"] == "6.4.3"
    assert up.target["rocm_repo"] == "https://repo.radeon.com/rocm/rhel9/6.4.3/main"
    assert up.target["driver_repo"] == "https://repo.radeon.com/amdgpu/6.4.3/rhel/9.6/main/x86_64"
    assert "priority=50" in up.why and "rpm --import" in up.why


def test_an_unlisted_point_release_gets_amds_list():
    up = diagnose(_on("rocky", "9.2", rocm="6.2.4")).recommendation("rocm-upgrade")
    assert not up.applies and "9.6 9.4" in up.why and "apt" not in up.why


def test_fedora_is_offered_its_own_packages():
    up = diagnose(_on("fedora", "40", kernel="6.8.5-301.fc40.x86_64")).recommendation("rocm-upgrade")
    assert up.applies and up.target["stream"] == "fedora" and up.target["rocm"] == "fedora"
    assert "no AMD repository" in up.why


def test_centos_and_arch_are_still_refused():
    for os_id in ("centos", "arch"):
        up = diagnose(_on(os_id, "9")).recommendation("rocm-upgrade")
        assert not up.applies and "apt repository path is for Ubuntu" in up.why


def test_a_real_rocky_paste_is_told_which_point_releases_amd_lists():
    folder = REAL / "028-gfx1030-rx6800-rocm5.3.0-rocky9.0"
    if not folder.is_dir():
        pytest.skip("fixture missing")
    from rocm_wizard.commands.main import load_system  # the loader doctor --snapshot uses

    up = diagnose(load_system(str(folder))).recommendation("rocm-upgrade")
    assert not up.applies and "Rocky" in up.why and "9.6 9.4" in up.why


def test_a_real_almalinux_paste_is_detected_and_planned_or_refused_with_a_reason():
    from rocm_wizard.commands.main import load_system
    from rocm_wizard.plan.build import Choices, PlanError, build_plan

    folder = Path(__file__).resolve().parents[1] / "data" / "dnf" / "almalinux9.2-rx7800xt-rocm5.6.1"
    system = load_system(str(folder))
    assert (system.os.id, system.os.version_id, system.os.kernel) == ("almalinux", "9.2", "5.14.0-284.30.1.el9_2.x86_64")
    with pytest.raises(PlanError) as exc:
        build_plan(system, Choices(path="rocm-upgrade", rocm="6.4.3"))
    assert "AlmaLinux 9.2" in exc.value.message and "RHEL 9.6 9.4" in exc.value.message
