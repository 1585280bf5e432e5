"""Held-out set GJ (tests/data/real/2910-2913, HELDOUT.md): a second theme-neutral sample of the Hugging Face
ecosystem's AMD GPU issues (bitsandbytes, Unsloth, text-generation-inference).  Two rows were added, from the printing
program's source (bitsandbytes-foundation/bitsandbytes):

* ``gj_bitsandbytes_int8_matmul_blaslt_error`` -- bitsandbytes's int8 matmul raising "cublasLt ran into an error!"
  when its native BLASLt GEMM (hipBLASLt in the ROCm build) returns an error status (bitsandbytes/backends/cuda/ops.py
  _int8_linear_matmul_impl's RuntimeError; functional.py igemmlt's Exception in 0.44 and earlier): 2911 (framework).
* ``gj_bitsandbytes_cuda_version_below_11_int8_unsupported`` -- bitsandbytes's setup check's "CUDA versions lower than
  11 are currently not supported for LLM.int8()" (bitsandbytes/diagnostics/cuda.py; the older cuda_setup/main.py's
  "CUDA SETUP: CUDA version lower than 11 ..."), which a release without ROCm support prints on a ROCm torch by
  reading torch's HIP version as a CUDA one: 2910 (framework).

2912 and 2913 stay misses (an Unsloth crash in an attached log only, the paste its banner; a TGI failure told only in
the title, the pastes its runtime block and rocm-smi): tests/doctor/test_known_failure.py MISSES.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

INT8 = "gj_bitsandbytes_int8_matmul_blaslt_error"
CUDA11 = "gj_bitsandbytes_cuda_version_below_11_int8_unsupported"


@pytest.mark.parametrize("num,layer", [("2910", "framework"), ("2911", "framework")])
def test_the_set_gj_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("2910", CUDA11), ("2911", INT8)])
def test_the_new_rows_name_their_fixtures_and_lead(num, row):
    assert_named_and_leads(num, row, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's line (bitsandbytes-foundation/bitsandbytes#1428: xinference's log of the exception, bitsandbytes 0.44)
    "2024-11-24 22:28:21,223 xinference.model.llm.transformers.utils 21723 ERROR    Internal error for batch inference: "
    "cublasLt ran into an error!.",
    # bitsandbytes/functional.py igemmlt of 0.44 and earlier: raise Exception('cublasLt ran into an error!'), as
    # Facico/Chinese-Vicuna's notes quote it
    "Exception: cublasLt ran into an error!",
    # bitsandbytes/backends/cuda/ops.py (0.45 and later): the RuntimeError with the shapes on the next line
    "RuntimeError: cublasLt ran into an error!\n\tshapeA=torch.Size([3840, 1280]), shapeB=torch.Size([1564, 1280]), "
    "shapeC=(1564, 3840)",
])
def test_the_int8_row_reads_bitsandbytes_wordings(text):
    assert INT8 in ids(text)
    assert error_signatures.failure_layer(INT8) == "framework"


@pytest.mark.parametrize("text", [
    # the other branch of the same check: status 100, a missing implementation, not a GEMM error
    "NotImplementedError: int8_linear_matmul not implemented!",
    # bitsandbytes's own fallback warning (no solution, the matmul goes on in fp32)
    "RuntimeWarning: int8_linear_matmul has no usable hipblasLt algo for shape shapeA=torch.Size([8, 512]); falling "
    "back to fp32 matmul.",
    # a cuBLASLt library name in a loader line
    "Could not load library cublasLt64_12.dll. Error code 126",
])
def test_near_misses_are_not_read_by_the_int8_row(text):
    assert INT8 not in ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's line (bitsandbytes#1245: python -m bitsandbytes on three MI210, torch's HIP 6.1 read as CUDA '61')
    "WARNING: CUDA versions lower than 11 are currently not supported for LLM.int8().",
    # bitsandbytes/cuda_setup/main.py (get_cuda_version, 0.41 and earlier): the CUDA SETUP log entry, as a user's log of
    # a libcudart-less setup shows it
    "CUDA SETUP: CUDA version lower than 11 are currently not supported for LLM.int8(). You will be only to use 8-bit "
    "optimizers and quantization routines!!",
])
def test_the_cuda11_row_reads_bitsandbytes_wordings(text):
    assert CUDA11 in ids(text)
    assert error_signatures.failure_layer(CUDA11) == "framework"


@pytest.mark.parametrize("text", [
    # the diagnostics' next warning (compute capability, not the version)
    "WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is supported for your GPU!",
    # the follow-on line alone
    "You will be only to use 8-bit optimizers and quantization routines!",
    # a detected version line
    "CUDA SETUP: Detected CUDA version 117",
])
def test_near_misses_are_not_read_by_the_cuda11_row(text):
    assert CUDA11 not in ids(text)
