"""Held-out set GV (tests/data/real/3030-3035, HELDOUT.md): a theme-neutral sample of the scientific GPU stacks' ROCm
issues (AMDGPU.jl, CuPy, numba-hip, Kokkos).  Three fixtures led at their layer on the unchanged code; the other three
are now read from their printers' sources:

* ``gv_cupy_hiprtc_compile_failed`` (framework): CuPy's NVRTC wrapper on ROCm (cupy/cupy
  cupy_backends/cuda/libs/nvrtc.pyx: ``NVRTCError`` with ``'{} ({})'.format(nvrtcGetErrorString(status), status)``,
  hiprtcGetErrorString on HIP builds) -- HIPRTC_ERROR_COMPILATION / INVALID_OPTION are CuPy's kernel source or options
  failing to compile; hipRTC's other statuses stay with the layer table.
* ``gv_numba_hip_pipeline_failed`` (framework): Numba's ``"Failed in %s mode pipeline (step: %s)"`` (numba/numba
  numba/core/compiler_machinery.py PassManager.run) for numba-hip's 'hip' pipeline only.
* clang's notes (``<file>:<line>:<col>: note: ...``, clang TextDiagnostic) above an ``N errors generated when compiling
  for gfxNNN`` summary whose errors the paste lost: the first note names the source being compiled
  (detect/failure_lines.py first_error_layer), so Kokkos' own header puts 3035's summary at framework."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

CUPY = "gv_cupy_hiprtc_compile_failed"
NUMBA = "gv_numba_hip_pipeline_failed"


@pytest.mark.parametrize("num,row", [("3033", CUPY), ("3034", NUMBA)])
def test_the_set_gv_fixtures_fixed_by_a_row_are_named_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


@pytest.mark.parametrize("num,layer", [("3030", "hip"), ("3031", "hip"), ("3032", "framework"), ("3035", "framework")])
def test_the_other_set_gv_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("text", [
    # the fixture's line (cupy/cupy#9718, cupy-rocm-7-0 on CachyOS, 2026-02); the same line in cupy/cupy#4216 (MI50,
    # 2020-11) and official-stockfish/nnue-pytorch#409 (an AMD container, 2026-02)
    "cupy_backends.cuda.libs.nvrtc.NVRTCError: HIPRTC_ERROR_COMPILATION (6)\n",
    # CuPy up to v8 kept the wrapper in cupy/cuda/nvrtc.pyx (the same message format)
    "cupy.cuda.nvrtc.NVRTCError: HIPRTC_ERROR_COMPILATION (6)\n",
    # an option hipRTC does not take (hiprtcGetErrorString's HIPRTC_ERROR_INVALID_OPTION, status 5)
    "cupy_backends.cuda.libs.nvrtc.NVRTCError: HIPRTC_ERROR_INVALID_OPTION (5)\n",
])
def test_the_cupy_row_reads_cupys_hiprtc_compile_failures(text):
    assert CUPY in ids(text)


@pytest.mark.parametrize("text", [
    # NVRTC on an NVIDIA GPU, CuPy's same wrapper
    "cupy_backends.cuda.libs.nvrtc.NVRTCError: NVRTC_ERROR_COMPILATION (6)\n",
    # hipRTC failing in itself, not the kernel: the hip layer's
    "cupy_backends.cuda.libs.nvrtc.NVRTCError: HIPRTC_ERROR_INTERNAL_ERROR (11)\n",
    # hashcat's own line (fd_app_hiprtc_compile_failed)
    "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION\n",
])
def test_the_cupy_row_leaves_other_lines(text):
    assert CUPY not in ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's line (ROCm/numba-hip#8, 2025-06, in IPython)
    "TypingError: Failed in hip mode pipeline (step: nopython frontend)\n",
    # the same error as a script prints it, with the exception's module
    "numba.core.errors.TypingError: Failed in hip mode pipeline (step: nopython frontend)\n",
    # the code-generation pass failing (Numba's NativeLowering, 'native lowering')
    "numba.core.errors.LoweringError: Failed in hip mode pipeline (step: native lowering)\n",
])
def test_the_numba_hip_row_reads_the_hip_pipelines_failures(text):
    assert NUMBA in ids(text)


@pytest.mark.parametrize("text", [
    # CPU Numba (if-ai/ComfyUI-IF_MemoAvatar#9's title; numba/numba#3803's)
    "Failed in nopython mode pipeline (step: nopython frontend)\n",
    "LoweringError: Failed in object mode pipeline (step: object mode backend)\n",
    # numba.cuda on an NVIDIA GPU
    "TypingError: Failed in cuda mode pipeline (step: nopython frontend)\n",
])
def test_the_numba_hip_row_leaves_other_pipelines(text):
    assert NUMBA not in ids(text)


NOTES = (
    "/home/u/git/kokkos/core/src/impl/Kokkos_Half_MathematicalFunctions.hpp:512:1: note: in instantiation of member "
    "function 'Kokkos::Experimental::Impl::floating_point_wrapper<__hip_bfloat16>::operator<' requested here\n"
    "  512 | KOKKOS_IMPL_HALF_MATH_FPCLASSIFY(Kokkos::Experimental::bhalf_t)\n"
    "      | ^\n"
)
HIP_NOTE = ("/opt/rocm-7.0.1/include/hip/amd_detail/amd_hip_bf16.h:108:8: note: candidate constructor (the implicit copy "
            "constructor) not viable: no known conversion from 'float' to 'const __hip_bfloat16' for 1st argument\n")
SUMMARY = "9 errors generated when compiling for gfx1201.\n"


@pytest.mark.parametrize("text,layer", [
    # 3035's cut log: only notes above the summary, the first in Kokkos' own header
    (NOTES + SUMMARY, "framework"),
    # the first note in HIP's own header
    (HIP_NOTE + NOTES + SUMMARY, "hip"),
    # nothing above the summary names a file
    ("  512 | KOKKOS_IMPL_HALF_MATH_FPCLASSIFY(Kokkos::Experimental::bhalf_t)\n" + SUMMARY, None),
    # an error line above still decides, before any note (a library header's error)
    ("/opt/rocm/include/rocprim/block/block_load.hpp:10:3: error: no member named 'x'\n" + NOTES + SUMMARY, "libraries"),
])
def test_a_summary_with_only_notes_above_is_placed_by_the_first_note(text, layer):
    assert failure_lines.summary_layer(text, SUMMARY.strip()) == layer
