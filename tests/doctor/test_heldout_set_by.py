"""Held-out set BY (tests/data/real/1640-1646, HELDOUT.md): GPU memory -- out-of-memory, allocators and memory
reporting.  Each miss's cause fixed from the program that prints the line: Mesa's AMD winsys refusing a GPU buffer
(src/amd/vulkan/winsys/amdgpu/radv_amdgpu_bo.c, src/gallium/winsys/amdgpu/drm/amdgpu_bo.c,
src/gallium/winsys/radeon/drm/radeon_drm_bo.c), and the HIP runtime API's own names (ROCm/clr
include/hip/hip_runtime_api.h) placing a line at the HIP layer; tested on the fixture and on other wordings of the
same sources, with near misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

ROW = "by_mesa_winsys_buffer_alloc_failed"


# -- Mesa's AMD winsys cannot allocate a GPU buffer (1644) -----------------------------------------------
def test_1644_the_radv_buffer_failure_is_named_and_leads_at_framework():
    assert_named_and_leads("1644", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (RADV's Vulkan winsys, Mesa 23 and later)
    "radv/amdgpu: Failed to allocate a buffer:",
    # radeonsi's and the older RADV winsys' own prefix (src/gallium/winsys/amdgpu/drm/amdgpu_bo.c)
    "amdgpu: Failed to allocate a buffer:",
    # the pre-GCN 'radeon' winsys (src/gallium/winsys/radeon/drm/radeon_drm_bo.c)
    "radeon: Failed to allocate a buffer:",
    # as a journald line of a llama-server service
    "Aug 19 10:02:11 halo llama-server[4242]: radv/amdgpu: Failed to allocate a buffer:",
])
def test_mesa_winsys_buffer_failure_wordings(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # the continuation lines alone say nothing failed
    "radv/amdgpu:    size      : 4269813760 bytes",
    "radv/amdgpu:    domains   : 2",
    # another program's buffer failure, not Mesa's winsys
    "ggml_vulkan: Device memory allocation of size 4269813760 failed.",
    "myamdgpu: Failed to allocate a buffer:",
])
def test_mesa_winsys_buffer_failure_near_misses(line):
    assert ROW not in _ids(line)


# -- a line naming a HIP runtime API call is about the HIP layer (1645) ------------------------------------
def test_1645_the_told_hipmallocasync_failure_leads_at_hip():
    assert _lead_layer(_fixture("1645")) == "hip"


@pytest.mark.parametrize("line", [
    "[Issue]: hipMallocAsync reports out-of-memory but still allocates all remaining memory",
    "hipMemGetInfo returns the wrong total on this APU",
    "hipGetDeviceProperties fails after the driver update",
    "the hipDeviceProp_t totalGlobalMem field is wrong",
    "hipMallocFromPoolAsync segfaults",
])
def test_hip_api_names_place_a_line_at_hip(line):
    assert failure_lines.layer_of(line) == "hip"


@pytest.mark.parametrize("line", [
    # words that start with 'hip' but are no HIP API name (no capital after 'hip')
    "the hipster benchmark failed",
    "hipped roof render failed",
])
def test_words_starting_with_hip_are_not_hip_api_names(line):
    assert failure_lines.layer_of(line) != "hip"
