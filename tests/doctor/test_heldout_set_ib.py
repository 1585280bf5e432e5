"""Held-out set IB (tests/data/real/3310-3313, HELDOUT.md): a second theme-neutral sample of ROCm's library trackers
(rocFFT twice, rocFFT's test client on RDNA4 and in the nightly, TensileLite's benchmark client).  3311 (amdgpu's gfxhub
page fault) and 3313 (the client's abort, the catch-all at libraries) led at their layer on the unchanged code.  Two did
not:

* 3310: rocFFT's MPI sample (ROCm/rocFFT clients/samples/mpi/rocfft_mpi_example.cpp) prints 'failure: we do not have a
  plan....' when rocfft_plan_create fails on a rank (reduced over all ranks), 'failure: will not make a plan....' when
  the setup before it failed, and 'The FFT execution failed....' after; the catch-all read the last at packaging (the
  line above it says 'trying to make a plan', the packaging row's 'make').  Rows ib_rocfft_mpi_example_no_plan and
  ib_rocfft_mpi_example_execution_failed read them at libraries.
* 3312: rocFFT's accuracy check (ROCm/rocm-libraries projects/rocfft/shared/accuracy_test.h, shared by rocfft-test and
  hipfft-test): 'Linf test failed.  Linf:<x>\\tnormalized Linf: <y>\\tcutoff: <z>' and 'L2 test failed. L2: <x>...'
  had no reading at all.  Row ib_rocfft_accuracy_test_failed reads them at libraries."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

NO_PLAN = "ib_rocfft_mpi_example_no_plan"
EXEC = "ib_rocfft_mpi_example_execution_failed"
ACC = "ib_rocfft_accuracy_test_failed"


@pytest.mark.parametrize("num,layer", [("3310", "libraries"), ("3311", "kernel"), ("3312", "libraries"),
                                       ("3313", "libraries")])
def test_the_set_ib_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("3310", NO_PLAN), ("3310", EXEC), ("3312", ACC)])
def test_the_new_rows_name_their_fixture_and_lead_at_libraries(num, row):
    assert_named_and_leads(num, row, "libraries")


@pytest.mark.parametrize("line,row", [
    # the fixture's lines (ROCm/rocm-libraries#1598, rocFFT's MPI sample on two ranks, ROCm 6.3.3)
    ("failure: we do not have a plan....", NO_PLAN),
    ("The FFT execution failed....", EXEC),
    # the sample's other refusal, before rocfft_plan_create (rocfft_mpi_example.cpp: the setup's status reduced over
    # the ranks)
    ("failure: will not make a plan....", NO_PLAN),
    # the same lines as mpirun prefixes a rank's output (Open MPI's --tag-output)
    ("[1,0]<stdout>:failure: we do not have a plan....", NO_PLAN),
    ("[1,0]<stdout>:The FFT execution failed....", EXEC),
    # the fixture's line (ROCm/rocm-libraries#11781, rocfft-test_standard_suite in the nightly, CTest's '2: ' prefix)
    ("2: Linf test failed.  Linf:153598113149966.72\tnormalized Linf: 307196226962667.06\tcutoff: "
     "8.6643397383071952e-15", ACC),
    # accuracy_test.h's L2 check, printed beside it (its 'epsilon' bound)
    ("L2 test failed. L2: 4.1200e+03\tnormalized L2: 2.3e-02\tepsilon: 1.7e-15", ACC),
    # the older form whose bound is named 'epsilon', and a NaN result (hipFFT's tests share the header)
    ("Linf test failed.  Linf:nan\tnormalized Linf: nan\tepsilon: 1.19209e-07", ACC),
])
def test_the_rows_read_rocffts_lines(line, row):
    assert row in ids(line)
    assert error_signatures.failure_layer(row) == "libraries"


@pytest.mark.parametrize("line", [
    # the sample's success lines
    "so far so good, we have a plan....",
    "The FFT was succesful....",
    # rocFFT's verbose info lines (accuracy_test.h with verbose > 1): not a failure
    "Linf diff: 1.2e-14",
    "L2 diff: 3.4e-15",
    # prose about a plan or an FFT
    "we do not have a plan for the 2D case yet",
    "I think the FFT execution failed. Any idea?",
])
def test_near_misses_are_not_read_as_rocffts_failures(line):
    found = ids(line)
    assert NO_PLAN not in found and EXEC not in found and ACC not in found
