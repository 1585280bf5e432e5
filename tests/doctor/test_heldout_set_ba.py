"""Held-out set BA (tests/data/real/1340-1346, HELDOUT.md): rich system information pasted beside a failure.
1345's miss, a kernel WARNING in AMD's out-of-tree amdgpu module (amdgpu-dkms), fixed from the program that prints
the line: the kernel's __warn (kernel/panic.c: "WARNING: CPU: %d PID: %d at %s:%d %pS") with the file named as the
DKMS build gives it (relative to its own source tree, or under /var/lib/dkms/amdgpu/<version>/build); tested on the
fixture and on another thread's wording, with near-misses the row must leave to the in-tree row or to nothing."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

ROW = "s12ba_kernel_warn_in_amdgpu_dkms"


def test_1345_the_dkms_modules_warning_is_named_and_leads_at_kernel():
    assert_named_and_leads("1345", ROW, "kernel")


@pytest.mark.parametrize("line", [
    # the fixture's line (journalctl -k, amdgpu 6.16.13 DKMS on Ubuntu's 6.17.0-14-generic)
    "Mar 12 00:28:40 thinkpaddy kernel: WARNING: CPU: 13 PID: 160480 at amd/amdgpu/../display/amdgpu_dm/amdgpu_dm.c:10396 "
    "amdgpu_dm_atomic_commit_tail+0x3c86/0x4540 [amdgpu]",
    # the DKMS build directory's absolute path (ROCm/amdgpu#103: amdgpu 3.9-19 on 5.4.0-54-generic)
    "[    1.977806] WARNING: CPU: 6 PID: 201 at /var/lib/dkms/amdgpu/3.9-19/build/amd/amdgpu/../display/dc/clk_mgr/dcn21/"
    "rn_clk_mgr.c:716 rn_clk_mgr_construct+0x129/0x410 [amdgpu]",
    # the module's scheduler and TTM copies, and its KFD part, under the same tree
    "[  812.104221] WARNING: CPU: 2 PID: 4411 at scheduler/sched_main.c:1130 drm_sched_job_arm+0x5c/0x70 [amd_sched]",
    "[ 3051.778120] WARNING: CPU: 30 PID: 77210 at amd/amdkfd/kfd_device_queue_manager.c:2270 "
    "destroy_queue_cpsch+0x1e8/0x210 [amdgpu]",
    # the source tree the amdgpu-dkms package installs
    "[   44.301111] WARNING: CPU: 0 PID: 912 at /usr/src/amdgpu-6.12.12-2147987.24.04/amd/amdgpu/amdgpu_vm.c:1573 "
    "amdgpu_vm_bo_update+0x6cc/0x740 [amdgpu]",
])
def test_the_out_of_tree_modules_warning_is_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    # the in-tree driver's WARNING is the older row's (kernel_warn_in_amdgpu), not this one
    "[   93.248827] WARNING: CPU: 7 PID: 2893 at drivers/gpu/drm/amd/amdgpu/../display/dc/hubbub/dcn31/dcn31_hubbub.c:151 "
    "hubbub31_init_dchub_sys_ctx+0x610/0x27d0 [amdgpu]",
    # another driver's WARNING, out of tree or not
    "[  120.000001] WARNING: CPU: 3 PID: 1200 at net/wireless/nl80211.c:8411 nl80211_get_reg_do+0x1c5/0x220 [cfg80211]",
    "[  501.553210] WARNING: CPU: 1 PID: 345 at /var/lib/dkms/nvidia/550.54.14/build/nvidia/nv.c:5217 nv_pci_probe+0x1f/0x30 [nvidia]",
    # a build line naming the same file is no WARNING
    "  CC [M]  /var/lib/dkms/amdgpu/3.9-19/build/amd/amdgpu/../display/dc/clk_mgr/dcn21/rn_clk_mgr.o",
])
def test_other_warnings_are_not_this_row(line):
    assert ROW not in _ids(line), line


def test_the_row_is_the_kernels_and_a_warning():
    assert error_signatures.failure_layer(ROW) == "kernel"
    assert "kernel_warn_in_amdgpu" in _ids(
        "[   93.248827] WARNING: CPU: 7 PID: 2893 at drivers/gpu/drm/amd/amdgpu/amdgpu_irq.c:600 amdgpu_irq_put+0x9f/0xb0 [amdgpu]")
