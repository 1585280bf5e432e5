"""Held-out set DE (tests/data/real/2100-2104, HELDOUT.md): ROCm as the distributions package it (Arch/CachyOS's
repositories, the AUR, a distribution upgrade of every ROCm library, mixed package versions).
The misses' causes, each from the program that prints the line: the rule release-changed placed "ROCm was updated"
at packaging, which led, although the paste showed a known failure of one ROCm component (rocBLAS), where a ROCm
release's regression lies; and lines no row knew -- ggml's bare BLAS status name (common.cuh's cublas_get_error_str),
an assertion of the HIP runtime itself (glibc's assert format with a ROCclr/hipamd source path), clang's driver
refusing a GPU target (DiagnosticDriverKinds.td err_drv_bad_target_id / err_drv_offload_bad_gpu_arch), yay's
'error making: <package>' and a missing ROCm component header in a build (gcc's/clang's 'fatal error').
Each is tested on the fixture, on other wordings of the same source and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

CLANG = "de_clang_offload_gpu_arch_refused"
YAY = "de_yay_error_making_package"
BLAS = "de_ggml_blas_status_name"
CLR = "de_clr_assertion_failed"
HEADER = "de_rocm_header_not_found"


@pytest.mark.parametrize("num,layer", [("2100", "packaging"), ("2101", "libraries"), ("2102", "libraries"),
                                       ("2103", "hip"), ("2104", "packaging")])
def test_the_set_de_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("2101", BLAS, "libraries"), ("2103", CLR, "hip")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_aur_build_fixture_names_its_lines():
    folder = _fixture("2104")
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")))
    assert {CLANG, YAY, HEADER} <= _ids(text)
    # (s22) clang's refusal of a target moved from hip to packaging, with the other compiler-driver rows
    assert [error_signatures.failure_layer(r) for r in (CLANG, YAY, HEADER)] == ["packaging", "packaging", "packaging"]


# -- release-changed: a ROCm release's regression sits in the ROCm component the paste shows failing --------------
TENSILE = ("rocBLAS error: Tensile solution found, but exception thrown for { a_type: \"f16_r\", b_type: \"f16_r\", "
           "c_type: \"f16_r\", d_type: \"f16_r\", compute_type: \"f16_r\", transA: 'T', transB: 'N', M: 128, N: 2, K: 32, "
           "alpha: 1, beta: 0, batch_count: 1, atomics_mode: atomics_allowed }\n"
           "Alpha value 7.21875 doesn't match that set in problem: 1\n")


def _release(tmp_path, title, lines):
    diag = doctor_files(tmp_path, {"title.txt": title + "\n", "log.txt": lines})
    return [(f.id, f.layer) for f in diag.findings if f.severity in ("warning", "error", "critical")]


def test_a_rocm_update_before_a_library_failure_sits_at_the_library(tmp_path):
    found = _release(tmp_path, "HIPBLAS no longer works after upgrade to ROCM 6.2.2", TENSILE)
    assert ("release-changed", "libraries") in found, found
    assert ("release-changed", "packaging") not in found, found
    assert found[0][1] == "libraries", found


def test_a_rocm_update_before_a_runtime_failure_sits_at_the_runtime(tmp_path):
    lines = ("hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
             "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
             "This error may also occur when the core runtime library needs to spawn threads or create internal "
             "OS-specific events.\n")
    found = _release(tmp_path, "rocminfo fails after upgrade to ROCm 6.2.2", lines + TENSILE)
    rel = [l for i, l in found if i == "release-changed"]
    assert rel == ["runtime"], found  # the lowest ROCm component the paste shows failing


def test_a_rocm_update_without_a_known_component_failure_stays_at_packaging(tmp_path):
    found = _release(tmp_path, "my app crashes after upgrade to ROCm 6.2.2", "Segmentation fault (core dumped)\n")
    assert [l for i, l in found if i == "release-changed"] == ["packaging"], found


# -- clang's driver refusing a GPU target -----------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "clang-14: error: invalid target ID 'gfx1036'; format is a processor name followed by an optional colon-delimited "
    "list of features followed by an enable/disable sign (e.g., 'gfx908:sramecc+:xnack-')",  # the fixture
    "clang: error: invalid target ID 'gfx1151:xnack+'; format is a processor name followed by an optional "
    "colon-delimited list of features followed by an enable/disable sign (e.g., 'gfx908:sramecc+:xnack-')",
    "clang++: error: unsupported HIP gpu architecture: gfx103X-dgpu",   # lemonade-sdk/llamacpp-rocm#58
    "clang-17: error: unsupported HIP gpu architecture: gfx1201",
    "clang: error: unsupported OpenMP gpu architecture: gfx1250",
])
def test_clang_target_refusals_are_named(line):
    assert CLANG in _ids(line), line


@pytest.mark.parametrize("line", [
    "clang: error: unsupported CUDA gpu architecture: sm_20",          # NVIDIA's
    "[Issue] `windows-gfx120X-gpu-rocm` test machine can't run hipcc due to `unsupported HIP gpu architecture`",
    "RuntimeError: Unknown GPU architecture: gfx1201. Supported architectures",  # aiter's own
    "'gfx1201' is not a recognized processor for this target (ignoring processor)",  # LLVM's MC layer
    "invalid target ID",
])
def test_clang_target_lookalikes_are_not_named(line):
    assert CLANG not in _ids(line), line


# -- yay's package build failure ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [" -> error making: hsa-rocr", " -> error making: rocminfo",
                                  "error making: python-pytorch-opt-rocm", " -> Error making: hip-runtime-amd",
                                  " -> error making: rocblas, hipblas"])
def test_yay_build_failures_are_named(line):
    assert YAY in _ids(line), line


@pytest.mark.parametrize("line", ["Error making request: Get https://aur.archlinux.org/rpc: timeout",
                                  "error making directory /opt/rocm", "==> ERROR: A failure occurred in build()."])
def test_yay_lookalikes_are_not_named(line):
    assert YAY not in _ids(line), line


# -- ggml's bare BLAS status names -------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "Bug: CUBLAS_STATUS_INTERNAL_ERROR when using --gpu-layers on ROCm 6.2",  # the fixture's title
    "llama-server aborts with CUBLAS_STATUS_EXECUTION_FAILED on gfx1030",
    "Eval bug: CUBLAS_STATUS_NOT_SUPPORTED with -ngl 99",
    "got CUBLAS_STATUS_ALLOC_FAILED after a few prompts",
])
def test_bare_blas_status_names_are_named(line):
    assert BLAS in _ids(line), line
    assert error_signatures.failure_layer(BLAS) == "libraries"


@pytest.mark.parametrize("line", [
    "ROCm error: CUBLAS_STATUS_INTERNAL_ERROR",       # ggml_blas_status reads the prefixed line
    "CUBLAS_STATUS_SUCCESS",                          # not a failure
    "CUBLAS_STATUS_UNKNOWN_THING happened",           # not one of ggml's names
    "HIPBLAS_STATUS_INTERNAL_ERROR",                  # hipBLAS's own name (row hipblas_status)
])
def test_blas_status_lookalikes_are_not_named(line):
    assert BLAS not in _ids(line), line


# -- an assertion of the HIP runtime (CLR) ------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "mixtral-8x7b-instruct-v0.1.Q5_K_M.llamafile: /usr/src/debug/hip-runtime-amd/clr-rocm-6.0.0/rocclr/os/os_posix.cpp:321: "
    "static void amd::Os::currentStackInfo(unsigned char**, size_t*): Assertion `Os::currentStackPtr() >= *base - *size "
    "&& Os::currentStackPtr() < *base && \"just checking\"' failed.",  # the fixture
    "python3: /build/clr/src/clr-rocm-6.2.4/hipamd/src/hip_graph_internal.cpp:1044: virtual hipError_t "
    "hip::GraphExec::Run(hipStream_t): Assertion `false' failed.",
    "blender: /usr/src/debug/hip-runtime-amd/ROCclr-rocm-5.4.3/device/rocm/rocvirtual.cpp:812: void "
    "roc::VirtualGPU::releaseGpuMemoryFence(): Assertion `!\"Signal is still busy\"' failed.",
])
def test_clr_assertions_are_named(line):
    assert CLR in _ids(line), line


@pytest.mark.parametrize("line", [
    "nvtop: /build/nvtop-3.0.0/src/extract_gpuinfo_amdgpu.c:324: initDeviceSysfsPaths: Assertion "
    "`gpu_info->hwmonDevice != NULL' failed.",
    "rocminfo: ./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp:111: void thunk_proxy::QueryAdapterInfo"
    "(D3DKMT_HANDLE, ATIADAPTERINFO*): Assertion `ret == STATUS_SUCCESS' failed.",
    "/usr/src/debug/hip-runtime-amd/clr-rocm-6.0.0/rocclr/os/os_posix.cpp:321: warning: unused variable",
])
def test_clr_assertion_lookalikes_are_not_named(line):
    assert CLR not in _ids(line), line


# -- a ROCm component's header missing from a build ---------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "/home/u/.cache/yay/rocminfo/src/rocminfo-rocm-5.3.0/rocminfo.cc:58:10: fatal error: hsa/hsa.h: No such file "
    "or directory",  # the fixture
    "main.cpp:1:10: fatal error: 'hip/hip_runtime.h' file not found",
    "src/gemm.cpp:3:10: fatal error: rocblas/rocblas.h: No such file or directory",
    "ggml-cuda.cu:12:10: fatal error: 'hipblas/hipblas.h' file not found",
])
def test_missing_rocm_headers_are_named(line):
    assert HEADER in _ids(line), line


@pytest.mark.parametrize("line", [
    "/tmp/comgr-9b418c/include/miopen_rocrand.hpp:45:10: fatal error: 'rocrand/rocrand_xorwow.h' file not found",
    "blas_utils_hip.h:18:10: fatal error: mma.h: No such file or directory",      # a CUDA-only header
    "x.cpp:2:10: fatal error: 'cuda_runtime.h' file not found",
    "cat: hsa/hsa.h: No such file or directory",
])
def test_missing_header_lookalikes_are_not_named(line):
    assert HEADER not in _ids(line), line
