"""Held-out set DH (tests/data/real/2160-2166, HELDOUT.md): quantization and low-precision data types on AMD GPUs
(FP8 variants in PyTorch, torchao, torchtune's bf16 check, vLLM's quantized linear kernels, AutoGPTQ's HIP build).
The misses' causes, from the programs that print the lines: PyTorch's dtype dispatch (aten/src/ATen/Dispatch.h,
AT_DISPATCH_SWITCH's '"<op>" not implemented for '<ScalarType>''), its ScalarType-to-BLAS type map
(aten/src/ATen/cuda/CUDADataType.h, hipified to HIPDataType.h: 'Cannot convert ScalarType <T> to cudaDataType.'),
torchtune's precision check (torchtune/training/precision.py) and vLLM's kernel chooser
(quantization/kernels/mixed_precision/__init__.py and scaled_mm/__init__.py: 'Failed to find a kernel that can
implement the <X> linear layer') were no rows, so the catch-all placed them by their words (hip for 'hipDataType',
kernel for 'kernel').  Tested on the fixtures, on other wordings of the same sources and on near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

DISPATCH = "dh_torch_dispatch_dtype_not_implemented"
DATATYPE = "dh_torch_scalar_type_to_blas_datatype"
TORCHTUNE = "dh_torchtune_bf16_not_available"
VLLM = "dh_vllm_no_linear_kernel_for_layer"


@pytest.mark.parametrize("num,layer", [("2160", "framework"), ("2161", "framework"), ("2162", "framework"),
                                       ("2163", "framework"), ("2164", "libraries"), ("2166", "framework")])
def test_the_set_dh_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("2160", DISPATCH), ("2161", DISPATCH), ("2162", DATATYPE),
                                     ("2163", TORCHTUNE), ("2166", VLLM)])
def test_the_fixture_is_named_and_leads(num, row):
    assert_named_and_leads(num, row, "framework")


# -- PyTorch's dtype dispatch: NotImplementedError (TORCH_CHECK_NOT_IMPLEMENTED) and the older RuntimeError (AT_ERROR) --
@pytest.mark.parametrize("line", [
    # ComfyUI's fp8 model through an elementwise op (Comfy-Org/ComfyUI#14285)
    "NotImplementedError: \"mul_cuda\" not implemented for 'Float8_e4m3fn'",
    # torchaudio's padding in bf16 on a Strix Halo TheRock nightly (fixture 812)
    "RuntimeError: \"reflection_pad1d\" not implemented for 'BFloat16'",
    # a model left on the CPU in half precision (the CPU has no Half addmm in older releases)
    "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
])
def test_torch_dispatch_wordings_are_named(line):
    assert DISPATCH in _ids(line), line


@pytest.mark.parametrize("line", [
    "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend.",
    "NotImplementedError: Module [Linear] is missing the required \"forward\" function",
    "RuntimeError: addmm_cuda is not implemented for Float8",   # no quoting: not the dispatch macro's words
])
def test_torch_dispatch_lookalikes_are_not_named(line):
    assert DISPATCH not in _ids(line), line


# -- PyTorch's ScalarType -> cudaDataType / hipDataType map ---------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the same assert quoted in sglang's ROCm fp8 fix (sgl-project/sglang, 'add torch.float8_e4m3fnuz support')
    "RuntimeError: false INTERNAL ASSERT FAILED at \"/app/pytorch/aten/src/ATen/hip/HIPDataType.h\":102, please report "
    "a bug to PyTorch. Cannot convert ScalarType Float8_e4m3fn to hipDataType.",
    # the CUDA build's own words (CUDADataType.h before hipify)
    "RuntimeError: false INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/CUDADataType.h\":93, please report a bug to "
    "PyTorch. Cannot convert ScalarType Float8_e5m2fnuz to cudaDataType.",
])
def test_scalar_type_map_wordings_are_named(line):
    assert DATATYPE in _ids(line), line


@pytest.mark.parametrize("line", [
    "Cannot convert type N3c108BFloat16E to cudaDataType.",            # the templated getCudaDataType<T> assert
    "Cannot convert ffi::DataType F8E4M3FN to hipDataType.",           # Primus-Turbo's JAX FFI map, not PyTorch's
])
def test_scalar_type_map_lookalikes_are_not_named(line):
    assert DATATYPE not in _ids(line), line


# -- torchtune's bf16 check ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "    raise RuntimeError\n        RuntimeError: bf16 precision was requested but not available on this hardware. "
    "Please use fp32 precision instead",                                # a user's notes on torchtune/training/precision.py
    "RuntimeError: bf16 precision was requested but not available on this hardware.",  # cut before its advice
])
def test_torchtune_bf16_wordings_are_named(line):
    assert TORCHTUNE in _ids(line), line


def test_torchtune_bf16_lookalike_is_not_named():
    assert TORCHTUNE not in _ids("ValueError: Dtype torch.bfloat16 must be one of fp16, bf16, fp32 for finetuning.")


# -- vLLM's quantized linear kernel chooser ----------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the ScaledMM (FP8) chooser, kernels/scaled_mm/__init__.py
    "ValueError: Failed to find a kernel that can implement the ScaledMM linear layer. Reasons: ",
    # an 8-bit weight GPTQ checkpoint on a platform without such a WNA16 kernel (vllm-project/vllm#23364's title)
    "ValueError: Failed to find a kernel that can implement the WNA16 linear layer.",
    # the NVFP4 chooser of later trees (vllm/model_executor/kernels/linear/__init__.py)
    "Failed to find a kernel that can implement the NVFP4 linear layer",
])
def test_vllm_linear_kernel_wordings_are_named(line):
    assert VLLM in _ids(line), line


@pytest.mark.parametrize("line", [
    "  TritonW4A16LinearKernel cannot implement due to: Activation reordering (g_idx) is not supported",
    "WARNING: Failed to find a kernel for the attention backend, falling back to TRITON_ATTN",
])
def test_vllm_linear_kernel_lookalikes_are_not_named(line):
    assert VLLM not in _ids(line), line


def test_the_rows_sit_at_the_framework_layer():
    assert {error_signatures.failure_layer(r) for r in (DISPATCH, DATATYPE, TORCHTUNE, VLLM)} == {"framework"}
