"""Held-out set JA (tests/data/real/3560-3564, HELDOUT.md): threads of 2024-2026 on older AMD GPUs (gfx803 Polaris,
gfx900 Vega, gfx906 Radeon VII / MI50).  Four fixtures led at their labelled layer on the unchanged code; 3560 (an RX 580
whose HIP hello world and torch both segfault in libamdhip64) was read only by the catch-all, because its backtrace is
UCX's (openucx/ucx src/ucs/debug/debug.c: "Caught signal %d (%s: %s%s)", "==== backtrace (tid:%7d) ====", frames
"%2d  %s" over glibc's backtrace_symbols()), not gdb's, ASan's or systemd-coredump's, which the bk_native_crash_* rows
read.  The new row ja_ucx_crash_innermost_frame_in_hip_runtime reads the first frame after UCX's handler (libucs) and
the C library's signal trampoline when it is the HIP runtime's.  The one detection miss (3560's torch version, a source
build's bare '2.4.1' on a check script's 'Pytorch version:' line) is read now when the next line is the script's HIP
version line (paste_facts._TORCH_BARE_LABELLED / _TORCH_HIP_LABELLED, the reader set JD added for the same script)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "ja_ucx_crash_innermost_frame_in_hip_runtime"


@pytest.mark.parametrize("num,layer", [("3560", "hip"), ("3561", "kernel"), ("3562", "libraries"), ("3563", "hip"),
                                       ("3564", "framework")])
def test_the_set_ja_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_ucx_row_names_3560_and_leads_at_hip():
    assert_named_and_leads("3560", ROW, "hip")


_HEAD = "[archb:1612642:0:1612642] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x18)\n"
_UCX = (" 0  /opt/rocm_sdk_612/lib64/libucs.so.0(ucs_handle_error+0x2b4) [0x73cc42437234]\n"
        " 1  /opt/rocm_sdk_612/lib64/libucs.so.0(+0x3840f) [0x73cc4243740f]\n"
        " 2  /opt/rocm_sdk_612/lib64/libucs.so.0(+0x386de) [0x73cc424376de]\n"
        " 3  /usr/lib/libc.so.6(+0x3dcd0) [0x73cc4a04bcd0]\n")


@pytest.mark.parametrize("text", [
    # the fixture's report (lamikr/rocm_sdk_builder#173, comment of 2025-03-03: torch 2.4.1 on an RX 580)
    _HEAD + "==== backtrace (tid:1612642) ====\n" + _UCX
    + " 4  /opt/rocm_sdk_612/lib64/libamdhip64.so.6(+0x3b0fbd) [0x73cc3d7b0fbd]\n",
    # UCX pads the thread id to seven places (tid:%7d), as openucx/ucx#10583's '==== backtrace (tid:  78565) ====';
    # the innermost frame is hipRTC's
    "[ip-172-31-46-38:78565:0:78565] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at "
    "address 0x79f292000000)\n==== backtrace (tid:  78565) ====\n" + _UCX
    + " 4  /opt/rocm/lib/libhiprtc.so.6(+0x1a2b3) [0x79f3a2f88a62]\n",
    # a C library frame inside the faulting call (libc's memcpy under HIP's copy), then the HIP runtime's
    _HEAD + "==== backtrace (tid:1612642) ====\n" + _UCX
    + " 4  /lib/x86_64-linux-gnu/libc.so.6(+0x188a62) [0x79f3a2f88a62]\n"
    + " 5  /opt/rocm/lib/libamdhip64.so.7(hipMemcpy+0x5c) [0x73cc3d7b0fbd]\n",
])
def test_the_ucx_row_reads_a_hip_runtime_innermost_frame(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("text", [
    # openucx/ucx#10583 (2025-03): UCX's own ROCm transport crashed (libucs's memcpy under libuct_rocm), no HIP frame
    "[ip-172-31-46-38:78565:0:78565] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at "
    "address 0x79f292000000)\n==== backtrace (tid:  78565) ====\n"
    " 0  /opt/ucx/lib/libucs.so.0(ucs_handle_error+0x75) [0x79f3a5136b36]\n"
    " 1  /opt/ucx/lib/libucs.so.0(+0x448f8) [0x79f3a51368f8]\n"
    " 2  /opt/ucx/lib/libucs.so.0(+0x44a55) [0x79f3a5136a55]\n"
    " 3  /lib/x86_64-linux-gnu/libc.so.6(+0x45330) [0x79f3a2e45330]\n"
    " 4  /lib/x86_64-linux-gnu/libc.so.6(+0x188a62) [0x79f3a2f88a62]\n"
    " 5  /opt/ucx/lib/libucs.so.0(ucs_x86_memcpy_sse_movntdqa+0x2f) [0x79f3a510f27d]\n"
    " 6  /opt/ucx/lib/ucx/libuct_rocm.so.0(uct_rocm_copy_ep_get_short+0x6f) [0x79f3a318adc6]\n"
    " 7  /opt/rocm/lib/libamdhip64.so.6(+0x3b0fbd) [0x73cc3d7b0fbd]\n",
    # the faulting frame is torch's, the HIP runtime only further out
    _HEAD + "==== backtrace (tid:1612642) ====\n" + _UCX
    + " 4  /opt/rocm_sdk_612/lib/python3.11/site-packages/torch/lib/libtorch_hip.so(+0xa278a1) [0x73cc1e8278a1]\n"
    + " 5  /opt/rocm_sdk_612/lib64/libamdhip64.so.6(+0x21497f) [0x73cc3d61497f]\n",
    # UCX's BFD form names functions and source files, not objects (fmihpc/vlasiator#751)
    "Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n"
    "==== backtrace (tid:1220203) ====\n0 0x0000000000012ce0 __funlockfile()  :0\n"
    "1 0x000000000067af0e trans_map_1d()  cpu_trans_map.cpp:0\n",
])
def test_the_ucx_row_leaves_other_crashes(text):
    assert ROW not in _ids(text)


@pytest.mark.parametrize("text,want", [
    # the fixture's check script (lamikr/rocm_sdk_builder docs/examples/pytorch, a source build's bare version)
    ("Pytorch version: 2.4.1\nROCM HIP version: 6.1.40093-20b74aa10\ncuda device count: 1\n",
     [("2.4.1", "6.1.40093-20b74aa10")]),
    # the same pair with the other spellings the labels allow (a sketch, not a paste), a pre-release source build
    ("PyTorch version: 2.5.0a0\nHIP version: 6.2.41133-dd7f95766\n", [("2.5.0a0", "6.2.41133-dd7f95766")]),
])
def test_a_bare_torch_version_is_read_beside_its_hip_version(text, want):
    assert paste_facts.parse(text).torch == want


@pytest.mark.parametrize("text", [
    "Pytorch version: 2.4.1\ncuda device count: 1\n",            # no HIP version line after it
    "Pytorch version: 2.4.1\ncuda device count: 1\nROCM HIP version: 6.1.40093\n",  # not the next line
    "torchvision version: 0.19.1\nHIP version: 6.1.40093\n",     # not torch
])
def test_a_bare_torch_version_alone_is_not_read(text):
    assert paste_facts.parse(text).torch == []
