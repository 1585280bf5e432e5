"""Held-out set BO (tests/data/real/1600-1603, HELDOUT.md): questions on Q&A sites and distribution forums.  The lines
read from the programs that print them: CMake's HIP language check (Kitware/CMake Modules/CMakeDetermineHIPCompiler.cmake:
the hip-lang package not under the ROCm root, no ROCm root, the hipcc wrapper as compiler, no default architecture), the
error header CMake prints for a message raised in its own modules and its 'Configuring incomplete' summary (build setup:
packaging, whatever language the module is for), and ninja's 'FAILED: <outputs>' line (ninja src/status_printer.cc) when
it names no component (a build from source: packaging, as make's lines)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, fixture, ids as _ids, lead_layer

PKG = "bo_cmake_hip_runtime_package_not_found"
ROOT = "bo_cmake_hip_rocm_root_not_found"
HIPCC = "bo_cmake_hip_compiler_is_hipcc_wrapper"
ARCH = "bo_cmake_hip_default_architecture_not_found"


@pytest.mark.parametrize("num", ["1601", "1602"])
def test_fixture_is_named_and_leads(num):
    assert_named_and_leads(num, PKG, "packaging")


def test_1002_the_same_message_in_cmake_3_28s_indented_form_is_named():
    text = (fixture("1002") / "cmake.txt").read_text(encoding="utf-8")
    assert PKG in _ids(text)


@pytest.mark.parametrize("row", [PKG, ROOT, HIPCC, ARCH])
def test_the_rows_are_at_packaging(row):
    assert error_signatures.failure_layer(row) == "packaging"


@pytest.mark.parametrize("row,text", [
    # CMake 3.27+ (1601) and 3.21-3.26 (1602) as CMake prints them, indented under the header
    (PKG, "CMake Error at /usr/share/cmake-3.28/Modules/CMakeDetermineHIPCompiler.cmake:217 (message):\n"
          "  The ROCm root directory:\n\n   /opt/rocm-7.2.0\n\n  does not contain the HIP runtime CMake package, expected at one of:\n\n"
          "   /opt/rocm-7.2.0/lib/cmake/hip-lang/hip-lang-config.cmake\n"),
    (PKG, "  does not contain the HIP runtime CMake package, expected at:\n"),
    (ROOT, "CMake Error at /usr/share/cmake-3.31/Modules/CMakeDetermineHIPCompiler.cmake:158 (message):\n"
           "  Failed to find ROCm root directory.\n"),
    (HIPCC, "CMake Error at /usr/share/cmake-3.30/Modules/CMakeDetermineHIPCompiler.cmake:45 (message):\n"
            "  The HIPCXX environment variable is set to the hipcc wrapper:\n\n   /opt/rocm/bin/hipcc\n\n"
            "  This is not supported.  Use Clang directly, or let CMake pick a default.\n"),
    (HIPCC, "  CMAKE_HIP_COMPILER is set to the hipcc wrapper:\n"),
    (ARCH, "  Failed to find a default HIP architecture.\n"),
    (ARCH, "  Failed to detect a default HIP architecture.\n"),
])
def test_cmakes_hip_messages_are_named(row, text):
    assert row in _ids(text), text


@pytest.mark.parametrize("text", [
    # find_package's own failure stays with its row; prose about the file; a hip-lang config found
    "  Could not find a package configuration file provided by \"hip\" with any of the following names:\n",
    "the package rocm-hip-devel provides /usr/lib64/cmake/hip-lang/hip-lang-config.cmake\n",
    "-- Found hip-lang: /opt/rocm/lib/cmake/hip-lang/hip-lang-config.cmake\n",
    # another root-directory message, not CMake's HIP check
    "Failed to find Qt root directory.\n",
    "error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path'\n",
])
def test_near_misses_are_not_the_cmake_hip_rows(text):
    got = _ids(text)
    assert not got & {PKG, ROOT, HIPCC, ARCH}, text


# -- the catch-all: CMake's own error header and summary, ninja's FAILED line --------------------------------------

@pytest.mark.parametrize("line", [
    "CMake Error at /usr/share/cmake/Modules/CMakeDetermineHIPCompiler.cmake:140 (message):",
    "CMake Error at /usr/share/cmake-3.25/Modules/CMakeDetermineHIPCompiler.cmake:106 (message):",
    "CMake Error at CMakeDetermineHIPCompiler.cmake:217 (message):",
    "CMake Error at /usr/share/cmake-3.28/Modules/CMakeTestHIPCompiler.cmake:73 (message):",
    "CMake Error at /opt/cmake-4.1.2/share/cmake-4.1/Modules/FindPackageHandleStandardArgs.cmake:227 (message):",
    "-- Configuring incomplete, errors occurred!",
    # ninja's failed edge naming no component, old and 1.12+ forms
    "FAILED: compiler-rt/lib/linux/libclang_rt.ubsan_standalone-x86_64.so ",
    "FAILED: [code=1] lib/libLLVMCodeGen.a ",
])
def test_cmake_and_ninja_lines_of_the_build_setup_are_packaging(line):
    assert failure_lines.layer_of(line) == "packaging", line


@pytest.mark.parametrize("line,layer", [
    # a project's own CMake error names its component: not CMake's module
    ("CMake Error at library/src/CMakeLists.txt:89 (TensileCreateLibraryFiles):", "libraries"),
    # ninja's failed edge that names a component keeps the layer the word rows give it (ggml-hip: llama.cpp's ggml,
    # the framework's since s18-catchall, where "hip" as a path segment stopped naming the HIP layer; fixture 896's
    # label is framework)
    ("FAILED: [code=1] ggml/src/ggml-hip/CMakeFiles/ggml-hip.dir/__/ggml-cuda/mmq.cu.o", "framework"),
    ("FAILED: library/src/CMakeFiles/rocblas.dir/blas3/rocblas_gemm.cpp.o", "libraries"),
    # a test runner's summary and prose are not ninja's line (ninja prints the word in capitals)
    ("Failed: 3 of 120 tests", None),
    ("failed: compiler-rt did not build", None),
])
def test_near_misses_keep_their_own_layer(line, layer):
    assert failure_lines.layer_of(line) == layer, line


def test_the_nixos_build_failure_leads_at_packaging():
    assert lead_layer(fixture("1600")) == "packaging"
