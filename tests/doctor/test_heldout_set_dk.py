"""Held-out set DK (tests/data/real/2220-2224, HELDOUT.md): ML frameworks with their own AMD GPU back-ends (IREE's HIP
HAL, MLC-LLM/TVM, tinygrad).  No catalogue row was added for the set; these tests hold the leads it had on the
unchanged code, and record that Mesa's winsys allocation line (2223) is read at the catalogue row's layer."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2220", "hip"), ("2221", "runtime"), ("2222", "hip"), ("2224", "framework")])
def test_the_set_dk_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_mesa_winsys_buffer_line_stays_at_the_catalogue_rows_layer():
    # 2223 is labelled runtime; the existing row (Mesa src/gallium/winsys/amdgpu/drm/amdgpu_bo.c) is framework.
    assert error_signatures.failure_layer("by_mesa_winsys_buffer_alloc_failed") == "framework"
    assert _lead_layer(_fixture("2223")) == "framework"
