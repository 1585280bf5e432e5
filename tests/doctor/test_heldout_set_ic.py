"""Held-out set IC (tests/data/real/3320-3324, HELDOUT.md): a fourth theme-neutral sample of ROCm's main tracker,
issues of ROCm/ROCm (indexed as ROCm/legacy-rocm-build) opened in 2026.  Four of the five fixtures lead at their
labelled layer on the unchanged code, through rows the catalogue already held: the kernel's compute-ring timeout
(3320), ROCr's innermost crash frame in a coredump's stack (3321), amdgpu_cs_ioctl's 'Not enough memory for command
submission!' (3323) and Python's ImportError for a missing shared object (3324).  The fifth (3322, an R9700's fan
that does not spin, ROCm/ROCm#6101) tells its failure only in the title and prose; its pasted lines are amdgpu's SMU
interface notice, which smu_v14_0_check_fw_version prints with dev_info on working cards too, so it stays in MISSES
(tests/doctor/test_known_failure.py) and no row was added.  These tests hold the set's leads and the rows' reading of
the lines, beside the wordings of the same programs that must stay apart."""
from __future__ import annotations

import pytest

from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids, lead_layer as _lead_layer,
                             problems)


@pytest.mark.parametrize("num,row,layer", [
    ("3320", "kernel_ring_timeout", "kernel"),
    ("3321", "bk_native_crash_innermost_frame_in_rocr", "runtime"),
    ("3323", "kernel_cs_not_enough_memory", "kernel"),
    ("3324", "shared_object_missing_import", "framework"),
])
def test_the_set_ic_fixtures_are_named_and_lead_at_their_layer(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_smu_notice_alone_raises_no_problem():
    # 3322: the SMU interface notice is information (508, 2364); the fan failure is prose only (MISSES)
    assert _lead_layer(_fixture("3322")) is None


@pytest.mark.parametrize("line,row", [
    # the kernel driver's own line (amdgpu_cs.c amdgpu_cs_ioctl), in 3323's form and the drm-prefixed form
    ("amdgpu 0000:03:00.0: [drm] *ERROR* Not enough memory for command submission!", "kernel_cs_not_enough_memory"),
    ("[drm:amdgpu_cs_ioctl [amdgpu]] *ERROR* Not enough memory for command submission!", "kernel_cs_not_enough_memory"),
    # Mesa's winsys wording of the same -ENOMEM (radv_amdgpu_cs.c), read at framework (2790, 3241)
    ("radv/amdgpu: Not enough memory for command submission.", "fx_mesa_winsys_cs_not_enough_memory"),
])
def test_the_command_submission_wordings_keep_their_programs(line, row):
    found = ids(line)
    assert row in found
    assert {"kernel_cs_not_enough_memory", "fx_mesa_winsys_cs_not_enough_memory"} & found == {row}


@pytest.mark.parametrize("line", [
    # amdgpu_vm_fini's dev_warn at a client's teardown: printed on healthy desktops too, left without a row
    "amdgpu 0000:03:00.0: VM memory stats for proc Discord(28374) task Discord:cs0(28320) is non-zero when fini",
    # the SMU interface notice (smu_v14_0.c dev_info), information on working cards
    "amdgpu 0000:2d:00.0: SMU driver if version not matched",
])
def test_teardown_and_interface_notices_are_not_problems(tmp_path, line):
    assert problems(doctor_files(tmp_path, {"dmesg.txt": line + "\n"})) == []
