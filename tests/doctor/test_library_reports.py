"""Issue 28, s18-libmacros: the ROCm libraries' own error reports, read at the libraries layer.
Audit of the libraries' printed formats (HELDOUT.md, "The ROCm libraries' own error reports"): most were read before
(rocBLAS, hipBLASLt/rocblaslt, MIOpen, RCCL, CK, AITER, MIGraphX, hipBLAS, PyTorch's cuFFT relay); the sparse
libraries' were not.  hipSPARSE's status names (hipsparseStatus_t, ROCm/rocm-libraries projects/hipsparse
library/include/hipsparse.h) and rocSPARSE's debug error trace ('rocSPARSE.error.trace:', library/src/include/
rocsparse_debug.hpp's debug mode) fell to the catch-all; hipBLASLt's own Error-level log ('[<time>][HIPBLASLT][<pid>]
[Error][<function>]', rocblaslt logging.h) was told-not-shown; rocRAND's fatal check ('rocRAND internal error: %s in
function %s at %s:%d', library/src/rng/common.hpp ROCRAND_HIP_FATAL_ASSERT) relays a HIP error name, which the hip
rows read and led with: the library printed it, so it leads at libraries.  Tested on real pasted lines, another wording of the same source, and near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, problems

HIPSPARSE = "lm_hipsparse_status_error"
ROCSPARSE_TRACE = "lm_rocsparse_error_trace"
ROCRAND = "lm_rocrand_internal_hip_error"
HIPBLASLT_LOG = "lm_hipblaslt_log_error"
MIGRAPHX_ROCBLAS = "lm_migraphx_rocblas_call_failed"


def _ids(text):
    return [sig.id for sig, _ in error_signatures.scan(text)]


@pytest.mark.parametrize("line,row", [
    # ROCm/hipSPARSE#387 (hipsparseSpGEMM_compute, a program's CHECK_HIPSPARSE macro)
    ("hipSPARSE error: HIPSPARSE API failed at line 261 with error: HIPSPARSE_STATUS_INVALID_VALUE", HIPSPARSE),
    # ROCm/hipSPARSE#389 (hipsparseSpSM_bufferSize)
    ("hipSPARSE error: HIPSPARSE API failed at line 224 with error: HIPSPARSE_STATUS_INVALID_VALUE", HIPSPARSE),
    # the format hipSPARSE's own issue #384 shows for CHECK_HIPSPARSE with hipsparseGetErrorString: other status names
    ("HIPSPARSE API failed at line 80 with error: HIPSPARSE_STATUS_NOT_SUPPORTED (10)", HIPSPARSE),
    # ROCm/hipSPARSE#575 (rocSPARSE's error trace, pasted inside a comment)
    ('// rocSPARSE.error.trace:   { "function": "csrsv_solve_dispatch",', ROCSPARSE_TRACE),
    # the same trace's later frame, without the comment marker
    ('rocSPARSE.error.trace:   { "function": "spsv_template",', ROCSPARSE_TRACE),
    # ROCm/rocRAND#614 (the SOBOL64 generators' log-normal path)
    ("rocRAND internal error: hipErrorInvalidValue", ROCRAND),
    # the whole format, from a pasted TheRock hipRAND ctest run on WSL2 without /dev/kfd (a stored page, no URL)
    ("2: rocRAND internal error: hipErrorNoDevice in function ~poisson_distribution_manager at "
     "/therock/src/rocm-libraries/projects/rocrand/library/src/rng/distribution/poisson.hpp:216", ROCRAND),
    # ROCm/hipBLASLt#1238 (HIPBLASLT_LOG_LEVEL=5 under rocblas-test)
    ("[2024-10-07 08:01:28][HIPBLASLT][4141006][Error][validateMatmulArgs] invalid args=datatype matA=R_16F "
     "matB=R_16F matC=R_16F matD=R_16F computeType=invalidType ", HIPBLASLT_LOG),
    # constructed: the Windows build logs without a pid ("[<time>][HIPBLASLT][Api][rocblaslt_create]" in a pasted
    # TheRock Windows log), here at the Error level
    ("[2026-01-16 01:55:05][HIPBLASLT][Error][rocblaslt_matmul] invalid args", HIPBLASLT_LOG),
    # ROCm/AMDMIGraphX#2771 (MI210, a Stable Diffusion VAE's GEMM)
    ("/code/AMDMIGraphX/src/targets/gpu/gemm_impl.cpp:126: operator(): rocblas_invoke: rocBLAS call failed with "
     "status 4", MIGRAPHX_ROCBLAS),
    # the same words in a PyTorch extension's TORCH_CHECK on a rocblas_status (the message after RuntimeError)
    ("RuntimeError: rocBLAS call failed with status 2", MIGRAPHX_ROCBLAS),
])
def test_the_library_lines_are_named_at_libraries(line, row):
    assert row in _ids(line), line
    assert error_signatures.failure_layer(row) == "libraries"


@pytest.mark.parametrize("line", [
    ("hipSPARSE error: HIPSPARSE API failed at line 261 with error: HIPSPARSE_STATUS_INVALID_VALUE"),
    ('// rocSPARSE.error.trace:   { "function": "csrsv_solve_dispatch",'),
    ("[2024-10-07 08:01:28][HIPBLASLT][4141006][Error][validateMatmulArgs] invalid args=datatype matA=R_16F"),
    # the library relays a HIP error name that a hip row also reads: the library printed it, so it leads
    ("rocRAND internal error: hipErrorInvalidValue"),
    ("2: rocRAND internal error: hipErrorNoDevice in function ~poisson_distribution_manager at "
     "/therock/src/rocm-libraries/projects/rocrand/library/src/rng/distribution/poisson.hpp:216"),
])
def test_doctor_leads_at_libraries(tmp_path, line):
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert found and found[0][1] == "libraries", found


@pytest.mark.parametrize("line", [
    "HIPSPARSE_STATUS_SUCCESS",                                   # success is no failure
    "    hipsparseStatus_t status = HIPSPARSE_STATUS_SUCCESS;",   # source code quoted in a thread
    "rocSPARSE.trace: rocsparse_create_handle",                   # not the error trace
    # hipBLASLt's API-level trace line is no error (ROCm/pytorch#1241)
    "[2023-06-12 21:16:46][HIPBLASLT][690719][Api][rocblaslt_matmul_desc_create] matmulDesc[out]=0x7fffa3161bd8",
    "hipErrorInvalidValue",                                       # the bare HIP name, no library's prefix
    "WARNING: degraded perf. in rocBLAS call",                    # MIGraphX's warning on the same check
])
def test_near_misses_are_not_named(line):
    ids = _ids(line)
    assert not {HIPSPARSE, ROCSPARSE_TRACE, ROCRAND, HIPBLASLT_LOG, MIGRAPHX_ROCBLAS} & set(ids), (line, ids)


@pytest.mark.parametrize("line", ["RuntimeError: HIP error: invalid device function", "hipErrorNoDevice",
                                  "RuntimeError: HIP error: invalid argument"])
def test_the_bare_hip_error_keeps_its_hip_lead(tmp_path, line):
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert found and found[0][1] == "hip", found
