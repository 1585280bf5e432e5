"""Held-out set HH (tests/data/real/3150-3154, HELDOUT.md): a third theme-neutral sample of ROCm's main tracker
(ROCm/ROCm, indexed as ROCm/legacy-rocm-build, issues of 2025-2026).  On the unchanged code two of five led at their
layer (3150 ROCr's memory access fault at runtime, 3151 amdgpu's MES REMOVE_QUEUE hang at kernel); 3152 (a DKMS build
failure told only in the title) and 3153 (torch's hipBLASLt warning cut by the index) have no failing line in their
pastes and stay in MISSES; 3154, torch's own 'Attempting to use hipBLASLt on an unsupported architecture! Overriding
blas backend to hipblas', had no finding.  One catalogue row was added for that warning (pytorch/pytorch
aten/src/ATen/Context.cpp, Context::blasPreferredBackend)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LT = "hh_torch_hipblaslt_unsupported_architecture"


@pytest.mark.parametrize("num,layer", [("3150", "runtime"), ("3151", "kernel")])
def test_the_set_hh_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_hipblaslt_warning_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3154", LT, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's inline quote and title (ROCm/ROCm#4440, a 780M overridden to gfx1100)
    "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas",
    "[Issue]: Attempting to use hipBLASLt on an unsupported architecture!",
    # the C++ warning as c10 prints it (pytorch/pytorch#138067, TORCH_BLAS_PREFER_HIPBLASLT=1 on gfx908)
    "[W1016 17:27:46.690175963 Context.cpp:301] Warning: Attempting to use hipBLASLt on an unsupported architecture! "
    "Overriding blas backend to hipblas (function operator())",
    # the first wording, 'a unsupported' (pytorch#128753; ROCm/hipBLASLt#1243's title)
    "\"Attempting to use hipBLASLt on a unsupported architecture!\"",
    # the Python warning with the file that raised it (MI100, ROCm/rocm-libraries#780)
    "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py:125: UserWarning: Attempting to use hipBLASLt on an "
    "unsupported architecture! Overriding blas backend to hipblas",
])
def test_the_row_reads_torchs_hipblaslt_refusal(line):
    assert LT in _ids(line)
    assert error_signatures.failure_layer(LT) == "framework"


@pytest.mark.parametrize("line", [
    # hipBLASLt's own build refusing the target (TheRock#154): the library build's, not torch's choice
    "2025-03-05T21:10:24.2119956Z [hipBLASLt] Tensile::FATAL: Architecture gfx1151 not supported",
    # torch reporting the back-end it uses, no refusal (pytorch#138067)
    "torch.backends.cuda.preferred_blas_library() =  _BlasBackend.Cublas",
    # hipBLASLt's missing-kernel warning (ROCm/hipBLASLt#251)
    "rocblaslt warning: No paths matched /opt/hipBLASLt/build/release/library/*gfx906*co. Make sure that "
    "HIPBLASLT_TENSILE_LIBPATH is set correctly.",
])
def test_near_misses_do_not_match_the_row(line):
    assert LT not in _ids(line)
