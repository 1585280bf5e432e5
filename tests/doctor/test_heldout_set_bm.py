"""Held-out set BM (tests/data/real/1560-1566, HELDOUT.md): fine-tuning and training libraries on ROCm.  The lines read
from the programs that print them: the C/C++ compiler's diagnostics in a PyTorch extension's hipified sources (PyTorch's
torch/utils/hipify/hipify_python.py names them foo_hip.h / foo.hip), Composable Kernel's own static assertions
('wrong! not implemented'), CPython's ImportError for a name torch lacks (Python/ceval.c import_from) and the shells'
'command not found' for nvidia-smi."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

EXT = "bm_torch_extension_hipified_source_compile_error"
CK = "bm_ck_static_assert_wrong_not_implemented"
IMPORT = "bm_import_name_missing_from_torch"
NVSMI = "bm_nvidia_smi_not_found_on_amd"


@pytest.mark.parametrize("num,row,layer", [
    ("1561", IMPORT, "framework"),
    ("1563", EXT, "framework"),
    ("1565", EXT, "framework"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_ck_assertion_is_named_on_1562_at_libraries():
    # 1562's lead stays clang's summary row at libraries; CK's assertion line is now named there too
    assert_named_and_leads("1562", CK, "libraries")


@pytest.mark.parametrize("line", [
    # gcc's missing include (DeepSpeed#4989), clang's (its wording)
    "deepspeed/inference/v2/kernels/core_ops/blas_kernels/blas_utils_hip.h:18:10: fatal error: mma.h: No such file or directory",
    "/tmp/pip-install-x/deepspeed/ops/csrc/includes/quantization_utils_hip.h:9:10: fatal error: 'cuda_fp8.h' file not found",
    # clang's error in a hipified header (DeepSpeed#3197) and in a .hip kernel (a .cu renamed by hipify)
    "/home/user/workspace/DeepSpeed/csrc/includes/reduction_utils_hip.h:352:46: error: no member named 'shfl_xor' in "
    "'cooperative_groups::thread_block_tile<64, void>'",
    "/build/bitsandbytes/csrc/kernels.hip:1234:5: error: use of undeclared identifier '__shfl_xor_sync'",
    "  /tmp/pip-wheel-1/xformers/csrc/attention/hip_fmha/attention_forward_decoder_hip.cpp:88:3: error: no matching function for call to 'foo'",
])
def test_extension_compile_errors_are_named(line):
    assert EXT in _ids(line), line
    assert error_signatures.failure_layer(EXT) == "framework"


@pytest.mark.parametrize("line", [
    # a vendored Composable Kernel header or a ROCm header: the library's code, not the extension's
    "/home/n/flash-attention/csrc/composable_kernel/include/ck_tile/core/arch/generic_memory_space_atomic_hip.hpp:66:19: "
    "error: static assertion failed: wrong! not implemented",
    "/opt/rocm-6.0.0/include/hip/amd_detail/amd_hip_cooperative_groups_hip.h:10:2: error: something",
    # an include trail and a warning of a hipified file, and an error of a source that was not hipified
    "In file included from deepspeed/inference/v2/kernels/core_ops/blas_kernels/blas_hip.h:12,",
    "csrc/includes/conversion_utils_hip.h:270:15: warning: unused variable 'x' [-Wunused-variable]",
    "csrc/ops.cpp:10:10: fatal error: cuda_runtime.h: No such file or directory",
])
def test_near_misses_are_not_the_extension_row(line):
    assert EXT not in _ids(line), line


@pytest.mark.parametrize("line", [
    "/home/n/flash-attention/csrc/composable_kernel/include/ck_tile/core/arch/generic_memory_space_atomic_hip.hpp:66:19: "
    "error: static assertion failed due to requirement '(std::is_same<_Float16, int>::value && (4 == 1))': wrong! not implemented",
    # static_assert(false, ...) in the older CK tree (include/ck/utility/amd_buffer_addressing.hpp), no requirement text
    "/src/composable_kernel/include/ck/utility/amd_buffer_addressing.hpp:512:9: error: static assertion failed: wrong! not implemented",
    "/tmp/xformers/third_party/composable_kernel_tiled/include/ck_tile/core/tensor/tensor_adaptor.hpp:301:9: "
    "error: static assertion failed due to requirement '0 >= 1': wrong! not implemented",
])
def test_ck_static_assertions_are_named(line):
    assert CK in _ids(line), line
    assert error_signatures.failure_layer(CK) == "libraries"


@pytest.mark.parametrize("line", [
    # a static assertion of another project, and CK's runtime exception of its examples
    "/src/mylib/include/thing.hpp:3:1: error: static assertion failed: wrong! not implemented",
    "terminate called after throwing an instance of 'std::runtime_error'\n  what():  wrong! not implemented",
])
def test_near_misses_are_not_the_ck_row(line):
    assert CK not in _ids(line), line


@pytest.mark.parametrize("line", [
    "ImportError: cannot import name 'set_wrap_triton_enabled' from 'torch._library.triton' "
    "(/opt/conda/envs/python3.10.13/lib/python3.10/site-packages/torch/_library/triton.py)",
    "ImportError: cannot import name 'is_torch_greater_or_equal' from 'torch.utils._import_utils' (unknown location)",
    "ImportError: cannot import name 'functional_tensor' from 'torchvision.transforms' "
    "(/venv/lib/python3.12/site-packages/torchvision/transforms/__init__.py)",
    "ImportError: cannot import name 'Float8_e4m3fnuz' from 'torch' (/venv/lib/python3.11/site-packages/torch/__init__.py)",
])
def test_missing_torch_names_are_named(line):
    assert IMPORT in _ids(line), line


@pytest.mark.parametrize("line", [
    # a circular import (another cause), a package other than torch, and a torch-named third-party package
    "ImportError: cannot import name 'nn' from partially initialized module 'torch' (most likely due to a circular import) "
    "(/venv/lib/python3.12/site-packages/torch/__init__.py)",
    "ImportError: cannot import name 'is_flash_attn_available' from 'transformers.utils' (/venv/transformers/utils/__init__.py)",
    "ImportError: cannot import name 'foo' from 'torchmetrics' (/venv/torchmetrics/__init__.py)",
])
def test_near_misses_are_not_the_import_row(line):
    assert IMPORT not in _ids(line), line


@pytest.mark.parametrize("line", [
    "/bin/sh: 1: nvidia-smi: not found",
    "bash: nvidia-smi: command not found",
    "/usr/bin/bash: line 1: nvidia-smi: command not found",
    "zsh: command not found: nvidia-smi",
    "'nvidia-smi' is not recognized as an internal or external command,",
])
def test_nvidia_smi_missing_informs(line):
    assert NVSMI in _ids(line), line
    assert error_signatures.failure(NVSMI).severity == "info"


@pytest.mark.parametrize("line", [
    "/bin/sh: 1: rocminfo: not found",
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
])
def test_near_misses_are_not_the_nvidia_smi_row(line):
    assert NVSMI not in _ids(line), line
