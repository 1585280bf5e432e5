"""Held-out set HC (tests/data/real/3100-3104, HELDOUT.md): a third theme-neutral sample of Ollama's AMD GPU issues.
Four fixtures led at their labelled layer on the unchanged code; these tests hold their leads.  One was fixed:

* 3104 (libraries): rocBLAS logs the HIP error of its own kernel launch before it returns a status (ROCm/rocBLAS
  library/src/utility.cpp, rocblas_internal_convert_hip_to_rocblas_status_and_log: "rocBLAS error from hip error code:
  '<hipGetErrorName>':<code>").  With hipErrorInvalidDeviceFunction the kernel without code for the GPU is rocBLAS's
  (ggml's SOLVE_TRI handed to rocBLAS's batched strsm), and ggml's 'ROCm error: invalid device function' after it is
  the echo; the no-binary-for-gpu rule placed that echo at hip.  The rule now places its finding at the libraries when
  the paste holds rocBLAS's log of a code-object error (doctor/matchers.py, _ROCBLAS_CODE_OBJECT_LOG)."""
from __future__ import annotations

import pytest

from rwtest.heldout import doctor_files, fixture as _fixture, lead_layer as _lead_layer, problems


@pytest.mark.parametrize("num,layer", [("3100", "framework"), ("3101", "runtime"), ("3102", "hip"), ("3103", "hip"),
                                       ("3104", "libraries")])
def test_the_set_hc_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def _lead(tmp_path, text):
    found = problems(doctor_files(tmp_path, {"log.txt": text}))
    return found[0] if found else None


@pytest.mark.parametrize("text", [
    # the fixture's title (ollama/ollama#15343, 2026-03), the lines run together
    "Qwen3.5:9b rocBLAS error from hip error code: 'hipErrorInvalidDeviceFunction':98 ggml_cuda_compute_forward: "
    "SOLVE_TRI failed ROCm error: invalid device function\n",
    # llama.cpp's HIP back-end on two MI50s (ggml-org/llama.cpp#19972, 2026-02), one line each
    "rocBLAS error from hip error code: 'hipErrorInvalidDeviceFunction':98\n"
    "ggml_cuda_compute_forward: SOLVE_TRI failed\n"
    "ROCm error: invalid device function\n"
    "  current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda/ggml-cuda.cu:2408\n",
    # Strix Halo with a TheRock 7.14 rocBLAS (ggml-org/llama.cpp#27557, 2026-08): the invalid-image form
    "rocBLAS error from hip error code: 'hipErrorInvalidImage':200\n"
    "ggml_cuda_compute_forward: SOLVE_TRI failed\n"
    "ROCm error: device kernel image is invalid\n"
    "  current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda/ggml-cuda.cu:2408\n"
    "ggml/src/ggml-cuda/ggml-cuda.cu:106: ROCm error\n",
])
def test_rocblas_logged_code_object_errors_lead_at_the_libraries(tmp_path, text):
    lead = _lead(tmp_path, text)
    assert lead is not None and lead[1] == "libraries"


@pytest.mark.parametrize("text,layer", [
    # ggml's echo alone (ollama/ollama#7187, fixture 3103): the program's own kernel, HIP's reading
    ("Error: llama runner process has terminated: CUDA error: invalid device function\n"
     "  current device: 0, in function ggml_cuda_compute_forward at /c/ollama/llm/llama.cpp/ggml/src/ggml-cuda.cu:2326\n",
     "hip"),
    # rocBLAS logged another HIP error (memory), not a missing code object: the echo stays HIP's
    ("rocBLAS error from hip error code: 'hipErrorOutOfMemory':2\n"
     "ROCm error: invalid device function\n", "hip"),
    # a line that names rocBLAS without its log format
    ("rocBLAS warning: hipErrorInvalidDeviceFunction was seen earlier\n"
     "ROCm error: invalid device function\n", "hip"),
])
def test_lines_without_rocblas_log_of_a_code_object_error_stay_at_hip(tmp_path, text, layer):
    lead = _lead(tmp_path, text)
    assert lead is not None and lead[1] == layer
