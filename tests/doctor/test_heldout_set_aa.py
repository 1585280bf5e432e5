"""Held-out set AA (tests/data/real/870-878, HELDOUT.md): the kernel and firmware side in 2026.
Each miss's cause fixed from the driver file that prints the line: amdgpu_smu.c's failed data-fabric C-state
message, gfx_v11/v12's pipe-reset fallback after a failed MES queue reset, amdgpu_mes.c's failed register
write-and-wait, KFD's failed page-table update (amdgpu_amdkfd_gpuvm.c), the layer of the kernel's
'Failed to disallow df cstate' (the same SMU message family as the SMU's busy answer), and DRM's panic-screen
registration (drm_panic.c), which is information.  Tested on the fixture and on other wordings of the same source,
with a near-miss for each."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect import failure_lines as fl
from rwtest.heldout import assert_named_and_leads, ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture


# -- the SMU's data-fabric C-state message (873) ----------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's journal line (dev_err, the device prefix)
    "Jul 26 23:54:52 bazzite kernel: amdgpu 0000:0c:00.0: amdgpu: [SetDfCstate] failed!",
    # the reporter's own excerpt of it (no prefix)
    "[SetDfCstate] failed!",
    # a dmesg line of another thread (a 7900-series GPU after an SMU that answers 0xFFFFFFFF)
    "[74985.365502] amdgpu 0000:0a:00.0: amdgpu: [SetDfCstate] failed!",
])
def test_the_smus_df_cstate_failure_is_named_at_kernel(line):
    assert "s10aa_smu_set_df_cstate_failed" in _ids(line), line
    assert error_signatures.failure_layer("s10aa_smu_set_df_cstate_failed") == "kernel"


def test_the_smus_answer_line_is_not_the_df_cstate_row():
    line = ("[74985.365495] amdgpu 0000:0a:00.0: amdgpu: SMU: response:0xFFFFFFFF for index:59 param:0x00000000 "
            "message:DFCstateControl?")
    assert "s10aa_smu_set_df_cstate_failed" not in _ids(line)


def test_disallow_df_cstate_sits_with_the_smus_other_messages_at_kernel():
    # the kernel's dev_warn after the failed request (amdgpu_device.c, amdgpu_xgmi.c), like fw_smu_busy
    assert error_signatures.failure_layer("kernel_disallow_df_cstate") == "kernel"
    assert error_signatures.failure_layer("fw_smu_busy") == "kernel"
    assert "kernel_disallow_df_cstate" in _ids("[  5.1] amdgpu 0000:03:00.0: amdgpu: Failed to disallow df cstate")


def test_873_the_mes_hang_leads_at_kernel():
    assert_named_and_leads("873", "s10aa_smu_set_df_cstate_failed", "kernel")


# -- the pipe-reset fallback after MES did not reset the queue (875) ----------------------------------------------
@pytest.mark.parametrize("line", [
    "[Thu Sep 10 14:36:18 2026] amdgpu 0000:03:00.0: amdgpu: reset via MES failed and try pipe reset -110",
    "amdgpu 0000:66:00.0: reset via MES failed and try pipe reset -110",
    # the once-only warning of the same fallback (gfx_v11/v12_pipe_reset_support)
    "amdgpu 0000:c1:00.0: amdgpu: The CPFW hasn't support pipe reset yet.",
    "Sep 30 15:31:44 amdgpu 0000:03:00.0: amdgpu: The CPFW hasn't support pipe reset yet",
])
def test_the_pipe_reset_fallback_is_named(line):
    assert "s10aa_mes_queue_reset_pipe_fallback" in _ids(line), line


def test_the_older_reset_via_mes_line_without_a_fallback_is_not_the_fallback_row():
    # kernels before the fallback printed dev_err(adev->dev, "reset via MES failed %d\n", r) and returned
    assert "s10aa_mes_queue_reset_pipe_fallback" not in _ids("amdgpu 0000:03:00.0: amdgpu: reset via MES failed -110")


def test_875_is_named_and_leads_at_kernel():
    assert_named_and_leads("875", "s10aa_mes_queue_reset_pipe_fallback", "kernel")


# -- MES's register write-and-wait (876, and set U's 750) ---------------------------------------------------------
@pytest.mark.parametrize("line", [
    "Jun 28 18:15:32 russbook4 kernel: amdgpu 0000:c2:00.0: amdgpu: failed to reg_write_reg_wait",
    # older kernels: DRM_ERROR with the function
    "[ 1637.605055] [drm:amdgpu_mes_reg_write_reg_wait [amdgpu]] *ERROR* failed to reg_write_reg_wait",
])
def test_the_failed_register_wait_is_named(line):
    assert "s10aa_mes_reg_write_reg_wait_failed" in _ids(line), line


def test_the_mes_answer_line_itself_stays_the_mes_row():
    line = "Jun 28 18:15:32 russbook4 kernel: amdgpu 0000:c2:00.0: amdgpu: MES failed to respond to msg=MISC (WAIT_REG_MEM)"
    got = _ids(line)
    assert "s10aa_mes_reg_write_reg_wait_failed" not in got and "kernel_mes_no_response" in got, got


def test_876_is_named_and_leads_at_kernel():
    assert_named_and_leads("876", "s10aa_mes_reg_write_reg_wait_failed", "kernel")


# -- KFD's page-table update (871) --------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "kvě 24 01:00:46 bc250 kernel: amdgpu: amdgpu_vm_bo_update failed",
    "kvě 24 01:00:46 bc250 kernel: amdgpu: update_gpuvm_pte() failed",
    "kvě 24 01:00:46 bc250 kernel: amdgpu: Failed to map bo to gpuvm",
    "[ 4035.38] amdgpu: Failed to map bo to gpuvm",
])
def test_kfds_page_table_update_failure_is_named(line):
    assert "s10aa_kfd_gpuvm_update_failed" in _ids(line), line


def test_a_stack_frame_naming_the_function_is_not_the_failure():
    frame = "[  246.948720]  amdgpu_vm_bo_update+0x1a2/0x6f0 [amdgpu 02022ce4aee5e37157721ed7588d157409a3623e]"
    assert "s10aa_kfd_gpuvm_update_failed" not in _ids(frame)
    # the VA-mapping failure of the same file stays its own row
    assert "s10aa_kfd_gpuvm_update_failed" not in _ids("amdgpu: Failed to map VA 0x7f0000000000 in vm. ret -12")


def test_871_is_named_and_leads_at_kernel():
    assert_named_and_leads("871", "s10aa_kfd_gpuvm_update_failed", "kernel")


# -- DRM's panic-screen registration is information (876) --------------------------------------------------------
@pytest.mark.parametrize("line", [
    "Jun 28 17:34:50 russbook4 kernel: amdgpu 0000:c2:00.0: [drm] Registered 4 planes with drm panic",
    "[    3.101] amdgpu 0000:03:00.0: [drm] Registered 1 planes with drm panic",
])
def test_drm_panic_registration_is_not_a_failure(line):
    assert fl.classify(line) is None, line


@pytest.mark.parametrize("line", [
    # drm_panic.c's own failure, beside the information line
    "[    3.101] amdgpu 0000:03:00.0: [drm] Failed to register panic handler",
    "[  120.5] Kernel panic - not syncing: Fatal exception",
])
def test_panic_lines_that_are_failures_stay_failures(line):
    assert fl.classify(line) == "shown", line


def test_the_set_leads_at_its_labelled_layer():
    for num in ("870", "872", "874", "877"):
        assert _lead_layer(_fixture(num)) == "kernel", num
