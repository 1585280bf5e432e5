"""Held-out set EM (tests/data/real/2520-2523, HELDOUT.md): a theme-neutral sample of PyTorch's ROCm issues of
2023-2024 (pytorch/pytorch).  One miss on the unchanged code, fixed in general:

* 2521: the title 'Segmentation fault when tensor operation on GPU on gfx803' (pytorch/pytorch#113896) was read as a
  failure line with no layer: nothing on it named a program.  A tensor operation is an ML framework's (torch.Tensor,
  tf.Tensor), so the catch-all's layer table now reads a line naming a tensor at framework -- as its last row, after
  every row that names a library, HIP or the kernel, and not for 'tensor cores' or MLIR's tensor types.

2522 led at libraries on the unchanged code only through RCCL's INFO-level lines ('NCCL INFO NET/Plugin: Failed to find
ncclNetPlugin_v6 symbol.'), routine set-up that the catch-all took for failures; those lines are now benign (RCCL's
src/debug.cc prints failures as 'NCCL WARN'), and 2522, whose crash only its title tells, is in MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2520", "runtime"), ("2521", "framework"), ("2523", "framework")])
def test_the_set_em_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # the fixture's title (pytorch/pytorch#113896, 2023-11-16)
    "Segmentation fault when tensor operation on GPU on gfx803",
    # pytorch/pytorch#91699's title (gfx90c, closed 2024-09-27)
    "Segmentation fault after trying to create a tensor with float values",
    # set BL 1541 (ollama/ggml's allocator on ROCm0)
    "alloc_tensor_range: failed to initialize tensor output.weight",
    # set H 482 (ds4 on a Strix Halo, its model arena)
    "ds4: accelerator failed to prepare model tensor span 105 at offset 63432518464",
])
def test_failures_told_of_a_tensor_are_the_frameworks(line):
    assert failure_lines.looks_like_failure(line)
    assert failure_lines.layer_of(line) == "framework"


@pytest.mark.parametrize("line,layer", [
    # set EK 2503's title: rocBLAS' Tensile library, not a tensor
    ("Some models like gemma-3n crashes - rocBLAS error: Cannot read /opt/rocm-6.4.1/lib/llvm/bin/../../../lib/rocblas/"
     "library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036", "libraries"),
    # set AN 1085 (ComfyUI on an RX 6400): a HIP error told of a tensor operation keeps HIP's layer (the row is last)
    ('Any GPU tensor operation fails immediately with "CUDA error: device kernel image is invalid"', "hip"),
])
def test_lines_that_name_another_layer_keep_it(line, layer):
    assert failure_lines.layer_of(line) == layer


@pytest.mark.parametrize("line", [
    # set I 502 (rocMLIR under MIGraphX, shortened): MLIR's tensor types are the compiler's, not a framework's
    'Note: see current operation: %7 = "tosa.conv2d"(%1, %2, %0) : (tensor<1x4x16x8400xf32>, tensor<1x16x1x1xf32>,'
    ' tensor<1xf32>) -> tensor<1x4x1x8400xf32>',
    # constructed: Nvidia's tensor cores are hardware, not a framework's operation
    "Segmentation fault on a GPU with tensor cores",
])
def test_mlir_tensor_types_and_tensor_cores_are_not_the_row(line):
    assert failure_lines.layer_of(line) != "framework"


@pytest.mark.parametrize("line", [
    # set EM 2522 (pytorch/pytorch#135486): RCCL probing its net plugin's API versions, then loading v5
    "0: g1002:2128869:2128869 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.",
    # fixture 139 (vLLM over RCCL, ROCm 6.4): an optional transport's library absent
    "supllm:461:461 [1] NCCL INFO Failed to open libibverbs.so[.1]",
])
def test_rccl_info_lines_are_not_failures(line):
    assert not failure_lines.looks_like_failure(line)


def test_rccl_warn_lines_stay_failures():
    # constructed in the format of RCCL's WARN level (src/debug.cc): a failure RCCL logs stays a failure line
    assert failure_lines.looks_like_failure("node01:1234:1290 [0] NCCL WARN Call to ibv_reg_mr failed")


def test_the_rccl_segfault_told_in_a_title_is_a_known_miss():
    assert _lead_layer(_fixture("2522")) is None
