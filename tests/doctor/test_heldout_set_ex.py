"""Held-out set EX (tests/data/real/2584-2588, HELDOUT.md): a theme-neutral sample of Ollama's AMD GPU issues of
2025-2026.  2584's failing lines are the amdgpu driver's 'init_user_pages: Failed to get user pages: -1'
(torvalds/linux drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd_gpuvm.c, init_user_pages: pr_err("%s: Failed to get user
pages: %d\\n", __func__, ret) and the function's other pr_err lines), read at kernel by the row
ex_amdgpu_init_user_pages_failed; 2585, 2587 and 2588 led at their layers on the unchanged code; 2586 (a load timeout
told only in prose, the paste Ollama's INFO status line) is a miss (tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "ex_amdgpu_init_user_pages_failed"


@pytest.mark.parametrize("num,layer", [("2584", "kernel"), ("2585", "framework"), ("2587", "framework"),
                                       ("2588", "hip")])
def test_the_set_ex_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_load_timeout_told_in_prose_stays_a_miss():
    # 2586's one pasted line is Ollama's INFO health-check status, which healthy loads print too
    assert _lead_layer(_fixture("2586")) is None


def test_the_row_names_2584s_line_and_leads_at_kernel():
    assert_named_and_leads("2584", ROW, "kernel")


@pytest.mark.parametrize("line", [
    # the fixture's line (ollama/ollama#8843, gfx942)
    "[547815.107451] amdgpu: init_user_pages: Failed to get user pages: -1",
    # an R9700 under Fedora 43's kernel 6.17.8 (ollama/ollama#12893, corpus 2302)
    "[  407.534311] amdgpu: init_user_pages: Failed to get user pages: -1",
    # the older 'kfd2kgd:' prefix and -EFAULT (ROCm/ROCK-Kernel-Driver#377's title, 2018)
    "kfd2kgd: init_user_pages: Failed to get user pages: -14",
    # -EBUSY under kfdtest's large-buffer stress test (the amd-gfx list's report of a regression)
    "[17359.536303] amdgpu: init_user_pages: Failed to get user pages: -16",
])
def test_the_row_reads_the_drivers_wordings(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "kernel"


@pytest.mark.parametrize("line", [
    # the restore worker's retry of an invalidated userptr, normal when a freed userptr is still mapped
    # (ROCm/ROCm#343, answered by AMD's KFD maintainer): another function, not an allocation that failed
    "[ 2276.535340] kfd2kgd: update_invalid_user_pages: Failed to get user pages: -14",
    # newer kernels' debug-level retry line for -EAGAIN (no errno, no function prefix)
    "amdgpu: Failed to get user pages, try again",
    # a Raspberry Pi driver's own get_user_pages failure (vchiq_arm), not amdgpu's
    "vchiq_arm: Failed to get user pages: -14",
])
def test_lines_that_are_not_init_user_pages_failing_do_not_match(line):
    assert ROW not in _ids(line)
