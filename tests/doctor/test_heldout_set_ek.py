"""Held-out set EK (tests/data/real/2500-2505, HELDOUT.md): a theme-neutral sample of the ggml projects' HIP/ROCm
issues (llama.cpp, whisper.cpp, stable-diffusion.cpp, 2024-2025).  Two misses on the unchanged code, each fixed in
general:

* 2501: llama.cpp's own assertion in its KV-cache code (glibc's assert() in src/llama-kv-cache-unified.cpp, 'Assertion
  `status == LLAMA_MEMORY_STATUS_SUCCESS' failed') had no row; the catch-all read it at framework, behind an advisory
  at runtime.  Row ``ek_llama_internal_assertion`` reads llama.cpp's core-library assertions (GGML_ASSERT and assert()
  with a src/llama-*.cpp path, or a bare assertion on its memory status) at framework.
* 2505: clang's "<file>:<l>:<c>: error: no matching function for call to 'mma_sync'" was dropped by the catch-all's
  benign pattern for a value ("errors: 0", "failed: no"), so only rocWMMA's 'note: ... substitution failure' was left,
  read as a failure told at libraries.  That benign pattern no longer takes "no" followed by a word."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "ek_llama_internal_assertion"


@pytest.mark.parametrize("num,layer", [("2500", None), ("2501", "framework"), ("2502", "hip"), ("2503", "libraries"),
                                       ("2504", "libraries"), ("2505", "framework")])
def test_the_set_ek_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_assertion_row_sits_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # the fixture's title (ggml-org/llama.cpp#14506, glibc assert in llama_kv_cache_unified_context)
    "Eval bug: Assertion `status == LLAMA_MEMORY_STATUS_SUCCESS' failed",
    # ggml-org/llama.cpp#15215's title (GGML_ASSERT in llama-kv-cache-unified.cpp, b5913)
    "Misc. bug: llama-kv-cache-unified.cpp:222: GGML_ASSERT(seq_id >= 0 && (size_t) seq_id < seq_to_stream.size()) failed"
    " when loading processed prompt again",
    # ggml-org/llama.cpp PR #12695, comment of 2025-04-25 (GGML_ASSERT in src/llama-kv-cache.cpp)
    "src/llama-kv-cache.cpp:1803: GGML_ASSERT(empty_cell.is_empty()) failed",
    # ikawrakow/ik_llama.cpp#1282's title (the same core library in a fork, llama-sampling.cpp)
    "Bug: /app/src/llama-sampling.cpp:733: GGML_ASSERT(iter != probs.end()) failed",
])
def test_llama_cpp_core_assertions_are_named(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("line", [
    # ggml's own assertion (ggml-org/llama.cpp#13581): ggml.c, not llama.cpp's core library
    "/home/user/llama.cpp/ggml/src/ggml.c:1554: GGML_ASSERT(view_src == NULL || data_size == 0 || data_size + view_offs"
    " <= ggml_nbytes(view_src)) failed",
    # ggml's HIP back-end abort (set EK 2502)
    "/[sourcedir]/stable-diffusion.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:87: ROCm error",
    # another program's assertion (nvtop, set AV 1246)
    "nvtop: /build/nvtop-0h79qc/nvtop-3.0.0/src/extract_gpuinfo_amdgpu.c:324: initDeviceSysfsPaths: Assertion"
    " `gpu_info->hwmonDevice != NULL' failed.",
    # prose naming the file
    "the crash is somewhere in llama-context.cpp when the KV cache fills up",
])
def test_other_assertions_and_prose_are_not_the_row(line):
    assert ROW not in _ids(line)


@pytest.mark.parametrize("line", [
    # set EK 2505 (ggml-org/llama.cpp#13110): clang on ggml's rocWMMA flash-attention source
    "/home/zefresk/Documents/llamas/llama.cpp-rocm6.4/ggml/src/ggml-cuda/fattn-wmma-f16.cu:193:21: error: no matching"
    " function for call to 'mma_sync'",
    # ROCm/TheRock#154 (hipBLASLt's build): clang's driver on a missing object
    "[hipBLASLt] clang++: error: no such file or directory: '/therock/output/build/math-libs/BLAS/hipBLASLt/build/"
    "library/build_tmp/ops/A_S_S_256_4_gfx1151.o'",
    # set BM 1565 (DeepSpeed's JIT build under ROCm 5.4): clang on an extension's HIP header
    "/home/user/workspace/DeepSpeed/csrc/includes/reduction_utils_hip.h:352:46: error: no member named 'shfl_xor' in"
    " 'cooperative_groups::thread_block_tile<64, void>'",
])
def test_diagnostics_that_begin_with_no_are_failure_lines(line):
    assert failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    "Errors: 0",
    "failed: no",
    "error = none",
    "  ECC errors: N/A",
])
def test_values_after_error_words_stay_benign(line):
    assert not failure_lines.looks_like_failure(line)
