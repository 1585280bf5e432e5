"""Held-out set CN (tests/data/real/1780-1782, HELDOUT.md): failures caused by the environment rather than the install.
The lines read from the programs that print them: hipcc's NVIDIA path (ROCm/HIPCC src/hipBin_nvidia.h: with HIP_PLATFORM
unset it takes the NVIDIA platform when an nvcc runs, builds '<CUDA_PATH>/bin/nvcc -Wno-deprecated-gpu-targets ...' and
prints 'failed to execute:' + the command when it fails), and cmd.exe's "'C:\\Program' is not recognized as an internal
or external command" for a path under 'Program Files' that a ROCm tool took from the environment unquoted."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

NVCC = "cn_hipcc_nvidia_platform_nvcc_failed"
UNQUOTED = "cn_windows_unquoted_program_files_path"


@pytest.mark.parametrize("num,row,layer", [
    ("1781", UNQUOTED, "packaging"),
    ("1782", NVCC, "packaging"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_rows_are_at_packaging():
    assert error_signatures.failure_layer(NVCC) == "packaging"
    assert error_signatures.failure_layer(UNQUOTED) == "packaging"


# ---- hipcc took the NVIDIA platform (1782) --------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's line: Windows, CUDA_PATH under Program Files
    'failed to execute:C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3\\bin/nvcc  -Wno-deprecated-gpu-targets'
    '  -isystem C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3/include -isystem "include" -x cu  '
    '-Wno-deprecated-gpu-targets -lcuda -lcudart -LC:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3/lib64  '
    '.\\vectoradd_hip.cpp -o ".\\vectoradd_hip.exe"',
    # Linux, the default /usr/local/cuda (CHIP-SPV/chipStar#607: a CUDA toolkit beside another HIP platform)
    'failed to execute:/usr/local/cuda/bin/nvcc  -Wno-deprecated-gpu-targets -lcuda -lcudart -L/usr/local/cuda/lib64  '
    './ccompat.o ./saxpy.o -o "ccompat" -g -pthread',
    # hipBin_nvidia.h's compile-only form (CXX flags first), CUDA_PATH=/opt/cuda
    'failed to execute:/opt/cuda/bin/nvcc  -Wno-deprecated-gpu-targets  -isystem /opt/cuda/include -isystem '
    '"/opt/rocm/include" -x cu -c square.cpp',
])
def test_hipccs_nvidia_command_failure_is_named(line):
    assert NVCC in _ids(line), line


@pytest.mark.parametrize("line", [
    # hipcc's AMD path failing is not the NVIDIA platform (rocm_toolchain_not_at_path / the compiler's own error)
    'failed to execute:/opt/rocm/lib/llvm/bin/clang++  --offload-arch=gfx1100 -O3 -x hip square.cpp -o square',
    # a user running nvcc on purpose, no hipcc line
    'nvcc -Wno-deprecated-gpu-targets -o a.out a.cu',
    # another program's 'failed to execute:'
    'Failed to execute: ALTER TABLE users ADD COLUMN is_approved BOOLEAN',
])
def test_other_failed_to_execute_lines_are_not_it(line):
    assert NVCC not in _ids(line), line


# ---- cmd.exe ran 'C:\Program' (1781, 1782) --------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's line (TheRock's hipcc with the HIP SDK's HIP_PATH), markdown-indented
    "    'C:\\Program' is not recognized as an internal or external command,",
    # the same at the start of a line (legacy-rocm-build#3680)
    "'C:\\Program' is not recognized as an internal or external command,",
    # another drive, and the PowerShell prompt kept on the same line
    "PS D:\\work> 'D:\\Program' is not recognized as an internal or external command,",
])
def test_cmds_unquoted_program_files_line_is_named(line):
    assert UNQUOTED in _ids(line), line


@pytest.mark.parametrize("line", [
    # a tool that is simply not installed / not on PATH: a whole name, not a path cut at 'Program'
    "'nvcc' is not recognized as an internal or external command,",
    "'hipcc' is not recognized as an internal or external command,",
    # a real folder name that starts with Program
    "'C:\\ProgramData\\tool.exe' is not recognized as an internal or external command,",
])
def test_other_not_recognized_lines_are_not_it(line):
    assert UNQUOTED not in _ids(line), line
