"""Held-out set CX (tests/data/real/1960-1964, HELDOUT.md): LLM serving stacks other than vLLM and Ollama (SGLang,
TGI, GPUStack's runners) and their ROCm kernels (AITER, Composable Kernel).
The misses' causes, each from the program that prints the line: AITER's chip_info refusing a gfx target it has no
entry for ('Unknown GPU architecture: <gfx>. Supported architectures: [...]', ROCm/aiter aiter/jit/utils/chip_info.py),
known but placed at libraries while the corpus places an AITER that lacks a GPU at framework (the serving stack's
support gap, as 1063); and Composable Kernel's refusal of a problem by a device op instance ('<GetTypeString()> does
not support this problem' after IsSupportedArgument(), ROCm/composable_kernel example/ and profiler/, thrown by its
clients such as flash-attention's CK back-end).  Each is tested on the fixture, on other wordings of the same source
and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

AITER = "aiter_unknown_gpu_arch"
CK = "cx_ck_device_op_unsupported"


@pytest.mark.parametrize("num,layer", [("1960", "framework"), ("1961", "framework"), ("1962", "framework"),
                                       ("1963", "hip"), ("1964", "libraries")])
def test_the_set_cx_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("1960", AITER, "framework"), ("1964", CK, "libraries")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_rows_sit_at_their_components_layer():
    assert error_signatures.failure_layer(AITER) == "framework"
    assert error_signatures.failure_layer(CK) == "libraries"


# -- AITER's chip_info: every wording of its refusal, whatever exception class carries it ---------------
@pytest.mark.parametrize("line", [
    # the fixture's KeyError (SGLang 0.5.5 image on an RX 7800 XT)
    "KeyError: \"Unknown GPU architecture: gfx1101. Supported architectures: ['native', 'gfx90a', 'gfx908', "
    "'gfx940', 'gfx941', 'gfx942', 'gfx945', 'gfx1100', 'gfx950']\"",
    # vLLM's test run (vllm-project/vllm#30952): a RuntimeError around the same message
    "RuntimeError: Get GPU arch from rocminfo failed \"Unknown GPU architecture: gfx1201. Supported architectures: "
    "['native', 'gfx90a', 'gfx908', 'gfx940', 'gfx941', 'gfx942', 'gfx945', 'gfx1100', 'gfx950']\"",
    "RuntimeError: Unknown GPU architecture: gfx1151. Supported architectures: ['gfx942', 'gfx950']",
])
def test_aiter_unknown_arch_wordings_are_named(line):
    assert AITER in _ids(line), line


@pytest.mark.parametrize("line", [
    "KeyError: 'gfx1101'",                                    # the bare lookup, no AITER message
    "Unknown GPU architecture, falling back to the generic kernel",
    "Found 1 ROCm devices: Device 0: AMD Radeon RX 7800 XT, gfx1101",
])
def test_aiter_lookalikes_are_not_named(line):
    assert AITER not in _ids(line), line


# -- Composable Kernel's IsSupportedArgument refusal ----------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's line (flash-attention's CK back-end on an MI50)
    "RuntimeError: DeviceGroupedMultiheadAttentionForward_Xdl_CShuffle_V2<256, 128, 128, 32, 8, 8, 128, 128, 32, 2, "
    "Default, ASpecDefault, B0SpecDefault, B1SpecDefault, CSpecDefault, MaskUpperTriangleFromTopLeft> does not "
    "support this problem",
    # CK's examples and ckProfiler print the instance's type string
    "DeviceGemmXdlSplitKCShuffle<256, 256, 128, 4, 8, 32, 32, 4, 2> does not support this problem",
    "DeviceGroupedConvFwdMultipleD_Xdl_CShuffle<256, 128, 256, 32, Default> does not support this problem",
    # the examples' own throw
    "terminate called after throwing an instance of 'std::runtime_error'\n"
    "  what():  wrong! this device_op instance does not support this problem",
    # an earlier example (example/01_gemm/gemm_xdl_fp16.cpp)
    "wrong! device_gemm with the specified compilation parameters does not support this GEMM problem",
])
def test_ck_refusal_wordings_are_named(line):
    assert CK in _ids(line), line


@pytest.mark.parametrize("line", [
    "UNSUPPORTED - Solver does not support this problem type",                     # a solver table's legend
    "GPU reference GEMM does not support this problem configuration so does CPU validation.",  # CK's fallback notice
    "Our driver does not support this problem size yet",
])
def test_ck_lookalikes_are_not_named(line):
    assert CK not in _ids(line), line
