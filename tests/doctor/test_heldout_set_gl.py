"""Held-out set GL (tests/data/real/2930-2934, HELDOUT.md): a second theme-neutral sample of ROCm's math libraries'
trackers (ROCm/rocBLAS, ROCm/rocm-libraries, ROCm/composable_kernel, ROCm/hipSPARSE).  One row was added, from the
printing program's source:

* ``gl_gtest_seh_exception_in_library_test`` -- GoogleTest's report of a Windows structured exception inside a test
  (google/googletest googletest/src/gtest.cc, FormatSehExceptionMessage: "SEH exception with code 0x%x thrown in
  <location>."), as a ROCm library's GoogleTest client prints it when the library faults (2931: hipBLASLt's
  access violation in hipblasLtMatmulAlgoGetHeuristic under the hipDNN provider's tests on gfx1151): libraries.

2930 (a wrong sgemm result shown only by the numbers of the reporter's own comparison program) and 2934 (hipsparse-test's
segfault told only in prose and a screenshot, the paste rocminfo's head) stay misses:
tests/doctor/test_known_failure.py MISSES.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2931", "libraries"), ("2932", "libraries"), ("2933", "libraries")])
def test_the_set_gl_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


ROW = "gl_gtest_seh_exception_in_library_test"


def test_the_new_row_names_its_fixture_and_leads():
    assert_named_and_leads("2931", ROW, "libraries")


@pytest.mark.parametrize("text", [
    # the fixture's line (ROCm/rocm-libraries#9962; the same line in #8632 and ROCm/TheRock#3832, hipBLASLt on Windows)
    "unknown file: error: SEH exception with code 0xc0000005 thrown in the test body.",
    # an older GoogleTest printing the code in decimal after '0x' (an LLVM buildbot's DWARFDie.getLocations failure)
    "  :: unknown file: error: SEH exception with code 0x3221225477 thrown in the test body.",
    # a stack overflow in a fixture's set-up, the same function's other locations
    "unknown file: error: SEH exception with code 0xc00000fd thrown in SetUp().",
    "unknown file: error: SEH exception with code 0xe06d7363 thrown in the test fixture's constructor.",
])
def test_the_row_reads_googletests_wordings(text):
    assert ROW in ids(text)
    assert error_signatures.failure_layer(ROW) == "libraries"


@pytest.mark.parametrize("text", [
    # GoogleTest's C++ exception report, not a structured exception
    "C++ exception with description \"open_device was called after the device was created.\" thrown in SetUp().",
    # a source comment explaining SEH codes, no test location
    "// exceptions. Under /EHsc a C++ throw is an SEH exception with code 0xE06D7363;",
    # a user's own catch-all log line
    "[Thread] unknown exception thrown in setup().",
])
def test_near_misses_are_not_read_by_the_row(text):
    assert ROW not in ids(text)
