"""Held-out set FW (tests/data/real/2780-2783, HELDOUT.md): a second theme-neutral sample of ROCm's main tracker
(ROCm/legacy-rocm-build, issues 5700 and above): rocm-smi's errant low-power warning on two healthy systems, an MI300A on a
custom kernel whose amdgpu is not loaded, amd-smi's all-N/A metrics on Strix Halo.  On the unchanged code the two healthy
fixtures stayed quiet, 2781 was warned at kernel but led by apt's packaging lines (the corpus' root-cause order puts
packaging first) and 2783 had no warning (told only in title and prose; in MISSES).  The fix: apt's refusal of the
running kernel's companion packages ('Unable to locate package linux-modules-extra-<release>', "Couldn't find any
package by glob 'linux-headers-<release>'", apt-private/private-cacheset.cc and apt-pkg/cacheset.cc), the prerequisite
line of AMD's install guide, is a catalogue row at packaging that says what it means: the kernel is not one the
distribution's repositories ship."""
from __future__ import annotations

import pytest

from rwtest import realrun
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

KERNEL_PKGS = "fw_apt_running_kernel_packages_not_found"


@pytest.mark.parametrize("num,layer", [("2780", None), ("2781", "packaging"), ("2782", None)])
def test_the_set_fw_fixtures_lead_where_they_do(num, layer):
    # 2780 and 2782 are healthy (rocm-smi's low-power warning is informational); 2781 (labelled kernel when measured,
    # packaging since) is led by packaging
    assert _lead_layer(_fixture(num)) == layer


def test_2781_names_the_kernel_packages_row_and_warns_at_kernel():
    folder = _fixture("2781")
    text = (folder / "apt.txt").read_text()
    assert KERNEL_PKGS in _ids(text)
    found = problems(realrun.diagnosis(folder))
    assert ("known-failure", "kernel") in found and ("known-failure", "packaging") in found
    assert not any(rule == "unrecognised-failure" for rule, _ in found), found


@pytest.mark.parametrize("text", [
    # the fixture's lines, the author's ** markup and the missing space after 'E:' kept (ROCm/legacy-rocm-build#5736)
    "E:Unable to locate package linux-modules-extra-5.18.2-mi300-build-140423-**ubuntu-22.04**",
    "E: Couldn't find any package by glob 'linux-modules-extra-5.18.2-mi300-build-140423-ubuntu-22.04'",
    # a Proxmox VE kernel (a public chat log the code index holds: apt install -y linux-modules-extra-$(uname -r))
    "E: Unable to locate package linux-modules-extra-6.8.12-11-pve",
    # Ubuntu's kernel 7.0, whose amdgpu is in the image package already (a 2026 install note the code index holds)
    "E: Unable to locate package linux-modules-extra-7.0.0-31-generic",
    # WSL1's kernel release (a setup note the code index holds) and a Kali kernel (regex form, older apt)
    "E: Unable to locate package linux-headers-4.4.0-19041-Microsoft",
    "E: Couldn't find any package by regex 'linux-headers-4.17.0-kali1-amd64'",
])
def test_the_kernel_packages_row_reads_real_wordings(text):
    assert KERNEL_PKGS in _ids(text)


@pytest.mark.parametrize("text", [
    "E: Unable to locate package linux-modules-extra-generic",        # a meta-package name, no kernel release
    "E: Package 'linux-headers-generic' has no installation candidate",  # another apt message
    "E: Unable to locate package rocm-hip-sdk",                       # an AMD package (apt_unable_to_locate2's)
    "sudo apt install \"linux-headers-$(uname -r)\" \"linux-modules-extra-$(uname -r)\"",  # the command itself
])
def test_lines_that_are_not_a_missing_kernel_package_are_not_read_by_it(text):
    assert KERNEL_PKGS not in _ids(text)
