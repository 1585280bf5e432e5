"""Held-out set HX (tests/data/real/3270-3273, HELDOUT.md): a second theme-neutral sample of the amdgpu/amdkfd
kernel driver's compute-side threads (ROCm/amdgpu, distribution kernel trackers) where a compute workload meets a
kernel log.  On the unchanged code three of four led at the kernel layer; 3273 (an Ubuntu kernel update breaking
Ollama's hipMemGetInfo) is told at the kernel only in prose, so it stays a miss.  Two catalogue rows were added for
amdkfd lines no row named: the userptr restore worker's 'Failed to resume KFD' (drivers/gpu/drm/amd/amdgpu/
amdgpu_amdkfd_gpuvm.c) and the device queue manager's 'No more SDMA queue to allocate' (drivers/gpu/drm/amd/amdkfd/
kfd_device_queue_manager.c allocate_sdma_queue)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

RESUME = "hx_kfd_restore_userptr_resume_failed"
SDMA = "hx_kfd_no_more_sdma_queue"


def test_the_set_hx_fault_fixture_leads_at_the_kernel():
    assert _lead_layer(_fixture("3271")) == "kernel"


def test_the_resume_fixture_is_named_and_leads_at_the_kernel():
    assert_named_and_leads("3270", RESUME, "kernel")


def test_the_sdma_fixture_is_named_and_leads_at_the_kernel():
    assert_named_and_leads("3272", SDMA, "kernel")


@pytest.mark.parametrize("line", [
    # the fixture's line (getsolus/packages#7986, RDNA4 under ComfyUI on kernel 6.18)
    "[ 2399.645506] amdgpu: amdgpu_amdkfd_restore_userptr_worker: Failed to resume KFD",
    # the same worker's line as a 2026 write-up on gfx1151 freezes quotes it (no timestamp)
    "amdgpu: amdgpu_amdkfd_restore_userptr_worker: Failed to resume KFD",
    # the format of older kernels' unmap path (amdgpu_amdkfd_gpuvm.c: pr_err(\"Failed to resume KFD\\n\"))
    "[  512.000001] amdgpu: Failed to resume KFD",
])
def test_the_resume_row_reads_the_worker_line(line):
    assert RESUME in _ids(line)
    assert error_signatures.failure_layer(RESUME) == "kernel"


@pytest.mark.parametrize("line", [
    "amdgpu: Failed to resume the display after suspend",    # another failure of resume, not KFD's
    "KFD resume finished, all processes restored",           # prose / a success
    "[    5.123456] amdgpu: amdgpu_amdkfd_restore_userptr_worker started",
])
def test_near_misses_do_not_match_the_resume_row(line):
    assert RESUME not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/rocRAND#641, rocRAND's tests on gfx1151, Fedora Rawhide 6.14-rc6)
    "[74795.658896] amdgpu 0000:c4:00.0: amdgpu: No more SDMA queue to allocate",
    # a journal's copy (ROCm/ROCm#5151's reporter, gfx1151, Ubuntu 24.04, kernel 6.14)
    "Aug 05 10:28:24.811915 my-server kernel: amdgpu 0000:c5:00.0: amdgpu: No more SDMA queue to allocate",
    # the 2026 wording with the device's count (kfd_device_queue_manager.c dev_warn ... (%d total queues)), as a kernel-log
    # watcher's test quotes it
    "amdgpu 0000:43:00.0: amdgpu: No more SDMA queue to allocate (16 total queues)",
    # the XGMI branch of allocate_sdma_queue
    "[  100.000000] amdgpu: No more XGMI SDMA queue to allocate",
])
def test_the_sdma_row_reads_the_allocator_line(line):
    assert SDMA in _ids(line)
    assert error_signatures.failure_layer(SDMA) == "kernel"


@pytest.mark.parametrize("line", [
    "[  100.000000] amdgpu: SDMA queue already in use",           # the same function's other refusal
    "SDMA queues allocated: 2 of 16",                            # a count, no failure
    "[   12.000000] amdgpu 0000:03:00.0: amdgpu: ring sdma0 uses VM inv eng 12 on hub 0",
])
def test_near_misses_do_not_match_the_sdma_row(line):
    assert SDMA not in _ids(line)
