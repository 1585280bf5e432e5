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
@pytest.mark.parametrize("num,layer", [("898", "framework"), ("900", "packaging")])
def test_the_sets_other_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


# -- XLA's own kernel with no code for the GPU (890) -----------------------------------------------------------
ROW_XLA_FUNC = "s10ab_xla_get_func_by_symbol_invalid_device_function"


def test_890_xlas_kernel_without_code_for_the_gpu_leads_at_hip():
    assert_named_and_leads("890", ROW_XLA_FUNC, "hip")


@pytest.mark.parametrize("line", [
    "F1221 14:39:47.105755   12242 stream_executor_util.cc:517] Could not load RepeatBufferKernel: INTERNAL: Failed "
    "call to hipGetFuncBySymbol: hipError_t(98)",
    # the older wording of the same call site (ROCm/jax#247, jax 0.5 with ROCm 6.3.1)
    "F0314 17:16:06.322534     361 stream_executor_util.cc:503] Could not create RepeatBufferKernel: INTERNAL: Failed "
    "call to hipGetFuncBySymbol: hipError_t(98)",
    # raised to Python instead of aborting (ROCm/jax#489)
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed call to hipGetFuncBySymbol: hipError_t(98)",
])
def test_xlas_invalid_device_function_is_named(line):
    assert ROW_XLA_FUNC in _ids(line), line


def test_another_hip_error_from_the_same_call_is_not_a_missing_target():
    # an illegal address from concurrent compiles is a fault, not a missing code object
    assert ROW_XLA_FUNC not in _ids("Failed call to hipGetFuncBySymbol: ROCM_ERROR_ILLEGAL_ADDRESS")


# -- MIGraphX's exception with the source path of a distribution's or a stripped build (893, 894) -----------
ROW_MIGRAPHX = "migraphx_exception"


@pytest.mark.parametrize("num", ["893", "894"])
def test_migraphxs_shape_check_leads_at_libraries(num):
    assert_named_and_leads(num, ROW_MIGRAPHX, "libraries")


@pytest.mark.parametrize("line", [
    # Arch's debug build (the fixture's line, the message wrapped after the function name)
    "Error rewrite_reshapes: /usr/src/debug/migraphx/AMDMIGraphX-rocm-7.2.2/src/include/migraphx/check_shapes.hpp:220: "
    "same_dims:",
    # the path with its prefix cut (ROCm/AMDMIGraphX#5126's title)
    "Error simplify_reshapes: src/include/migraphx/check_shapes.hpp:221: same_dims: mul: Dimensions do not match",
    # a GPU target file with the prefix cut
    "Error gpu::compile_ops: src/targets/gpu/compile_ops.cpp:371: benchmark: No valid tuned compilation for "
    "gpu::mlir_op with gfx90a:sramecc+:xnack-",
    # AMD's package path, as before
    "what():  /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/AMDMIGraphX/src/targets/gpu/"
    "mlir.cpp:728: run_high_level_pipeline: Invalid MLIR created",
])
def test_migraphxs_exception_is_named_whatever_its_source_path(line):
    assert ROW_MIGRAPHX in _ids(line), line


def test_another_projects_source_path_is_not_migraphx():
    for line in ("llvm/lib/Target/AMDGPU/SIISelLowering.cpp:1234: lowerCall: unsupported",
                 "mysrc/include/migraphx_like/shape.hpp:12: check: bad",
                 "src/include/foo/check_shapes.hpp:220: same_dims: pointwise: Dimensions do not match"):
        assert ROW_MIGRAPHX not in _ids(line), line
