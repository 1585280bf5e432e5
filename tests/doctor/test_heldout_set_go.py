"""Held-out set GO (tests/data/real/2960-2965, HELDOUT.md): TensorFlow's, ONNX Runtime's and MIGraphX's ROCm issues.
Five of the six fixtures led at their labelled layer on the unchanged code; 2964's TensorFlow XLA line 'bitcode module
is required by this HLO module but was not found at ./opencl.bc' was read by the catch-all at hip.  XLA's AMDGPU
back-end prints it (openxla/xla xla/service/gpu/llvm_gpu_backend/amdgpu_backend.cc, earlier TensorFlow's
tensorflow/compiler/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc: LinkWithBitcodeVector's LOG(ERROR), then
Internal("bitcode module not found at %s")) when the ROCm device-library bitcode is not in the folder GetROCDLDir
chose -- "." when it found no ROCm tree.  Row `go_xla_rocm_device_bitcode_not_found` (framework) reads both forms."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "go_xla_rocm_device_bitcode_not_found"


@pytest.mark.parametrize("num,layer", [("2960", "framework"), ("2961", "runtime"), ("2962", "framework"),
                                       ("2963", "libraries"), ("2964", "framework"), ("2965", "libraries")])
def test_the_set_go_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_row_names_2964s_line_and_leads_at_framework():
    assert_named_and_leads("2964", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/tensorflow-upstream#2026, tensorflow-rocm 2.11, MI100, ROCm 5.4.3)
    "2023-03-25 10:08:12.724333: E tensorflow/compiler/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:289] "
    "bitcode module is required by this HLO module but was not found at ./opencl.bc",
    # TensorFlow 2.16.1 with its external/local_xla copy, RX 7900 XTX, ROCm 6.2.0 (a ROCm issue's log)
    "2024-09-29 17:59:22.205041: E external/local_xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:243] "
    "bitcode module is required by this HLO module but was not found at ./opencl.bc",
    # the Internal status as Python sees it (ROCm/tensorflow-upstream#1591's title)
    'INTERNAL: bitcode module not found at ./opencl.bc when running with "TF_XLA_FLAGS=--tf_xla_auto_jit=2"',
    # the status' words as a user quotes them (ROCm/ROCm#1796, gfx1030, ROCm 5.2.3)
    "With xla however, I got this error: bitcode module not found at ./opencl.bc",
    # a versioned ROCm tree whose bitcode file is missing (the source's format with another path)
    "Internal: bitcode module not found at /opt/rocm-5.4.3/amdgcn/bitcode/oclc_isa_version_908.bc",
])
def test_the_row_reads_xlas_wordings(line):
    assert ROW in ids(line)


@pytest.mark.parametrize("line", [
    # XLA's own VLOG(2) lines of the directory search: not failures by themselves
    "Unable to find potential ROCm-Device-Libs dir /opt/rocm/amdgcn/bitcode",
    "Found ROCm-Device-Libs dir /opt/rocm/amdgcn/bitcode",
    # clang's refusal (another program, another row's business)
    "clang: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', "
    "or pass '-nogpulib' to build without ROCm device library",
    # a bitcode module that was found and linked
    "linking bitcode module /opt/rocm/amdgcn/bitcode/ocml.bc into the HLO module",
])
def test_lines_that_are_not_the_missing_bitcode_do_not_match(line):
    assert ROW not in ids(line)


def test_the_row_sits_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"
