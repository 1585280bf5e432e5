"""Held-out set DF (tests/data/real/2120-2126, HELDOUT.md): Radeon PRO workstation and cloud Radeon GPUs.
Each miss's cause fixed from the program that prints the line: ggml's HIP error report (llama.cpp
ggml/src/ggml-cuda/ggml-cuda.cu, ggml_cuda_error and the older CUDA_CHECK) with HIP's string for
hipErrorOutOfMemory (ROCm/clr hipamd/src/hip_error.cpp), LM Studio's runtime compatibility verdict (observed in its
trackers) and rocBLAS's 'Cannot read <TensileLibrary.dat>' (ROCm/rocBLAS library/src/tensile_host.cpp) quoted without
its prefix; tested on the fixture and on other wordings of the same sources, with near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


# -- ggml's 'ROCm error: out of memory' (2122) ---------------------------------------------------------
OOM = "df_ggml_hip_error_out_of_memory"


def test_2122_ggml_out_of_memory_leads_at_framework():
    assert error_signatures.failure_layer(OOM) == "framework"
    assert OOM in _ids(_text("2122"))
    assert "wl_ggml_rocm_error" not in _ids(_text("2122"))
    assert _lead_layer(_fixture("2122")) == "framework"


@pytest.mark.parametrize("text", [
    # the fixture's journal lines (Ollama's runner, ggml_cuda_error with GGML_CUDA_NAME "ROCm")
    "Dec 22 03:52:41 ollama ollama[6345]: ROCm error: out of memory\n"
    "Dec 22 03:52:41 ollama ollama[6345]: llama/ggml-cuda/ggml-cuda.cu:96: ROCm error\n",
    # llama.cpp itself, the three lines ggml_cuda_error prints before GGML_ABORT
    "ROCm error: out of memory\n  current device: 1, in function ggml_cuda_pool_malloc at "
    "/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:412\n  hipMalloc(&ptr, look_ahead_size)\n"
    "/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:88: ROCm error\n",
    # trees before the GGML_CUDA_NAME rename, with the old GGML_ASSERT(!"CUDA error") abort
    "CUDA error: out of memory\n  current device: 0, in function ggml_cuda_pool_malloc_leg at ggml-cuda.cu:7981\n"
    "GGML_ASSERT: ggml-cuda.cu:241: !\"CUDA error\"\n",
    # the 2023 CUDA_CHECK: fprintf(stderr, "CUDA error %d at %s:%d: %s\n", ...)
    "CUDA error 2 at /home/me/llama.cpp/ggml-cuda.cu:6246: out of memory\n",
])
def test_ggml_hip_out_of_memory_is_the_workloads(tmp_path, text):
    assert OOM in _ids(text)
    found = problems(doctor_files(tmp_path, {"log.txt": text}))
    assert found and found[0][1] == "framework", found
    assert not any(layer == "hip" for _id, layer in found), found


@pytest.mark.parametrize("text,row", [
    # another HIP error string through the same ggml report stays the generic hip reading
    ("ROCm error: invalid argument\n  current device: 0, in function ggml_backend_cuda_get_device_memory\n",
     "wl_ggml_rocm_error"),
    # a hipBLAS status through ggml is the library's (ggml_blas_status), not an out-of-memory error
    ("ROCm error: CUBLAS_STATUS_ALLOC_FAILED\n", None),
])
def test_other_ggml_errors_are_not_out_of_memory(text, row):
    found = _ids(text)
    assert OOM not in found
    if row:
        assert row in found


def test_a_program_of_another_name_is_not_ggmls_old_check():
    # the 2023 CUDA_CHECK form is read in ggml's own files only; other programs' copies of the macro are theirs
    assert OOM not in _ids("CUDA error 2 at /home/me/bench/kernel.cu:88: out of memory\n")


# -- LM Studio's runtime verdict (2124) -----------------------------------------------------------------
LMS = "df_lmstudio_runtime_no_supported_gpus"


def test_2124_lm_studios_verdict_is_named_at_framework():
    assert error_signatures.failure_layer(LMS) == "framework"
    assert LMS in _ids(_text("2124"))
    assert _lead_layer(_fixture("2124")) == "framework"


@pytest.mark.parametrize("text", [
    # the title's one-line copy
    '[ { "status": "No supported GPUs", "message": "No compatible ROCm GPUs found on device" } ]',
    # the survey JSON as LM Studio's hardware/runtime view prints it, one key a line
    '        "compatibility": {\n          "status": "No supported GPUs",\n'
    '          "message": "No compatible ROCm GPUs found on device"\n        },\n',
    # the message alone, as users quote it in prose, for the CUDA and Vulkan runtimes too
    "LM Studio says: No compatible CUDA GPUs found on device",
    "No compatible Vulkan GPUs found on device",
])
def test_lm_studios_verdict_wordings(text):
    assert LMS in _ids(text)


@pytest.mark.parametrize("text", [
    # a usable runtime's verdict
    '"compatibility": {\n  "status": "Compatible"\n}',
    # the GPU survey's own result code for no devices (another message, another row's concern)
    '"code": "NoDevicesFound",\n"message": "No gpus found without acceleration backend compilation!"',
    # prose that says the words differently
    "ROCm found no compatible GPUs on this device",
])
def test_lm_studio_near_misses(text):
    assert LMS not in _ids(text)


# -- rocBLAS's 'Cannot read <rocblas/library/TensileLibrary...>' without its prefix (2126) ----------------
TENSILE = "rocblas_tensile_cannot_read"


def test_2126_rocblas_line_is_named_at_the_libraries():
    assert TENSILE in _ids(_text("2126"))
    assert error_signatures.failure_layer(TENSILE) == "libraries"
    assert _lead_layer(_fixture("2126")) == "libraries"


@pytest.mark.parametrize("line", [
    # the fixture's line, its first letter lost in the copy
    "ocBLAS error: Cannot read /home/mark/PycharmProjects/WSN-MA/venv/lib/python3.12/site-packages/torch/lib/rocblas/"
    "library/TensileLibrary.dat: Illegal seek",
    # quoted without the prefix in a title, the system's rocBLAS, with the arch tail of newer releases
    "Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1102",
    # a Windows wheel's path
    r"Cannot read C:\Users\me\venv\Lib\site-packages\torch\lib\rocblas\library\TensileLibrary.dat: No such file or "
    "directory",
    # the whole message as rocBLAS prints it (unchanged reading)
    "rocBLAS error: Cannot read /opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary.dat: Illegal seek",
])
def test_rocblas_cannot_read_wordings(line):
    assert TENSILE in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    # hipBLASLt's own library directory is its row's (rocblaslt_tensile_missing), not rocBLAS's
    "Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1151.dat: No such file or directory",
    # an application's own 'Cannot read' of another file
    "Cannot read /home/me/models/TensileLibrary-notes.txt: Permission denied",
])
def test_rocblas_cannot_read_near_misses(line):
    assert TENSILE not in _ids(line + "\n")
