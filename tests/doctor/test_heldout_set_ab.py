"""Held-out set AB (tests/data/real/890-900, HELDOUT.md): frameworks other than PyTorch and building from source.
Each miss's cause fixed from the program that prints the line: clang's err_builtin_needs_feature for an AMDGPU
builtin (llvm/llvm-project clang), XLA's autotuner (openxla/xla xla/backends/autotuner/autotuner.cc), hipRTC's
failed dlopen of the HIP runtime (ROCm/clr hipamd/src/hiprtc/hiprtcInternal.cpp), apex's check of torch's toolkit
version (NVIDIA/apex and ROCm/apex setup.py); tested on the fixture and on other wordings of the same source."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

ROW_FEATURE = "s10ab_clang_amdgcn_builtin_needs_target_feature"
ROW_XLA = "s10ab_xla_autotuning_failed"
ROW_HIPRTC = "s10ab_hiprtc_cannot_load_hip_runtime"
ROW_APEX = "s10ab_extension_build_torch_reports_no_gpu_toolkit"


# -- clang: an AMDGPU builtin the offload target lacks (896, 897) --------------------------------------
@pytest.mark.parametrize("num", ["896", "897"])
def test_the_builtin_needing_a_feature_is_the_builds_and_leads_at_framework(num):
    assert_named_and_leads(num, ROW_FEATURE, "framework")


@pytest.mark.parametrize("line", [
    # 896: a compile of llama.cpp for gfx1250 (the diagnostic with its source location)
    "/llama.cpp/ggml/src/ggml-cuda/mma.cuh:1324:18: error: '__builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12' "
    "needs target feature wmma-128b-insts,wavefrontsize32",
    # an RDNA3 WMMA builtin built for gfx1030 (warpfront/hipfire#112, Windows, ROCm 6.4's clang)
    "C:\\Users\\Ismael\\.hipfire\\src\\kernels\\src\\gemm_qkvza_hfq4g256_wmma.hip:106:19: error: "
    "'__builtin_amdgcn_wmma_f32_16x16x16_f16_w32' needs target feature gfx11-insts,wavefrontsize32",
    # the format without quotes around the builtin (%0 as clang prints a declaration name)
    "kernel.hip:12:5: error: __builtin_amdgcn_sdot4 needs target feature dot1-insts",
])
def test_the_needs_feature_diagnostic_is_named_in_its_wordings(line):
    assert ROW_FEATURE in _ids(line), line


@pytest.mark.parametrize("line", [
    # the same diagnostic for an x86 builtin: a CPU build's flags, not a GPU target
    "avx.c:7:10: error: '__builtin_ia32_vpdpbusd512' needs target feature avx512vnni,evex512",
    # clang's always_inline feature mismatch is another diagnostic
    "error: always_inline function '_mm256_add_ps' requires target feature 'avx', but would be inlined into "
    "function 'f' that is compiled without support for 'avx'",
])
def test_the_needs_feature_row_is_amdgpu_builtins_only(line):
    assert ROW_FEATURE not in _ids(line), line


# -- XLA's autotuner (892) ------------------------------------------------------------------------------
def test_892_xlas_autotuning_failure_leads_at_framework():
    assert_named_and_leads("892", ROW_XLA, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (TheRock's JAX wheels CI, gfx1151)
    "Autotuning failed for HLO: %loop_reduce_fusion = f32[] fusion(...), kind=kLoop ... with error: NOT_FOUND: "
    "No valid config found!",
    # as JAX raises it from a jitted function (the status in a JaxRuntimeError)
    "jax.errors.JaxRuntimeError: INTERNAL: Autotuning failed for HLO: %gemm_fusion_dot.3 = f32[64,64]{1,0} "
    "fusion(f32[64,64]{1,0} %p0, f32[64,64]{1,0} %p1), kind=kCustom with error: INTERNAL: No valid config found!",
    # the sharded path of the same autotuner (autotuner.cc)
    "INTERNAL: Autotuning failed for HLO: %fusion.12 = bf16[8,128]{1,0} fusion(...). No configuration found in "
    "cache after synchronizing results across all shards.",
])
def test_xlas_autotuning_failure_is_named_in_its_wordings(line):
    assert ROW_XLA in _ids(line), line


def test_xlas_autotuning_progress_lines_are_not_failures():
    for line in ("I0331 10:01:02.123 autotuner.cc:120] Autotuning HLO: %fusion = f32[] fusion(...)",
                 "Autotuning failed for HLO: "):
        assert ROW_XLA not in _ids(line), line


# -- hipRTC without the HIP runtime (895) -----------------------------------------------------------------
def test_895_hiprtc_without_the_hip_runtime_leads_at_packaging():
    assert_named_and_leads("895", ROW_HIPRTC, "packaging")
    assert error_signatures.failure_layer(ROW_HIPRTC) == "packaging"


@pytest.mark.parametrize("line", [
    # MIOpen relaying hipRTC's build log (the fixture's line)
    "MIOpen(HIP): Warning [BuildHip] hip runtime failed to load.",
    # the build log itself, as a program that prints hiprtcGetProgramLog shows it (vLLM's engine core)
    "(EngineCore_DP0 pid=160843) ERROR 03-05 12:36:31 [core.py:1006] hip runtime failed to load.",
    # CLR's own info log of the same failure (AMD_LOG_LEVEL=3)
    ":3:hiprtcInternal.cpp:436 : 2716283914 us: [pid:4121  tid:0x7f2a] hip runtime failed to load using dlopen",
    # the dlsym branch of the same function: the library loaded without the symbols hipRTC needs
    "ISA cannot be found from hip runtime.",
])
def test_hiprtcs_failed_load_of_the_runtime_is_named_in_its_wordings(line):
    assert ROW_HIPRTC in _ids(line), line


def test_a_loaded_hip_runtime_is_not_the_failure():
    assert ROW_HIPRTC not in _ids("hip runtime loaded using dlopen")


# -- a torch that reports no GPU toolkit to an extension's build (899) -------------------------------------
def test_899_the_torch_without_a_toolkit_version_leads_at_packaging():
    assert_named_and_leads("899", ROW_APEX, "packaging")


@pytest.mark.parametrize("text", [
    "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used "
    "to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda None.",
    # the whole message as apex's setup.py formats it (a newline after the version, TheRock's CI log prefix)
    "2026-02-17T09:01:58.2421314Z RuntimeError: Cuda extensions are being compiled with a version of Cuda that does "
    "not match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda None.\n"
    "In some cases, a minor-version mismatch will not cause later errors:  "
    "https://github.com/NVIDIA/apex/pull/323#discussion_r287021798.  You can try commenting out this check (at your "
    "own risk).",
])
def test_the_no_toolkit_torch_is_named(text):
    assert ROW_APEX in _ids(text), text


def test_a_cuda_version_mismatch_is_not_a_rocm_install_problem():
    line = ("RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version "
            "used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 11.8.")
    assert ROW_APEX not in _ids(line)


# -- the rest of the set keeps its lead -----------------------------------------------------------------------
@pytest.mark.parametrize("num,layer", [("890", "hip"), ("893", "libraries"), ("894", "libraries"),
                                       ("898", "framework"), ("900", "packaging")])
def test_the_sets_other_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer
