"""Issue 28, s18-libmacros: the ROCm libraries' own error reports, read at the libraries layer.
Audit of the libraries' printed formats (HELDOUT.md, "The ROCm libraries' own error reports"): most were read before
(rocBLAS, hipBLASLt/rocblaslt, MIOpen, RCCL, CK, AITER, MIGraphX, hipBLAS, PyTorch's cuFFT relay); the sparse
libraries' were not.  hipSPARSE's status names (hipsparseStatus_t, ROCm/rocm-libraries projects/hipsparse
library/include/hipsparse.h) and rocSPARSE's debug error trace ('rocSPARSE.error.trace:', projects/rocsparse) fell to
the catch-all.  Tested on real pasted lines, another wording of the same source, and near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, problems

HIPSPARSE = "lm_hipsparse_status_error"
ROCSPARSE_TRACE = "lm_rocsparse_error_trace"


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
])
def test_the_library_lines_are_named_at_libraries(line, row):
    assert row in _ids(line), line
    assert error_signatures.failure_layer(row) == "libraries"


@pytest.mark.parametrize("line", [
    ("hipSPARSE error: HIPSPARSE API failed at line 261 with error: HIPSPARSE_STATUS_INVALID_VALUE"),
    ('// rocSPARSE.error.trace:   { "function": "csrsv_solve_dispatch",'),
])
def test_doctor_leads_at_libraries(tmp_path, line):
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert found and found[0][1] == "libraries", found


@pytest.mark.parametrize("line", [
    "HIPSPARSE_STATUS_SUCCESS",                                   # success is no failure
    "    hipsparseStatus_t status = HIPSPARSE_STATUS_SUCCESS;",   # source code quoted in a thread
    "rocSPARSE.trace: rocsparse_create_handle",                   # not the error trace
])
def test_near_misses_are_not_named(line):
    ids = _ids(line)
    assert HIPSPARSE not in ids and ROCSPARSE_TRACE not in ids, (line, ids)


def test_the_bare_hip_error_keeps_its_hip_lead(tmp_path):
    found = problems(doctor_files(tmp_path, {"log.txt": "RuntimeError: HIP error: invalid device function\n"}))
    assert found and found[0][1] == "hip", found
