"""Held-out set GA (tests/data/real/2820-2823, HELDOUT.md): a second theme-neutral sample of ROCm's new trackers in 2026
(ROCm/TheRock, ROCm/rocm-systems, ROCm/rocm-libraries), all four CI logs of AMD's own pipelines.  All four led at their
labelled layer on the unchanged code, three of them only through the catch-all (unrecognised-failure).  The rows added,
each from the printing program's source: hipBLASLt's test/bench clients' 'NO solution found!' (rocm-libraries
projects/hipblaslt/clients/common/include/hipblaslt_test.hpp CHECK_SOLUTION_FOUND), the math libraries' test driver's
'FAILED xml test suite!' (rtest.py batch()), and TheRock's target table's 'Unknown bundle key' / 'Unknown GFX target'
(rocm-systems python/rocm-bootstrap/python/rocm_bootstrap/targets.py lookup_bundle / lookup_target)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

NOSOL = "ga_hipblaslt_client_no_solution"
RTEST = "ga_rocm_rtest_xml_suite_failed"
BUNDLE = "ga_rocm_bootstrap_unknown_bundle_key"


@pytest.mark.parametrize("num,row,layer", [
    ("2820", BUNDLE, "packaging"), ("2822", RTEST, "libraries"), ("2823", NOSOL, "libraries"),
])
def test_each_set_ga_fixture_is_named_by_its_row_and_leads_at_its_layer(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_hip_tests_fixture_keeps_its_lead_at_hip():
    # 2821 (rocm-systems#3221): Catch2's 'Error: invalid device function' from hip-tests built for gfx110X on gfx1151
    assert _lead_layer(_fixture("2821")) == "hip"


@pytest.mark.parametrize("text", [
    # 2823's GTest form (rocm-libraries#6522, hipblaslt-test in TheRock's CI on gfx94x)
    "/__w/TheRock/TheRock/rocm-libraries/projects/hipblaslt/clients/common/include/testing_matmul.hpp:3569: Failure\n"
    "Failed\nNO solution found!\n",
    # the same form from math-ci's pre-checkin (rocm-libraries#3921, a comment of 2026-01-21)
    "/var/jenkins_home/workspace/ies_precheckin_hipblaslt_PR-3938/Bg95famcc/hipblaslt/projects/hipblaslt/clients/common/"
    "include/testing_matmul.hpp:3205: Failure\nFailed\nNO solution found!\n",
    # hipblaslt-bench's form (hipBLASLt PR #1570's 'Original output')
    "error: NO solution found! at /workspace/hipBLASLt/clients/benchmarks/../include/testing_matmul.hpp:2534\n",
])
def test_the_no_solution_row_reads_both_client_forms(text):
    assert NOSOL in _ids(text)
    assert error_signatures.failure_layer(NOSOL) == "libraries"


@pytest.mark.parametrize("text", [
    "  × No solution found when resolving dependencies:\n",                 # uv's resolver (its own row)
    "rocBLAS error: No hipBLASLt solution found\n",                          # rocBLAS's backend fallback (its own row)
    "Error! No solution found!\n",                                           # a puzzle solver's print, another prefix
])
def test_other_no_solution_messages_are_not_the_hipblaslt_client_row(text):
    assert NOSOL not in _ids(text)


@pytest.mark.parametrize("text", [
    # ctest's numbered output of rocBLAS's standard suite (rocm-libraries#9395 / TheRock#6529, gfx950)
    "2: [ FAILED   ] 0 tests.\n2: FAILED xml test suite!\n",
    # rocblas_rtest.py's own output on gfx1031 (rocm-libraries PR #1943)
    "command line: rocblas-test --gtest_output=xml --gtest_color=yes --gtest_filter=*nightly*-*known_bug*\n"
    "FAILED xml test suite!\n",
    # 2822's title (rocm-libraries#12240, gfx103X-all)
    "[Issue] Linux gfx103X-all rocblas: rtest.py reports `FAILED xml test suite!` despite 0 gtest failures\n",
])
def test_the_rtest_row_reads_the_drivers_suite_failure(text):
    assert RTEST in _ids(text)
    assert error_signatures.failure_layer(RTEST) == "libraries"


@pytest.mark.parametrize("text", [
    "[  FAILED  ] 16 tests, listed below:\n",                                # GTest's own summary
    "FAILED tests/test_xml.py::test_suite - AssertionError\n",                # pytest's summary line
])
def test_other_failed_lines_are_not_the_rtest_row(text):
    assert RTEST not in _ids(text)


@pytest.mark.parametrize("text", [
    # 2820's line (ROCm/TheRock#5858, the wheel splitter in a rockrel release job)
    "Unexpected error: Unknown bundle key: 'gfx110x'. Known bundles: gfx10, gfx1010, gfx1011, gfx1012\n",
    # lookup_target's message in the source's format (rocm_bootstrap/targets.py), for a target the table predates
    "ValueError: Unknown GFX target: 'gfx1300'. Known targets: gfx1010, gfx1011, gfx1012\n",
])
def test_the_bundle_row_reads_the_target_tables_lookups(text):
    assert BUNDLE in _ids(text)
    assert error_signatures.failure_layer(BUNDLE) == "packaging"


@pytest.mark.parametrize("text", [
    "[AddressableContentManager] Unknown bundle key: intro_level\n",        # a Unity game's log, no quotes nor list
    "Warning: The specified HIP target: gfx902 is unknown. Correct compilation is not guaranteed.\n",  # rocFFT's build
])
def test_other_unknown_target_messages_are_not_the_bundle_row(text):
    assert BUNDLE not in _ids(text)
