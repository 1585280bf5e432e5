"""Held-out set HB (tests/data/real/3090-3094, HELDOUT.md): a third theme-neutral sample of PyTorch's ROCm issues of
2023-2024.  On the unchanged code four of the five led at their layer (framework) only through the catch-all and the
fifth (an all-NaN tensor, no error line) got nothing.  Five rows now name them, each from the program that prints it:
torch's caching allocator's free() check (c10/cuda/CUDACachingAllocator.cpp, hipified to c10/hip/HIPCachingAllocator.cpp),
LLVM's inline-asm operand allocation (llvm/lib/CodeGen/SelectionDAG/SelectionDAGBuilder.cpp), inductor's
assert_size_stride guard (torch/csrc/dynamo/guards.cpp), the compiler's '<file>:<line>:<col>: error:' on PyTorch's own
source tree, and torch's printing of non-finite tensor values (torch/_tensor_str.py)."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, ids


@pytest.mark.parametrize("num,row", [
    ("3090", "hb_torch_caching_allocator_invalid_device_pointer"),
    ("3091", "hb_llvm_inline_asm_constraint_unallocatable"),
    ("3092", "hb_inductor_assert_size_stride_mismatch"),
    ("3093", "hb_torch_source_compile_error"),
    ("3094", "hb_torch_tensor_printed_nonfinite"),
])
def test_the_set_hb_fixtures_are_named_by_their_row_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


@pytest.mark.parametrize("row,line", [
    # torch's allocator free() check: the same user's AutoTrain log (huggingface/autotrain-advanced#737, fixture 2001)
    ("hb_torch_caching_allocator_invalid_device_pointer", "  what():  invalid device pointer: 0x5400000"),
    # the CUDA build's same check (open-mmlab/mmsegmentation#1427; pytorch/pytorch#44547)
    ("hb_torch_caching_allocator_invalid_device_pointer", "  what():  invalid device pointer: 0x7fddf8800000"),
    ("hb_torch_caching_allocator_invalid_device_pointer", "  what():  invalid device pointer: 0x7ff443ffdc00"),
    # LLVM's inline-asm errors: its AMDGPU and x86 tests (llvm/test/CodeGen/AMDGPU, X86) and ComfyUI#14875's 'r'
    ("hb_llvm_inline_asm_constraint_unallocatable", "GCN: error: couldn't allocate output register for constraint 's'"),
    ("hb_llvm_inline_asm_constraint_unallocatable", "; CHECK: error: couldn't allocate input reg for constraint 'x'"),
    ("hb_llvm_inline_asm_constraint_unallocatable", "error: couldn't allocate input reg for constraint 'r'"),
    # inductor's guard: KellerJordan/modded-nanogpt#8 (MI300X, torchrun), pytorch/pytorch#95693, intel/torch-xpu-ops#3257
    ("hb_inductor_assert_size_stride_mismatch", "[rank1]: AssertionError: wrong number of dimensions"),
    ("hb_inductor_assert_size_stride_mismatch", "AssertionError: expected size 64==64, stride 16384==1 at dim=1"),
    ("hb_inductor_assert_size_stride_mismatch",
     "AssertionError: expected size 8==8, stride 256==256000 at dim=1; expected size 1000==1000, stride 2048==256 at dim=2"),
    # the compiler on PyTorch's sources: pytorch/pytorch#19251 (THH), #9219 (THC), rocm-arch/python-pytorch-rocm#5 (caffe2)
    ("hb_torch_source_compile_error",
     "/home/CODE/lib/pytorch/aten/src/THH/THHStorage.hip:4:10: fatal error: 'thrust/device_ptr.h' file not found"),
    ("hb_torch_source_compile_error",
     "/home/thomas/code/pytorch/build/caffe2/aten/src/THC/THCGeneral.h:13:10: fatal error: 'cuda_runtime.h' file not found"),
    ("hb_torch_source_compile_error", "/home/USERNAME/python-pytorch-rocm/src/pytorch-1.6.0-rocm/caffe2/core/"
     "common_gpu.h:5:10: fatal error: 'cuda.h' file not found"),
    # torch's own rendering of non-finite values (torch/_tensor_str.py: a CUDA/ROCm tensor and a -inf one)
    ("hb_torch_tensor_printed_nonfinite", "tensor([nan, nan, nan], device='cuda:0')"),
    ("hb_torch_tensor_printed_nonfinite", "tensor([[-inf, -inf, -inf,  ..., -inf, -inf, -inf],"),
])
def test_each_row_matches_other_wordings_of_its_source(row, line):
    assert row in ids(line)


@pytest.mark.parametrize("row,line", [
    # HIP's own error string (hipErrorInvalidDevicePointer) and RCCL's HIP failure: not the allocator's check
    ("hb_torch_caching_allocator_invalid_device_pointer", "RuntimeError: HIP error: invalid device pointer"),
    ("hb_torch_caching_allocator_invalid_device_pointer", "[FATAL ERROR]: HIP failure: 'invalid device pointer'"),
    # another inline-asm error (flash-attention's CK build, ROCm/flash-attention#88) and a cut line without the constraint
    ("hb_llvm_inline_asm_constraint_unallocatable", "bfloat16.hpp:170:21: error: invalid operand for instruction"),
    ("hb_llvm_inline_asm_constraint_unallocatable", "error: couldn't allocate input reg"),
    # the same words raised by other programs (a Python loader's RuntimeError, a Napi TypeError)
    ("hb_inductor_assert_size_stride_mismatch", 'raise RuntimeError("wrong number of dimensions")'),
    ("hb_inductor_assert_size_stride_mismatch", "TypeError: Wrong number of dimensions"),
    # an extension's own source and a warning in torch's tree are not an error of PyTorch's sources
    ("hb_torch_source_compile_error", "/tmp/bitsandbytes/csrc/kernels.hip:12:3: error: use of undeclared identifier"),
    ("hb_torch_source_compile_error", "/home/user/pytorch/torch/csrc/jit/ir/ir.cpp:1192:16: warning: unused variable"),
    # a single NaN loss and a tensor whose first values are finite
    ("hb_torch_tensor_printed_nonfinite", "'loss_rpn_loc': tensor(nan, device='cuda:0', grad_fn=<MulBackward0>)"),
    ("hb_torch_tensor_printed_nonfinite", "tensor([0.5117, nan, nan, nan], device='cuda:0')"),
])
def test_near_misses_are_not_matched(row, line):
    assert row not in ids(line)
