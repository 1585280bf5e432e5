"""Held-out set GS (tests/data/real/3000-3004, HELDOUT.md): the other ggml/CTranslate2 applications' AMD GPU issues
(whisper.cpp, whisper-rs, stable-diffusion.cpp, CTranslate2).  Two fixtures did not lead at their labelled layer on
the unchanged code:

* 3000 (ggml-org/whisper.cpp#2541): the title holds only the head of rocBLAS's Tensile message ("rocBLAS error:
  Tensile solution found ROCm error ..."), which rocblas_tensile_exception did not read.  ROCm/rocBLAS
  library/src/tensile_host.cpp prints "rocBLAS error: " + ("" | "No ") + "Tensile solution found, but exception
  thrown for " (older releases: "exception thown for"; hipSPARSELt/rocSPARSELt/hipBLASLt the same text after their
  own prefixes); no other message starts "<lib> error: Tensile solution found", so the row now reads the head alone
  and the older spelling, and "No Tensile solution found" stays with its own row.
* 3001 (tazz4843/whisper-rs#135): clang's "1 error generated when compiling for gfx906." with the compiler's error
  line cut off; the summary row's layer comes from the first compiler error above it (failure_lines.first_error_layer)
  and fell back to the row's libraries.  Now, with no error line above, the build tool's line names the object being
  built -- GNU make's "make[N]: *** [<makefile>:<line>: <object>] Error N" (make src/job.c) under the summary, ninja's
  "FAILED: <object>" (ninja src/status_printer.cc) above it -- and its CMake target says whose source it is: a ROCm
  library's -> libraries, HIP's runtime (rocclr, amdhip64) -> hip, ROCr's tools -> runtime, a kernel module -> not
  decided there, any other (ggml-rocm of whisper.cpp, an extension) -> framework.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3000", "libraries"), ("3001", "framework"), ("3002", "hip"),
                                       ("3003", "hip"), ("3004", "packaging")])
def test_the_set_gs_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_whisper_cpp_title_is_read_as_rocblas_tensile_exception():
    assert_named_and_leads("3000", "rocblas_tensile_exception", "libraries")


@pytest.mark.parametrize("line", [
    # the fixture's title (ggml-org/whisper.cpp#2541)
    "rocBLAS error: Tensile solution found ROCm error ptrace: Operation not permitted.",
    # koboldcpp's log after Arch's ROCm 6.2.2 upgrade (LostRuins/koboldcpp#1216)
    'rocBLAS error: Tensile solution found, but exception thrown for { a_type: "f16_r", b_type: "f16_r", c_type: '
    '"f16_r", d_type: "f16_r", compute_type: "f16_r", transA: \'T\', transB: \'N\', M: 6144, N: 18, K: 6144 }',
    # a title with the other ending (justxi/rocm#184)
    "rocBLAS error: Tensile solution found, but kernel not found in any loaded module",
    # older rocBLAS releases' spelling (ROCm/rocBLAS library/src/tensile_host.cpp, catch of std::exception)
    'rocBLAS error: Tensile solution found, but exception thown for { a_type: "f32_r", b_type: "f32_r" }',
    # hipSPARSELt's prefix (ROCm/hipSPARSELt, its tensile_host.cpp runContractionProblem)
    "hipsparselt_error: Tensile solution found, but exception thrown for { a_type: f16_r }",
])
def test_the_tensile_exception_row_reads_its_wordings(line):
    assert "rocblas_tensile_exception" in _ids(line)


@pytest.mark.parametrize("line", [
    # no solution at all: its own row (advanced-lvl-up/Rx470-Vega10-Rx580-gfx803-gfx900-fix-AMD-GPU#4)
    'rocBLAS error: No Tensile solution found for { a_type: "f16_r", b_type: "f16_r", c_type: "f16_r" }',
    # the unknown exception (also in the older spelling): lib_rocblas_exception_thrown's
    "rocBLAS error: Tensile solution found, but unknown exception thown for { a_type: f32_r }",
    # prose about a solution, no library's error prefix
    "the Tensile solution found by rocBLAS for this size was slower than hipBLASLt's",
])
def test_lines_that_are_not_a_tensile_exception_are_not_read_as_one(line):
    assert "rocblas_tensile_exception" not in _ids(line)


def test_the_older_unknown_exception_spelling_is_read_by_its_row():
    assert "lib_rocblas_exception_thrown" in _ids(
        "rocBLAS error: Tensile solution found, but unknown exception thown for { a_type: f32_r }")


_SUMMARY = "1 error generated when compiling for gfx906."


@pytest.mark.parametrize("below,layer", [
    # the fixture's make line (tazz4843/whisper-rs#135): whisper.cpp's own ggml-rocm target
    ("  make[2]: *** [CMakeFiles/ggml-rocm.dir/build.make:79: CMakeFiles/ggml-rocm.dir/ggml-cuda.cu.o] Error 1", "framework"),
    # ROCclr's target as AUR's hip-runtime-amd build prints it (rocm-arch/rocm-arch#779, fixture 2892)
    ("make[2]: *** [src/CMakeFiles/rocclr.dir/build.make:608: src/CMakeFiles/rocclr.dir/home/sudokit/.cache/paru/clone/"
     "hip-runtime-amd/src/ROCclr-rocm-5.1.1/device/rocm/rocdevice.cpp.o] Error 1", "hip"),
    # rocminfo's target (rocm-arch/rocm-arch#873, fixture 2104)
    ("make[2]: *** [CMakeFiles/rocminfo.dir/build.make:79: CMakeFiles/rocminfo.dir/rocminfo.cc.o] Error 1", "runtime"),
])
def test_a_cut_compile_summary_takes_the_layer_of_the_object_make_names(below, layer):
    assert failure_lines.summary_layer(f"{_SUMMARY}\n{below}\n", _SUMMARY) == layer


def test_ninja_failed_line_above_names_the_object():
    # ninja's FAILED line as DeepSpeed's JIT build prints it (deepspeedai/DeepSpeed#3548, fixture 2574), and a
    # rocBLAS target as its own build names its objects
    ext = "FAILED: pt_binding_hip.o \n/opt/rocm/bin/hipcc -c pt_binding_hip.cpp\n2 errors generated when compiling for gfx90a.\n"
    assert failure_lines.summary_layer(ext, "2 errors generated when compiling for gfx90a.") == "framework"
    lib = ("FAILED: library/src/CMakeFiles/rocblas.dir/blas3/rocblas_trsm.cpp.o\n/opt/rocm/llvm/bin/clang++ -x hip\n"
           "2 errors generated when compiling for gfx1201.\n")
    assert failure_lines.summary_layer(lib, "2 errors generated when compiling for gfx1201.") == "libraries"


@pytest.mark.parametrize("text,want", [
    # make's aggregate line names no object: nothing decided there
    (f"{_SUMMARY}\nmake: *** [Makefile:139: all] Error 2\n", None),
    # a kernel module's object (kbuild under DKMS): the words around it say
    (f"{_SUMMARY}\nmake[3]: *** [scripts/Makefile.build:243: /var/lib/dkms/amdgpu/6.3.6-1718217.22.04/build/ttm/"
     "ttm_range_manager.o] Error 1\n", None),
    # a compiler error above still decides (a HIP header's), whatever object make names below
    ("/opt/rocm/include/hip/amd_detail/amd_hip_bf16.h:12:3: error: unknown type name 'x'\n"
     f"{_SUMMARY}\nmake[2]: *** [CMakeFiles/ggml-rocm.dir/build.make:79: CMakeFiles/ggml-rocm.dir/ggml-cuda.cu.o] Error 1\n",
     "hip"),
])
def test_what_the_object_fallback_does_not_decide(text, want):
    assert failure_lines.summary_layer(text, _SUMMARY) == want
