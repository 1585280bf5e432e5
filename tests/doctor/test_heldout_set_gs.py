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

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3000", "libraries"), ("3002", "hip"), ("3003", "hip"),
                                       ("3004", "packaging")])
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
