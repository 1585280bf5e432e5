"""Held-out set DM (tests/data/real/2260-2263, HELDOUT.md): ONNX Runtime, MIGraphX and model export and
compilation on AMD GPUs (migraphx-driver, onnxruntime's tests, AOT Inductor).
No row was added: the two fixtures with a printed failing line are named by existing rows at their layer
(MIGraphX's exception, AMDMIGraphX src/targets/gpu/mlir.cpp; HIP's hipErrorNoBinaryForGpu), and the two misses
have no line a program of the stack prints (2262: AOT Inductor's missing HIP header told only in the title, the
copy cut before the compiler's line; 2263: migraphx-driver returning to the prompt with nothing printed), so they
are in test_known_failure.MISSES with their reasons."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2260", "libraries"), ("2261", "hip")])
def test_the_set_dm_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_migraphx_s_mlir_exception_is_named_at_libraries():
    assert_named_and_leads("2260", "migraphx_exception", "libraries")


def test_hip_s_no_binary_title_is_named_at_hip():
    text = (_fixture("2261") / "title.txt").read_text(encoding="utf-8")
    assert "hip_no_co_for_devices" in _ids(text)
    assert error_signatures.failure_layer("hip_no_co_for_devices") == "hip"

