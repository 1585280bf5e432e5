"""Held-out set GG (tests/data/real/2880-2883, HELDOUT.md): a theme-neutral sample of HIP's trackers (ROCm/HIP,
ROCm/clr, ROCm/hip-tests, ROCm/HIPIFY, 2023-2026).  Two rows were added and one widened, each from the printing
program's source, and one Windows sign was added to detection:

* ``gg_cmake_string_list_subcommand_argument_count`` -- CMake's argument-count refusal of string()/list() sub-commands
  (Kitware/CMake Source/cmStringCommand.cxx, cmListCommand.cxx: 'string sub-command REPLACE requires at least four
  arguments.'), in ROCm projects an unquoted variable left empty by rocm_agent_enumerator or hipconfig (2881).
* ``gg_clang_tooling_skipped_some_replacements`` -- clang's RefactoringTool::runAndSave (clang/lib/Tooling/
  Refactoring.cpp) printing 'Skipped some replacements.' when its Rewriter refuses a replacement; hipify-clang runs
  through it (2882).
* ``dn_gdb_backtrace_innermost_frame_in_rocr`` now takes a frame whose wrapped ' at <file>:<line>' / ' from <library>'
  line lost its indent when quoted in prose (gdb/stack.c print_frame's continuation), as 2880's ROCr frame is.
* ``detect/windows_facts.py`` reads NVIDIA's CUDA Toolkit install directory on Windows
  (C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vN.M, the CUDA installer's default) as a native-Windows sign
  (2882's os_id).
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2880", "runtime"), ("2881", "packaging"), ("2882", "packaging"),
                                       ("2883", "packaging")])
def test_the_set_gg_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("2880", "dn_gdb_backtrace_innermost_frame_in_rocr", "runtime"),
    ("2881", "gg_cmake_string_list_subcommand_argument_count", "packaging"),
    ("2882", "gg_clang_tooling_skipped_some_replacements", "packaging"),
])
def test_each_row_names_its_fixture_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


CMAKE = "gg_cmake_string_list_subcommand_argument_count"


@pytest.mark.parametrize("text", [
    # ROCm/hip#3206 (HIP 5.4.3 through spack on a login node without GPUs, tests/hit/HIT.cmake)
    "CMake Error at /tmp/simbergm/spack-stage/spack-stage-hip-5.4.3-6riler52zjomlj3yrpd3fntoq77twl2n/spack-src/tests/hit/"
    "HIT.cmake:49 (string):\n  string sub-command REPLACE requires at least four arguments.",
    # rocm-arch/rocm-arch#762 (hip-runtime-amd 5.1.1, no device found: HIT.cmake's LENGTH)
    "CMake Error at /build/hip-runtime-amd/src/HIP-rocm-5.1.1/tests/hit/HIT.cmake:51 (string):\n"
    "  string sub-command LENGTH requires two arguments.",
    # ROCm/rocm-systems#1092 (clr/hip-tests' hipconfig version query, the 'BEFORE' output)
    "CMake Error at CMakeLists.txt:108 (string):\n  string sub-command REPLACE requires at least four arguments.",
    # Kitware/CMake Source/cmListCommand.cxx's form of the same refusal
    "  list sub-command GET requires at least two arguments.",
])
def test_cmake_subcommand_row_reads_its_wordings(text):
    assert CMAKE in ids(text)
    assert error_signatures.failure_layer(CMAKE) == "packaging"


@pytest.mark.parametrize("text", [
    "CMake Error at CMakeLists.txt:114 (list):\n  list index: 1 out of range (-1, 0)",   # another list error
    "-- string sub-command REPLACE used for the offload arch string",                # no refusal
    "The file sub-command is documented in cmake-commands(7).",                       # prose
])
def test_cmake_subcommand_row_leaves_other_lines(text):
    assert CMAKE not in ids(text)


CLANG = "gg_clang_tooling_skipped_some_replacements"


@pytest.mark.parametrize("text", [
    "Skipped some replacements.",                                  # ROCm/HIPIFY#1439 (hipify-clang, Windows)
    "> Skipped some replacements.",                                # the same line quoted in an issue
    "[HIPIFY] info: file 'a.cu' statistics:\nSkipped some replacements.\n",  # after hipify-clang's statistics
])
def test_clang_tooling_row_reads_its_line(text):
    assert CLANG in ids(text)


@pytest.mark.parametrize("text", [
    "Skipped some replacements because the file was read-only, which is expected.",   # prose around it
    "warning: skipped 3 replacements in header",                                     # another wording
])
def test_clang_tooling_row_leaves_other_lines(text):
    assert CLANG not in ids(text)


GDB = "dn_gdb_backtrace_innermost_frame_in_rocr"


@pytest.mark.parametrize("text", [
    # ROCm/clr#259 (riscv64, openEuler's rocm-runtime 6.3.0): the wrapped line quoted without its indent
    "#0 0x00007ffff364a5ca in rocr::atomic::Store<unsigned long> (order=std::memory_order_release, val=0, "
    "ptr=0x7fffee95a000)\nat /usr/src/debug/rocm-runtime-6.3.0-2.oe2403sp1.riscv64/runtime/hsa-runtime/core/util/"
    "atomic_helpers.h:215",
    # ROCm/clr#155 (Fedora 42, clinfo): gdb's own indented continuation after two libc frames, read before
    "#0  0x00007ffff7e14f7b in __memset_sse2_unaligned_erms () from /lib64/libc.so.6\nNo symbol table info available.\n"
    "#1  0x00007ffff782e25f in memset (__dest=<optimized out>, __ch=0, __len=<optimized out>) at "
    "/usr/include/bits/string_fortified.h:59\nNo locals.\n"
    "#2  rocr::AMD::GpuAgent::AssembleShader (this=<optimized out>, func_name=<optimized out>)\n"
    "    at /usr/src/debug/rocm-runtime-6.3.1-4.fc42.x86_64/runtime/hsa-runtime/core/runtime/amd_gpu_agent.cpp:417",
])
def test_rocr_frame_row_reads_indented_and_unindented_continuations(text):
    assert GDB in ids(text)


@pytest.mark.parametrize("text", [
    # an innermost frame in libc whose unindented continuation is a system header: not ROCr
    "#0  0x00007ffff7e14f7b in memset (__dest=<optimized out>)\nat /usr/include/bits/string_fortified.h:59",
    # prose naming ROCr's source, no frame
    "The crash is at /usr/src/debug/rocm-runtime-6.3.0/runtime/hsa-runtime/core/util/atomic_helpers.h:215 I think",
])
def test_rocr_frame_row_leaves_other_text(text):
    assert GDB not in ids(text)


@pytest.mark.parametrize("text", [
    # ROCm/HIPIFY#1439's command (CUDA 12.4's default install directory)
    '>hipify-clang.exe a.cu -Iinclude --cuda-path="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"',
    "CUDA_PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8",
])
def test_the_cuda_toolkit_directory_is_a_windows_sign(text):
    assert windows_sign(text) is not None


@pytest.mark.parametrize("text", [
    "/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/nvcc: not found",  # WSL's view of it
    "export CUDA_PATH=/usr/local/cuda-12.4",
])
def test_other_cuda_paths_are_no_windows_sign(text):
    assert windows_sign(text) is None
