"""Held-out set FR (tests/data/real/2730-2734, HELDOUT.md): a theme-neutral sample of llama.cpp's HIP/ROCm issues of
2023 to 2025-08.  Three of five were warned at their layer on the unchanged code; 2731 and 2732 stay misses (llama.cpp
HIP builds whose logs the index cuts before any error line, in MISSES).  The fix: ggml's generic 'ROCm error: %s'
reading (wl_ggml_rocm_error, hip) took a title's own words ('ROCm error: batched GEMM not supported') for HIP's error,
and led 2734 at hip ahead of hipBLAS's CUBLAS_STATUS_NOT_SUPPORTED.  ggml_cuda_error's msg is cudaGetErrorString(err),
hipGetErrorString in a HIP build (ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu), so the row now reads the HIP
runtime's own texts after the prefix (ROCm/clr hipamd/src/hip_error.cpp ihipGetErrorString, and the hipError* names)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "wl_ggml_rocm_error"


@pytest.mark.parametrize("num,layer", [("2730", "libraries"), ("2733", "libraries"), ("2734", "libraries")])
def test_the_set_fr_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_2734s_title_is_not_hips_error_and_hipblas_status_is_read():
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture("2734").glob("*.txt")))
    found = _ids(text)
    assert ROW not in found
    assert "ggml_blas_status" in found
    assert error_signatures.failure_layer("ggml_blas_status") == "libraries"


@pytest.mark.parametrize("line", [
    # llama.cpp's ggml_cuda_error with CLR's strings (ggml-org/llama.cpp#22013, gfx1201 beside a gfx1103 iGPU)
    "ROCm error: invalid device function\n  current device: 1, in function ggml_cuda_compute_forward at "
    "/home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2932\n",
    # ggml-org/llama.cpp#23934 (corpus 364), ROCm 7.11 on gfx1100
    "ROCm error: device kernel image is invalid",
    # the corpus' fixtures (Ollama's runner, llama.cpp) -- hipErrorIllegalAddress and hipErrorLaunchFailure
    "ROCm error: an illegal memory access was encountered",
    "ROCm error: unspecified launch failure",
    # older trees: the user's copy with ggml's file and line before the string (ggml-org/llama.cpp#3320, corpus 1621)
    "ROCm error: ggml-cuda.cu:6246: invalid device function",
])
def test_the_row_reads_hips_error_strings_after_ggmls_prefix(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("line", [
    "Eval bug: ROCm error: batched GEMM not supported",            # 2734's title: the user's own words
    "ROCm error: CUBLAS_STATUS_NOT_SUPPORTED",                     # hipBLAS's status, ggml_blas_status's
    "ROCm error: out of memory",                                   # df_ggml_hip_error_out_of_memory's
    "ROCm error: see the log below",                               # prose after the prefix
])
def test_text_that_is_not_a_hip_error_string_is_not_the_row(line):
    assert ROW not in _ids(line)
