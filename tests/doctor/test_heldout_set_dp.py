"""Held-out set DP (tests/data/real/2300-2302, HELDOUT.md): the newest threads the index holds on the AMD GPU stack
(ROCm 7.x, Strix Halo / RDNA4 / Radeon Pro R9700, Ollama, llama.cpp).  All three fixtures lead at their labelled layer
on the unchanged code, so no row was added; these tests hold the set's leads."""
from __future__ import annotations

import pytest

from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2300", "kernel"), ("2301", "hip"), ("2302", "kernel")])
def test_the_set_dp_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer
