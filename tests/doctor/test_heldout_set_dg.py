"""Held-out set DG (tests/data/real/2140-2145, HELDOUT.md): building CUDA-first extensions and projects from source
on ROCm (bitsandbytes, xformers, apex, CMake's HIP support, TheRock's pip SDK).
The miss's cause, from the program that prints the line: CMake runs the same compiler check for every language a
project enables (Kitware/CMake Modules/CMakeTestCCompiler.cmake, CMakeTestCXXCompiler.cmake, CMakeTestCUDACompiler.cmake,
CMakeTestFortranCompiler.cmake ...): 'Check for working <LANG> compiler: <path> - broken' (' -- broken' before CMake
3.17) and the FATAL_ERROR '... is not able to compile a simple test program.'; only the HIP language's check was a row,
so a ROCm SDK clang++ failing the C++ check (2145) was read at framework.  Tested on the fixture, on the other
languages' and releases' wordings of the same source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

CHECK = "dg_cmake_test_compiler_broken"
SIMPLE = "dg_cmake_compiler_simple_test_program_failed"
HIP_CHECK = "cmake_hip_compiler_broken"


@pytest.mark.parametrize("num,layer", [("2140", "packaging"), ("2141", "packaging"), ("2142", "packaging"),
                                       ("2144", "framework"), ("2145", "packaging")])
def test_the_set_dg_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_fixture_is_named_and_leads():
    assert_named_and_leads("2145", CHECK, "packaging")


def test_the_rows_sit_at_the_build_toolchains_layer():
    assert error_signatures.failure_layer(CHECK) == "packaging"
    assert error_signatures.failure_layer(SIMPLE) == "packaging"


# -- CMake's compiler check, every language other than HIP (HIP has its own row) and both releases' endings ----
@pytest.mark.parametrize("line", [
    # the fixture's line (TheRock 7.11 pip SDK on Windows)
    "-- Check for working CXX compiler: C:/Users/Visu/AppData/Local/Programs/Python/Python314/Lib/site-packages/"
    "_rocm_sdk_devel/lib/llvm/bin/clang++.exe - broken",
    # the C check with the HIP SDK's clang on Windows (ggml-org/llama.cpp#2843)
    "-- Check for working C compiler: C:/Program Files/AMD/ROCm/5.5/bin/clang.exe - broken",
    # the C++ check with hipcc as CMAKE_CXX_COMPILER (kokkos/kokkos-kernels#2137, ROCm/rocBLAS#1182)
    "-- Check for working CXX compiler: /usr/bin/hipcc - broken",
    "-- Check for working CXX compiler: /opt/rocm/llvm/bin/clang++ - broken",
    # CMake before 3.17: PrintTestCompilerStatus("CXX" " -- broken")
    "-- Check for working CXX compiler: /opt/rocm/bin/hipcc -- broken",
    "-- Check for working Fortran compiler: /opt/rocm/llvm/bin/flang -- broken",
])
def test_cmake_compiler_check_wordings_are_named(line):
    assert CHECK in _ids(line), line


@pytest.mark.parametrize("line", [
    "-- Check for working CXX compiler: /usr/bin/c++ - skipped",          # the healthy endings
    "-- Check for working C compiler: /opt/rocm/llvm/bin/clang - works",
    "-- Check for working CXX compiler: /opt/rocm/llvm/bin/clang++",      # the CHECK_START line alone
    "-- Check for working HIP compiler: /opt/rocm-6.3.0/lib/llvm/bin/clang - broken",  # HIP's own row reads it
    "-- Detecting CXX compiler ABI info - failed",                         # a non-fatal probe
])
def test_cmake_compiler_check_lookalikes_are_not_named(line):
    assert CHECK not in _ids(line), line


def test_the_hip_check_stays_with_its_own_row():
    assert HIP_CHECK in _ids("-- Check for working HIP compiler: /opt/rocm-6.1.1/llvm/bin/clang++ - broken")


# -- CMake's FATAL_ERROR after a failed check, any language ---------------------------------------------------------
@pytest.mark.parametrize("line", [
    "  is not able to compile a simple test program.",                     # newer CMake: the path on its own line
    'The C++ compiler "/opt/rocm/bin/hipcc" is not able to compile a simple test program.',  # older, one line
    'The C compiler "C:/Program Files/AMD/ROCm/5.5/bin/clang.exe" is not able to compile a simple test program.',
])
def test_cmake_simple_test_program_wordings_are_named(line):
    assert SIMPLE in _ids(line), line


@pytest.mark.parametrize("line", [
    "The C++ compiler identification is Clang 20.0.0",
    "is able to compile a simple test program",
    "CMake will not be able to correctly generate this project.",
])
def test_cmake_simple_test_program_lookalikes_are_not_named(line):
    assert SIMPLE not in _ids(line), line
