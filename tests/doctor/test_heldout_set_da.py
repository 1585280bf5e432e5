"""Held-out set DA (tests/data/real/2020-2024, HELDOUT.md): wrong numerical results and NaNs on AMD GPUs.
Each miss's cause fixed from the program that prints the line: MIOpenDriver's verification against its
reference (ROCm/MIOpen driver/*_driver.hpp, mloNeuronHost.hpp), MIGraphX's verify_args (src/verify_args.cpp)
and its evaluation trace (src/program.cpp); tested on the fixture, on the other wordings of the same source
and on near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids


# -- MIOpenDriver's verification (2022) ------------------------------------------------------------
def test_2022_miopendriver_check_is_named_at_libraries():
    assert_named_and_leads("2022", "da_miopendriver_verify_failed", "libraries")


@pytest.mark.parametrize("line", [
    # the fixture's lines (ROCm 4.0's CBA fusion driver)
    "Difference in neuron layer: 10.0625 too large at 0 c_v = 113.375 vs g_val = 123.438 tolerance = 0.078125",
    "Forward Activation Failed",
    # conv_driver.hpp: VerifyForward / VerifyBackward
    "Forward Convolution FAILED: 0.0123 > 1e-06",
    "Backward Convolution Data FAILED: 0.5 > 0.07",
    "Backward Convolution Weights FAILED: 1.2 > 0.07",
    # CBAInferFusion_driver.hpp today
    "Forward Activation FAILED",
    # bn_driver.hpp
    "Forward train batch norm verification FAILED on running mean: 0.25",
    "Backwards prop batch norm verification FAILED on dx: 0.5",
    # the other drivers: 'Forward|Backward <Op> FAILED: '
    "Forward LayerNorm FAILED: 0.01",
    "Backward Softmax FAILED: nan",
    # older conv driver ('Failed')
    "Forward Convolution Failed: 0.33",
    # mloNeuronHost.hpp with its input value
    "Difference in neuron layer: 3.5 too large at 17 x = 0.25  c_v = 1.0 vs g_val = nan tolerance = 0.001",
])
def test_miopendrivers_verification_lines_are_named(line):
    assert "da_miopendriver_verify_failed" in _ids(line), line


@pytest.mark.parametrize("line", [
    "Forward Convolution Verifies OK on GPU reference (0.000123)",
    "Backwards Prop Batch Norm Verifies on CPU and GPU.",
    "forward pass failed: out of memory",  # another program's lower-case words
    "Pooling forward failed",
])
def test_passes_and_other_programs_are_not_it(line):
    assert "da_miopendriver_verify_failed" not in _ids(line), line


# -- MIGraphX's verify (2021) ----------------------------------------------------------------------
def test_2021_migraphx_verify_mismatch_is_named_at_libraries():
    assert_named_and_leads("2021", "da_migraphx_verify_mismatch", "libraries")


@pytest.mark.parametrize("line", [
    # the fixture's line (the user joined the error lines with ' | ')
    "RMS Error: 0.336279 | Max diff: 74 | Mismatch at 2: 11 != 2  # labels",
    # verify_args.cpp's own lines, one per log::error()
    "Mismatch at 0: -0.229004 != -0.225708",
    "Non finite number found in target at 12: nan",
    "Non finite number found in target at 0: -inf",
])
def test_migraphx_verify_lines_are_named(line):
    assert "da_migraphx_verify_mismatch" in _ids(line), line


@pytest.mark.parametrize("line", [
    "Non finite number found in ref at 3: inf",  # the reference, not the GPU's result
    "Mismatch at 4 prev was 7",  # another program's assertion text
    "RMS Error: 0.0001",  # alone it says nothing of a failure
])
def test_near_misses_of_the_verify_row(line):
    assert "da_migraphx_verify_mismatch" not in _ids(line), line


# -- MIGraphX's evaluation trace (2023) ------------------------------------------------------------
def test_2023_migraphx_trace_nonfinite_is_named_at_libraries():
    assert_named_and_leads("2023", "da_migraphx_trace_nonfinite_output", "libraries")


@pytest.mark.parametrize("line,hit", [
    ("Output has inf, normal", True),  # the fixture's line
    ("Output has normal, nan", True),  # the set prints in no fixed order
    ("Output has zero, normal, subnormal, inf", True),
    ("Output has nan", True),
    ("Output has normal", False),
    ("Output has normal, zero", False),
    ("Output has infinite precision", False),
])
def test_the_trace_row_needs_a_non_finite_class(line, hit):
    assert ("da_migraphx_trace_nonfinite_output" in _ids(line)) is hit, line


def test_rows_sit_at_libraries():
    for row in ("da_miopendriver_verify_failed", "da_migraphx_verify_mismatch", "da_migraphx_trace_nonfinite_output"):
        assert error_signatures.failure_layer(row) == "libraries", row


# -- a doctest unit test of the application (2024) -------------------------------------------------
def test_2024_doctest_check_is_named_at_framework():
    assert_named_and_leads("2024", "da_doctest_check_failed", "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (gnu file:line form)
    "tests/vt/test_backend_cross_device.cpp:1534: ERROR: CHECK( Nmse(ref_out, dout.Download()) <= kNmseTol ) is NOT correct!",
    # the default (line) form, a REQUIRE (FATAL ERROR) and the binary asserts
    "test_ops.cpp(88): ERROR: CHECK( max_abs_err < 1e-3f ) is NOT correct!",
    "test_ops.cpp(91): FATAL ERROR: REQUIRE( out.is_finite() ) is NOT correct!",
    "kernels_test.cpp:40: ERROR: CHECK_EQ( got, ref_b ) is NOT correct!",
])
def test_doctests_failed_assertions_are_named(line):
    assert "da_doctest_check_failed" in _ids(line), line


@pytest.mark.parametrize("line", [
    "kernels_test.cpp:40: WARNING: WARN( got == ref_b ) is NOT correct!",  # a WARN does not fail the test
    "kernels_test.cpp:40: SUCCESS: CHECK( got == ref_b ) is correct!",  # --success output
    "Error: the password is not correct!",
])
def test_doctest_near_misses(line):
    assert "da_doctest_check_failed" not in _ids(line), line


def test_the_doctest_row_is_the_applications():
    assert error_signatures.failure_layer("da_doctest_check_failed") == "framework"
