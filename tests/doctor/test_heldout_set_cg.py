"""Held-out set CG (tests/data/real/1760-1765, HELDOUT.md): ROCm built or installed by source package managers and
HPC build tools (TheRock's own CMake, Spack, EasyBuild).  The lines read from the programs that print them: ninja's
(and GNU make's) stop on a build input that is missing with no rule to make it (ninja src/build.cc, graph.cc; make
src/remake.c), LLVM's bitcode reader's error with its '(Producer: ... Reader: ...)' suffix (BitcodeReader.cpp
BitcodeReaderBase::error), EasyBuild's sanity check failure (easyblock.py _sanity_check_step, build_log.py), and
clang's 'N errors generated when compiling for gfxNNN' inside the repr of a captured compiler output."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, doctor_files, ids as _ids, problems

NINJA = "cg_build_input_missing_no_rule"
BITCODE = "cg_llvm_bitcode_reader_producer_mismatch"
EB = "cg_easybuild_sanity_check_failed"
DEVICE_ERRORS = "s10x_hip_device_code_compile_errors"


@pytest.mark.parametrize("num,row,layer", [
    ("1760", NINJA, "packaging"),
    ("1762", BITCODE, "packaging"),
    ("1763", BITCODE, "packaging"),
    ("1765", EB, "packaging"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


# ---- ninja's / make's missing build input (1760) -------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's line: TheRock's super-build without a sub-project's sources
    "ninja: error: '/mnt/Dados_ext4/workspace/TheRock/base/half/CMakeLists.txt', needed by "
    "'compile_commands_fragment_rocm-half.json', missing and no known rule to make it",
    # ninja's form for a top-level target (no 'needed by')
    "ninja: error: 'libfoo.lib' missing and no known rule to make it",
    # a dependency's library recorded at configure time and gone since
    "ninja: error: '/opt/rocm-6.4.1/lib/libhipblas.so', needed by 'bin/llama-server', missing and no known rule to "
    "make it",
    # GNU make's form of the same stop
    "make[2]: *** No rule to make target '/opt/rocm/lib/librocblas.so.4', needed by 'bin/app'.  Stop.",
])
def test_a_missing_build_input_is_named(line):
    assert NINJA in _ids(line), line


@pytest.mark.parametrize("line", [
    # ninja's other stops are not a missing input
    "ninja: error: loading 'build.ninja': No such file or directory",
    "ninja: build stopped: subcommand failed.",
    # make without a rule for a target the user typed is a typo, not a missing input
    "make: *** No rule to make target 'instal'.  Stop.",
])
def test_near_misses_are_not_a_missing_build_input(line):
    assert NINJA not in _ids(line), line


# ---- LLVM's bitcode reader, Producer newer than Reader (1762, 1763) -------------------------------------------------

@pytest.mark.parametrize("text", [
    # the runtime compile of the fixture as one line
    "fatal error: cannot open file '/user-environment/linux-zen4/llvm-amdgpu-7.1.0-x/amdgcn/bitcode/ocml.bc': Invalid "
    "attribute group entry (Producer: 'LLVM20.0.0git' Reader: 'LLVM 18.0.0git')",
    # spack's wrapped form (1763): the suffix cut after 'R'
    "amdgpu-6.4.0-rve3/amdgcn/bitcode/ocml.bc': Invalid attribute group entry (Producer: 'LLVM19.0.0git' R\n"
    "            eader: 'LLVM 18.0.0git')\\n1 error generated when compiling for gfx90a.\\n\"",
    # other reader errors carry the same suffix (BitcodeReader.cpp)
    "error: Unknown attribute kind (91) (Producer: 'LLVM17.0.0git' Reader: 'LLVM 16.0.0')",
    "LLVM ERROR: Invalid record (Producer: 'LLVM18.0.0git' Reader: 'LLVM 17.0.6')",
])
def test_a_bitcode_reader_producer_mismatch_is_named(text):
    assert BITCODE in _ids(text), text


@pytest.mark.parametrize("line", [
    # a bitcode error without the producer's identification says nothing of two toolchains
    "fatal error: cannot open file 'ocml.bc': Invalid bitcode signature",
    # the word Producer elsewhere
    "Video stream (Producer: 'Lavf58.76.100', Encoder: 'x264')",
])
def test_near_misses_are_not_a_bitcode_producer_mismatch(line):
    assert BITCODE not in _ids(line), line


def test_the_bitcode_row_leads_a_spack_log_at_packaging(tmp_path):
    diag = doctor_files(tmp_path, {"spack-build-out.txt":
        "==> hipblaslt: Executing phase: 'build'\n"
        "RuntimeError: Error compiling source object file: b\"fatal error: cannot open file '/opt/spack/llvm-amdgpu-"
        "7.2.0-abc/amdgcn/bitcode/ocml.bc': Invalid attribute group entry (Producer: 'LLVM21.0.0git' Reader: 'LLVM "
        "19.0.0git')\\n1 error generated when compiling for gfx942.\\n\"\n"
        "Failed command: /opt/rocm/bin/amdclang++ -x hip --cuda-device-only -O3\n"})
    assert problems(diag)[0] == ("known-failure", "packaging"), problems(diag)


# ---- clang's device error count inside a captured output's repr (1762, 1763) ----------------------------------------

@pytest.mark.parametrize("text", [
    "')\\n1 error generated when compiling for gfx942.\\n\"",
    "20 errors generated when compiling for gfx1201",
])
def test_device_error_count_is_read_after_a_literal_newline(text):
    assert DEVICE_ERRORS in _ids(text), text


def test_device_error_count_still_needs_a_boundary():
    assert DEVICE_ERRORS not in _ids("x11 errors generated when compiling for gfx942")


# ---- EasyBuild's sanity check (1765) --------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's line
    "== 2026-04-26 16:11:58,637 build_log.py:233 ERROR EasyBuild encountered an error: Sanity check failed: sanity "
    "check command mpicc --version | grep 'amdclang' failed with exit code 1 (output: )",
    # with the caller's location, a missing file
    "== ERROR EasyBuild encountered an error (at easybuild/framework/easyblock.py:4488 in _sanity_check_step): "
    "Sanity check failed: no file found at 'lib/libhipblaslt.so' in /apps/hipBLASLt/0.12.1",
    # a continuation line of the same error
    "sanity check command mpifort --version | grep 'amdflang' failed with exit code 1 (output: )",
])
def test_an_easybuild_sanity_check_failure_is_named(line):
    assert EB in _ids(line), line


@pytest.mark.parametrize("line", [
    # EasyBuild's progress lines and other errors are not a sanity check failure
    "== sanity checking...",
    "== 2026-04-26 16:11:58,519 easyblock.py:4484 DEBUG Skipping CUDA sanity check: CUDA is not in dependencies",
    "== ERROR EasyBuild encountered an error: Found unrecognized configure options: --enable-fc",
    # another program's 'sanity check failed' prose
    "WARNING: sanity check failed for tensor shapes, continuing",
])
def test_near_misses_are_not_an_easybuild_sanity_check_failure(line):
    assert EB not in _ids(line), line


def test_rows_are_at_packaging():
    for row in (NINJA, BITCODE, EB):
        assert error_signatures.failure_layer(row) == "packaging"
