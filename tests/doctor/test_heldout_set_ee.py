"""Held-out set EE (tests/data/real/2450-2453, HELDOUT.md): a theme-neutral sample of ROCm's newer trackers (issues of
ROCm/TheRock, ROCm/rocm-systems and ROCm/rocm-libraries of 2025-2026).  Two fixtures had no layer on the unchanged code,
and the fixes are in the catch-all's tables (src/rocm_wizard/detect/failure_lines.toml), not in catalogue rows:

* the hip row of the layer table knew HIP API names only at a word's start ("hipMalloc"), so it missed them where a test
  framework glues a prefix on with an underscore: hip-tests' Catch2 cases are named "Unit_<api>_...",
  "Stress_<api>_..." (ROCm/rocm-systems projects/hip-tests/catch/unit/..., TEST_CASE("Unit_hipMemGetHandleForAddressRange_
  Negative")), and a snake_case name with "hip" as one of its parts (TheRock's test_hip_api, PyTorch's
  c10_hip_check_implementation in c10/hip/HIPException.cpp) was not read either;
* CTest's result line for a test that did not pass (Kitware/CMake Source/CTest/cmCTestRunTest.cxx: "<n>/<total> Test
  #<i>: <name> ....***Failed  <t> sec", "***Timeout", "***Exception: SegFault") ends with its time column, so no
  message shape took it and it was read as prose ("told"); it is a program's output line now.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2450", "libraries"), ("2451", "hip"), ("2452", "libraries"),
                                       ("2453", "hip")])
def test_the_set_ee_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # the fixture's lines: ROCm/rocm-systems#11685 (CTest's line) and ROCm/TheRock#1850 (the command above the crash)
    "770/1264 Test #3077: Unit_hipMemGetHandleForAddressRange_VM_PcieFlag ..........***Failed    0.07 sec",
    "./test_hip_api",
    # ROCm/TheRock#5514 (hip-tests failures on gfx1151, 2026-07), the failed-test table and the summary line
    "| 152 | Unit_hipGraphGetRootNodes_Positive_CapturedStream | Failed |",
    "1049 - Unit_hipMallocFromPoolAsync_MThread_CommonMpool_DefaultMempool (Failed)",
    # ROCm/hip#3762 (Catch2's test-case header of VirtualMemoryManagementTest)
    "Unit_hipMemCreate_MapNonContiguousChunks",
    # hip-tests' stress cases (projects/hip-tests/catch/stress/memory/hipMalloc.cc)
    "Stress_hipMalloc_HighSizeAlloc",
    # fixture 500 (vLLM, HIP graph capture): PyTorch's c10 HIP check raising on a HIP call's error
    "Exception raised from c10_hip_check_implementation at /app/pytorch/c10/hip/HIPException.cpp:45 "
    "(most recent call first):",
])
def test_hip_api_names_behind_a_prefix_are_hips(line):
    assert failure_lines.layer_of(line) == "hip"


@pytest.mark.parametrize("line", [
    "chipSelect failed",             # "hip" inside a word, camelCase
    "chip_id read failed",           # ... and snake_case
    "flagship_model failed to load",
])
def test_words_that_only_hold_hip_are_not_hips(line):
    assert failure_lines.layer_of(line) != "hip"


@pytest.mark.parametrize("line", [
    # the fixture's line as the errors probe reads it (the runner's time stamp stripped)
    "770/1264 Test #3077: Unit_hipMemGetHandleForAddressRange_VM_PcieFlag ..........***Failed    0.07 sec",
    # a llama.cpp ctest run (test-grad0) and netcoredbg's make test, as their logs print them
    "18/20 Test #18: test-grad0 ..........................***Exception: SegFault  0.50 sec",
    "1/1 Test #1: iosystem .........................***Exception: SegFault  0.01 sec",
    # CTest's padded counters and a timeout (ctest --timeout), with and without the counter
    "   7/200 Test    #7: T ...............................................................***Timeout 60.00 sec",
    "Test #1: test_length ......................***Timeout",
])
def test_ctest_result_lines_of_failed_tests_are_shown(line):
    assert failure_lines.classify(line) == failure_lines.SHOWN


@pytest.mark.parametrize("line", [
    # ROCm/rocm-systems#11167's test result: a passed test
    " 1/12 Test #2996: Unit_hipMemGetHandleForAddressRange_Negative .......................   Passed    0.11 sec",
    "  3/200 Test    #3: X ...............................***Not Run (Disabled)   0.00 sec",
    "Test #3 failed after the update and took 0.07 sec",    # prose about a test
])
def test_other_ctest_lines_and_prose_are_not_shown(line):
    assert failure_lines.classify(line) != failure_lines.SHOWN


def test_the_ctest_line_under_a_runner_stamp_is_a_hip_failure():
    text = ("2026-09-16T04:30:59.3811495Z  770/1264 Test #3077: Unit_hipMemGetHandleForAddressRange_VM_PcieFlag "
            ".....***Failed    0.07 sec\n")
    found = failure_lines.scan([(text, None, "paste:ctest.txt")])
    assert [layer for _line, layer, _label in found] == ["hip"]
