"""Held-out set GF (tests/data/real/2870-2872, HELDOUT.md): a theme-neutral sample of ROCm's installation trackers;
the three threads new to the corpus are amdgpu-dkms build failures from ROCm/ROCm.  2871 and 2872 led at packaging on
the unchanged code.  2870's paste is the DKMS apport crash report and a compiler error in the amdgpu-dkms tree's
compatibility layer, neither of which the catalogue read, so rocminfo's 'ROCk module is NOT loaded' (kernel) led.
Two rows, both mapped to the dkms-build-failed rule:

* gf_dkms_apport_module_failed_to_build: dell/dkms dkms_apport.py's report title
  ("%s %s: %s kernel module failed to build" % (package, version, module)).
* gf_amdgpu_dkms_tree_compile_error: gcc's 'error: ' line (gcc/diagnostic.cc) for a file of amdgpu-dkms's build tree
  (/tmp/amd.XXXXXXXX, /var/tmp/amd.XXXXXXXX or /var/lib/dkms/amdgpu/<version>/build) outside amd/amdgpu/, which
  kernel_dkms_compile_error already reads."""
from __future__ import annotations

import pytest

from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems as _problems
from rwtest import realrun


@pytest.mark.parametrize("num", ["2870", "2871", "2872"])
def test_the_set_gf_fixtures_lead_at_packaging(num):
    assert _lead_layer(_fixture(num)) == "packaging"


def test_2870_leads_with_the_dkms_build_failure():
    assert _problems(realrun.diagnosis(_fixture("2870")))[0] == ("dkms-build-failed", "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's crash report (ROCm/ROCm#4164, 2024-12)
    "Title: amdgpu-dkms 1:6.10.5.60300-2084815.22.04: amdgpu kernel module failed to build",
    # ROCm/ROCm#3762 (2024-09-19, Ubuntu 24.04, the apport report's last line)
    "Title: amdgpu-dkms 1:6.8.5.60200-2009582.24.04: amdgpu kernel module failed to build",
    # the format string's output for another DKMS package (dkms_apport.py: package, version, module)
    "nvidia-dkms-535 535.183.01-0ubuntu0.22.04.1: nvidia kernel module failed to build",
])
def test_the_dkms_apport_title_is_read(line):
    assert "gf_dkms_apport_module_failed_to_build" in _ids(line)


@pytest.mark.parametrize("line", [
    "I think the amdgpu kernel module failed to build again",            # prose, no package and version
    "modprobe: ERROR: could not insert 'amdgpu': the kernel module failed to load",
    "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)",   # dkms's own line (other row)
])
def test_lines_that_are_not_the_apport_title(line):
    assert "gf_dkms_apport_module_failed_to_build" not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's make.log (ROCm/ROCm#4164, the compatibility layer's header)
    "/var/tmp/amd.cekS6emA/include/kcl/kcl_drm_dp_cec.h:67:53: error: passing argument 2 of ‘drm_dp_cec_register_connector’"
    " from incompatible pointer type [-Werror=incompatible-pointer-types]",
    # ROCm/ROCm#2939 (2024-03, Ubuntu 24.04 daily, ttm in /var/lib/dkms)
    "/var/lib/dkms/amdgpu/6.3.6-1718217.22.04/build/include/drm/ttm/ttm_pool.h:77:45: error: ‘MAX_ORDER’ undeclared here"
    " (not in a function); did you mean ‘PMD_ORDER’?",
    # ROCm/ROCm#5111 (2026-08-01, Debian 13 kernel 6.12.100)
    "/tmp/amd.3JmYtJx8/amd/amdgpu/amdgpu_device.c:1752:13: error: too few arguments to function ‘pci_resize_resource’",
    # ROCm/ROCm#3762 (2024-09-20, the display code)
    " /tmp/amd.TeqEPO3b/amd/amdgpu/../display/amdgpu_dm/amdgpu_dm_helpers.c:563:64: error: passing argument 2 of"
    " ‘drm_dp_add_payload_part2’ from incompatible pointer type [-Werror=incompatible-pointer-types]",
])
def test_a_compile_error_in_the_amdgpu_dkms_tree_is_read(line):
    assert "gf_amdgpu_dkms_tree_compile_error" in _ids(line)


@pytest.mark.parametrize("line", [
    # a warning of the same tree (the fixture's crash report) is no failure
    " /var/tmp/amd.MPVyukgA/amd/amdkcl/kcl_device_cgroup.c:29:6: warning: no previous prototype for"
    " ‘amdkcl_dev_cgroup_init’ [-Wmissing-prototypes]",
    "/tmp/build/kernels/foo.c:12:3: error: unknown type name ‘bar’",                 # a user's own tree
    "/tmp/amd.abc/x.c:1:1: error: expected ‘;’",                                   # not mktemp's 8 characters
    "/opt/rocm/include/hip/amd_detail/amd_hip_runtime.h:10:3: error: unknown type name",   # a HIP build
])
def test_lines_outside_the_amdgpu_dkms_tree_are_not_read(line):
    assert "gf_amdgpu_dkms_tree_compile_error" not in _ids(line)
