"""Held-out set FP (tests/data/real/2710-2715, HELDOUT.md): a theme-neutral sample of ROCm/TheRock's issues opened in
2024-2025 (TheRock's source builds, its nightly pip index and its torch wheels).  Four of six led at their layer on the
unchanged code; 2712 (CTest's failed TheRock validation tests, read at hip by the library names in the tests' names) and
2715 (the AMDGPU assembler's 'error: not a valid operand' in MIOpen's kernels, read at framework from the title) did
not.  The fixes, each from the printing program's source: ninja's FAILED line for a TheRock sub-project's stamp file
(ROCm/TheRock cmake/therock_subproject.cmake, ninja-build/ninja src/status_printer.cc), CTest's failed-test lines for
TheRock's own build-tree tests (cmake/therock_testing.cmake, examples/CMakeLists.txt; Kitware/CMake
cmCTestTestHandler.cxx), pip's 'Could not install requirement ... because of HTTP error' (pypa/pip
operations/prepare.py), the AMDGPU assembler's operand errors (llvm-project AMDGPUAsmParser.cpp), the layer table's
reading of TheRock's build wrapper (build_tools/teatime.py) and test names as the build's, and MIOpen's 'Raw device
name: gfxNNNN' (MIOpen src/hip/handlehip.cpp get_device_name) as the GPU's target."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, ids as _ids

STAMP = "fp_therock_subproject_stamp_failed"
CTEST = "fp_therock_ctest_test_failed"
PIP = "fp_pip_install_requirement_http_error"
ASM = "fp_amdgpu_asm_operand_rejected"


@pytest.mark.parametrize("num,row,layer", [
    ("2710", PIP, "packaging"), ("2711", STAMP, "packaging"), ("2712", CTEST, "packaging"),
    ("2713", STAMP, "packaging"), ("2714", STAMP, "packaging"), ("2715", ASM, "libraries"),
])
def test_each_set_fp_fixture_is_named_by_its_row_and_leads_at_its_layer(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("line", [
    # 2714's (ninja before 1.12, no exit code): the sysdep zlib's build step (ROCm/TheRock#1183, Ubuntu 22.04)
    "FAILED: third-party/sysdeps/linux/zlib/build/stamp/build.stamp /home/kusola/TheRock/build/third-party/sysdeps/linux/"
    "zlib/build/stamp/build.stamp ",
    # a configure step in the manylinux container on Fedora Kinoite (ROCm/TheRock#1135, a comment)
    "FAILED: math-libs/BLAS/rocRoller/stamp/configure.stamp math-libs/BLAS/rocRoller/build/CMakeCache.txt math-libs/BLAS/"
    "rocRoller/build/cmake_install.cmake compile_commands_fragment_rocRoller.json",
    # 2711's fftw3 configure, its stamp directory under a 'build_' binary dir (ROCm/TheRock#1916)
    "FAILED: [code=1] third-party/fftw3/build_fftw3/stamp/configure.stamp third-party/fftw3/build_fftw3/build/CMakeCache.txt",
    # a Windows build, CMake Tools' '[build] ' prefix (ROCm/TheRock#394)
    "[build] FAILED: math-libs/BLAS/rocBLAS/stamp/build.stamp D:/projects/TheRock/build/math-libs/BLAS/rocBLAS/stamp/"
    "build.stamp ",
])
def test_the_stamp_row_reads_ninjas_failed_line_for_a_therock_step(line):
    assert STAMP in _ids(line)
    assert error_signatures.failure_layer(STAMP) == "packaging"


@pytest.mark.parametrize("line", [
    # a CMake ExternalProject's stamp in PyTorch's build (set EZ's 2597): no '.stamp' step file
    "FAILED: [code=1] aotriton/src/aotriton_runtime-stamp/aotriton_runtime-configure /pytorch/build/aotriton/src/"
    "aotriton_runtime-stamp/aotriton_runtime-configure",
    # a compile edge inside rocBLAS's own build (ROCm/TheRock#342): not a super-build step
    "10.0\tFAILED: library/src/CMakeFiles/rocblas.dir/blas3/rocblas_syrkx_herkx_kernels.cpp.obj ",
])
def test_ninja_failures_that_are_not_a_therock_step_are_not_the_stamp_row(line):
    assert STAMP not in _ids(line)


@pytest.mark.parametrize("line", [
    # 2712's list entry for the example build against build/dist/rocm (ROCm/TheRock#841)
    "\t 27 - therock-examples-cpp-sdk-user (Failed)",
    # CTest's result lines in TheRock's CI (ROCm/TheRock#5033: librocjitsu undefined symbol; #2220: libamdocl64 path)
    "83/84 Test #83: therock-validate-shared-lib-librocjitsu.so .......................***Failed    0.03 sec",
    "25/26 Test #25: therock-validate-shared-lib-libamdocl64.so ............***Failed    0.03 sec",
])
def test_the_ctest_row_reads_therocks_failed_build_tree_tests(line):
    assert CTEST in _ids(line)


@pytest.mark.parametrize("line", [
    # a passing validation test (ROCm/TheRock#841's description)
    " 5/27 Test  #5: therock-validate-shared-lib-librocm-openblas.so .......   Passed    0.06 sec",
    # another project's CTest list (OpenAMP/libmetal#106)
    "          1 - test-metal-shared (Failed)",
])
def test_passing_or_foreign_ctest_lines_are_not_the_ctest_row(line):
    assert CTEST not in _ids(line)


def test_the_build_wrapper_and_test_names_place_the_lines_under_them_at_packaging():
    # 2711: ninja's summary under the teatime.py command that names HIP_PATH; 2712: CTest's summary under the list
    build = ("cd /home/k/Builds/TheRock/build/compiler/amd-llvm/build && /home/k/Builds/TheRock/.venv/bin/python3.13 "
             "/home/k/Builds/TheRock/build_tools/teatime.py --log-timestamps --label amd-llvm -- cmake -E env "
             "--unset=ROCM_PATH --unset=ROCM_DIR --unset=HIP_PATH --unset=HIP_DIR -- cmake --build build\n"
             "ninja: build stopped: subcommand failed.\n")
    tests = "\t 26 - therock-validate-shared-lib-libhiprtc.so (Failed)\nErrors while running CTest\n"
    assert failure_lines.layer_above(build, "ninja: build stopped: subcommand failed.") == "packaging"
    assert failure_lines.layer_above(tests, "Errors while running CTest") == "packaging"


@pytest.mark.parametrize("line", [
    # pip 21 on a wrong archive URL (pypa/pip#9890)
    "ERROR: Could not install requirement https://github.com/uranusjr/pip/archive/refs/heads/sysconfig-header-with-none-"
    "project.zip because of HTTP error 404 Client Error: Not Found for url: https://codeload.github.com/uranusjr/pip/zip/"
    "refs/heads/sysconfig-header-with-none-project for URL https://github.com/uranusjr/pip/archive/refs/heads/sysconfig-"
    "header-with-none-project.zip",
    # a requirements file's line as the origin (adamhub/screenbird#5)
    "Could not install requirement http://httplib2.googlecode.com/files/httplib2-0.4.0.zip (from -r requirements.txt "
    "(line 35)) because of HTTP error 404 Client Error: Not Found for url: http://httplib2.googlecode.com/files/"
    "httplib2-0.4.0.zip for URL http://httplib2.googlecode.com/files/httplib2-0.4.0.zip",
    # an old pip's wording of urllib's error (pypiserver/pypiserver#2)
    "Could not install requirement pypiserver because of HTTP error HTTP Error 404: Not Found () for URL "
    "http://pypi.python.org/packages/source/p/pypiserver/pypiserver-0.4.0.zip#md5=1a1a30d75b92137e99e7bf967a98d3e9",
])
def test_the_pip_row_reads_pips_http_error_on_a_requirement(line):
    assert PIP in _ids(line)


def test_pips_other_404_and_prose_are_not_the_pip_row():
    # pip's OSError on an index page (veebch/btcticker#71), and a sentence
    assert PIP not in _ids("Could not install packages due to an EnvironmentError: 404 Client Error: Not Found for url: "
                           "https://pypi.org/simple/rpi/")
    assert PIP not in _ids("pip could not install requirement torch for me, I think because of an error in my proxy")


@pytest.mark.parametrize("line", [
    "<inline asm>:14:20: error: not a valid operand.",   # 570's MIOpen batch norm on gfx1151 (ROCm/TheRock#842's errors)
    ":15:23: error: not a valid operand.",               # the same through comgr, prefix dropped (ROCm/MIOpen#3796)
    "<inline asm>:3:22: error: failed parsing operand.", # the source's other message (AMDGPUAsmParser ParseInstruction)
])
def test_the_asm_row_reads_the_amdgpu_assemblers_operand_errors(line):
    assert ASM in _ids(line)
    assert error_signatures.failure_layer(ASM) == "libraries"


def test_another_programs_operand_message_is_not_the_asm_row():
    # a Java calculator's exception text (the same words, no assembler diagnostic), and LLVM's other matcher message
    assert ASM not in _ids("java.lang.IllegalArgumentException: Not a valid operand.")
    assert ASM not in _ids("<inline asm>:1:1: error: invalid operand for instruction")


@pytest.mark.parametrize("line,gfx", [
    ("MIOpen(HIP): Info [get_device_name] Raw device name: gfx1151", "gfx1151"),  # 2715, ROCm/TheRock#842
    ("MIOpen(HIP): Info [get_device_name] Raw device name: gfx1031", "gfx1031"),  # ROCm/MIOpen#1528 (RX 6700 XT)
])
def test_miopens_device_name_line_names_the_gpus_target(line, gfx):
    assert [g.gfx_target for g in paste_facts.parse(line + "\n").gpus] == [gfx]


def test_a_raw_device_name_that_is_not_miopens_or_no_target_names_no_gpu():
    # a game's controller log ("Raw device name: " + the pad's name) and MIOpen's OpenCL back-end on an old marketing name
    assert not paste_facts.parse("Raw device name: gfx pad 2\n").gpus
    assert not paste_facts.parse("MIOpen(OpenCL): Info [get_device_name] Raw device name: Ellesmere\n").gpus
