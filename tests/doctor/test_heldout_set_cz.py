"""Held-out set CZ (tests/data/real/2000-2004, HELDOUT.md): Hugging Face libraries on AMD GPUs.
Each miss's cause fixed from the program that prints the line: Composable Kernel's HIP check
(ROCm/composable_kernel include/ck_tile/host/hip_check_error.hpp, include/ck/host_utility/hip_check_error.hpp),
compiled into xformers / flash-attention, and bitsandbytes' block-size check on ROCm
(bitsandbytes/backends/cuda/ops.py, bitsandbytes/functional.py); tested on the fixture and on other wordings of
the same sources, with near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems


# -- Composable Kernel's HIP check naming one of CK's files (2003) ----------------------------------
def test_2003_cks_invalid_device_function_leads_at_the_libraries():
    assert _lead_layer(_fixture("2003")) == "libraries"


@pytest.mark.parametrize("line", [
    # the fixture's line: ck_tile's HIP_CHECK_ERROR, __FILE__ under xformers' vendored CK
    "RuntimeError: HIP Function Failed (/__w/xformers/xformers/third_party/composable_kernel_tiled/include/ck_tile/"
    "host/kernel_launch_hip.hpp,77) invalid device function",
    # flash-attention's CK build, the other message HIP gives for a missing code object
    "RuntimeError: HIP Function Failed (/tmp/pip-build/flash-attention/csrc/composable_kernel/include/ck_tile/host/"
    "kernel_launch.hpp,77) no kernel image is available for execution on the device",
    # the older hip_check_error function ("HIP runtime error: <string>. <file>: <line>in function: ...")
    "RuntimeError: HIP runtime error: invalid device function. /opt/aiter/3rdparty/composable_kernel/include/ck_tile/"
    "host/hip_check_error.hpp: 17in function: hip_check_error",
])
def test_cks_check_line_is_placed_at_the_libraries(tmp_path, line):
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert ("no-binary-for-gpu", "libraries") in found, found
    assert ("no-binary-for-gpu", "hip") not in found, found


def test_the_same_macro_in_a_programs_own_file_stays_hips(tmp_path):
    # other projects copy CK's macro: a launch in the program's own source is the program's build, HIP's reading
    line = "terminate called after throwing an instance of 'std::runtime_error'\n  what():  HIP Function Failed " \
           "(/home/me/proj/src/gemm_launcher.cpp,212) invalid device function\n"
    found = problems(doctor_files(tmp_path, {"log.txt": line}))
    assert ("no-binary-for-gpu", "hip") in found, found


# -- bitsandbytes' block-size check on ROCm (2002) ----------------------------------------------------
ROW = "cz_bitsandbytes_rocm_blocksize_check"


def test_2002_the_check_is_named_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"
    text = (_fixture("2002") / "unsloth-traceback.txt").read_text(encoding="utf-8")
    assert ROW in _ids(text)
    assert _lead_layer(_fixture("2002")) == "framework"


@pytest.mark.parametrize("line", [
    # bitsandbytes 0.46 on (backends/cuda/ops.py, ROCM_WARP_SIZE_64), as a traceback shows the failing source line
    "    torch._check(blocksize in [4096, 2048, 1024, 512, 256, 128])",
    # bitsandbytes 0.43-0.45 (functional.py, HIP_ENVIRONMENT): a bare AssertionError under its source line
    "            assert blocksize in [4096, 2048, 1024, 512, 256, 128]",
    # a traceback caret line joined to the source by a copy ('torch._check( blocksize ...')
    "torch._check( blocksize in [4096, 2048, 1024, 512, 256, 128])",
])
def test_the_rocm_blocksize_check_is_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    # the CUDA/wave32 check (with 64): a failure there is another block size, not the ROCm restriction
    "    torch._check(blocksize in [4096, 2048, 1024, 512, 256, 128, 64])",
    "        assert blocksize in [4096, 2048, 1024, 512, 256, 128, 64]",
    # torch._check's message alone says nothing of bitsandbytes
    "RuntimeError: Expected cond to be True, but got False. (Could this error message be improved? If so, please "
    "report an enhancement request to PyTorch.)",
])
def test_other_checks_are_not_the_rocm_restriction(line):
    assert ROW not in _ids(line), line
