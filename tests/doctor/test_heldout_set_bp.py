"""Held-out set BP (tests/data/real/1620-1625, HELDOUT.md): the ROCm 5.x and 6.0-6.2 era, threads of 2023-2024.  No
fixture missed; the fixes name two lines the catch-all had placed by their words: ggml's older abort line
(ggml-cuda.cu ggml_cuda_error's GGML_ASSERT(!"CUDA error"), ggml.h's 'GGML_ASSERT: %s:%d: %s' and ggml_abort's
'%s:%d: GGML_ASSERT(%s) failed'), a header like the later 'ggml-cuda.cu:N: ROCm error' line, and GCC's closing note
'%s: all|some warnings being treated as errors' (gcc/diagnostic.cc), information."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import doctor_files, fixture, ids as _ids, problems

GGML_ASSERT = "bp_ggml_assert_cuda_error"
GCC_WERROR = "bp_gcc_warnings_treated_as_errors"


@pytest.mark.parametrize("num,lead", [
    ("1620", ("known-failure", "libraries")),
    ("1621", ("no-binary-for-gpu", "hip")),
    ("1622", ("no-binary-for-gpu", "hip")),
    ("1623", ("dkms-build-failed", "packaging")),
    ("1624", ("dkms-build-failed", "packaging")),
    ("1625", ("no-binary-for-gpu", "hip")),
])
def test_the_set_leads_at_its_labelled_layer(num, lead):
    assert problems(realrun.diagnosis(fixture(num)))[0] == lead


# ---- ggml's older abort line: a header

@pytest.mark.parametrize("line", [
    # 1622 (llama-cpp-python's vendored llama.cpp, 2024-04)
    'GGML_ASSERT: /tmp/pip-install-7xdln0go/llama-cpp-python_0bc0f935a20b4d68b0bf4ef217f92000/vendor/llama.cpp/'
    'ggml-cuda.cu:60: !"CUDA error"',
    # llamafile's copy (437's thread) and llama.cpp's ggml/src tree of mid 2024 (436's thread)
    'GGML_ASSERT: ggml-cuda.cu:9198: !"CUDA error"',
    'GGML_ASSERT: ggml/src/ggml-cuda.cu:101: !"CUDA error"',
    # ggml_abort's form of the same assert
    '/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:88: GGML_ASSERT(!"CUDA error") failed',
])
def test_ggml_assert_cuda_error_is_named(line):
    assert GGML_ASSERT in _ids(line), line


@pytest.mark.parametrize("line", [
    # another assertion of ggml's: not the GPU error check
    "GGML_ASSERT: ggml.c:4785: ctx->mem_buffer != NULL",
    "GGML_ASSERT: /llama.cpp/ggml-cuda.cu:7453: src0->type == GGML_TYPE_F16",
    # prose about the assert
    'the GGML_ASSERT on "CUDA error" fires for me too',
])
def test_near_misses_are_not_the_ggml_assert_row(line):
    assert GGML_ASSERT not in _ids(line), line


def test_the_ggml_assert_header_is_dropped_beside_its_reason(tmp_path):
    diag = doctor_files(tmp_path, {"log.txt":
        "ggml_cuda_compute_forward: RMS_NORM failed\n"
        "CUDA error: invalid device function\n"
        "  current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda.cu:2288\n"
        "  err\n"
        'GGML_ASSERT: ggml/src/ggml-cuda.cu:101: !"CUDA error"\n'})
    found = problems(diag)
    assert found[0] == ("no-binary-for-gpu", "hip"), found
    assert ("unrecognised-failure", "packaging") not in found, found


def test_the_ggml_assert_line_alone_is_still_reported_at_hip(tmp_path):
    diag = doctor_files(tmp_path, {"log.txt": 'GGML_ASSERT: /build/llama.cpp/ggml-cuda.cu:60: !"CUDA error"\n'})
    assert ("known-failure", "hip") in problems(diag), problems(diag)


# ---- GCC's closing note: information

@pytest.mark.parametrize("line", [
    "cc1: some warnings being treated as errors",
    "cc1plus: all warnings being treated as errors",
    "  cc1: all warnings being treated as errors",
    "lto1: some warnings being treated as errors",
])
def test_gcc_warnings_treated_as_errors_is_information(line):
    assert GCC_WERROR in _ids(line), line
    assert error_signatures.failure(GCC_WERROR).severity == "info"


@pytest.mark.parametrize("line", [
    "warning: unused variable 'x' [-Wunused-variable]",
    "why are some warnings being treated as errors in my build?",
    "error: passing argument 2 of 'drm_dp_add_payload_part2' from incompatible pointer type [-Werror=incompatible-pointer-types]",
])
def test_near_misses_are_not_the_gcc_row(line):
    assert GCC_WERROR not in _ids(line), line


def test_the_gcc_note_is_no_longer_a_framework_finding_on_1623():
    found = problems(realrun.diagnosis(fixture("1623")))
    assert ("unrecognised-failure", "framework") not in found, found
