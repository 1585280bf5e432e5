"""Held-out set AG (tests/data/real/970-975, HELDOUT.md): laptops, mini PCs and handhelds with AMD graphics.
Each miss's cause fixed from the program that prints the line: Lemonade Server's refusal of a backend (or a
model's recipe) for the GPU it detected (lemonade-sdk/lemonade src/cpp/server/server.cpp, model_manager.cpp,
system_info.cpp); tested on the fixture and on other wordings of the same source, with near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

ROW = "s10ag_lemonade_backend_unsupported_gpu"


# -- Lemonade refuses a backend for the GPU's family (970; 554 of set K is the same line for gfx950) -------
def test_970_lemonades_refusal_is_named_and_leads_at_framework():
    assert_named_and_leads("970", ROW, "framework")


def test_554_the_same_refusal_on_an_instinct_gpu():
    assert_named_and_leads("554", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (the CLI prints the server's error field after 'Error: ')
    "Error: Cannot install llamacpp:rocm on this system: Unsupported GPU: gfx1152",
    # another recipe and GPU, the same server.cpp format
    "Error: Cannot install vllm:rocm on this system: Unsupported GPU: gfx950",
    # the HTTP answer of the install endpoint, as the JSON body server.cpp builds
    '{"error":"Cannot install llamacpp:rocm on this system: Unsupported GPU: gfx1201","recipe":"llamacpp",'
    '"backend":"rocm"}',
    # a model load or pull: model_manager.cpp's wording with the same reason
    "Error pulling model: Model 'user.Qwen38-FP8' cannot be used on this system (recipe: vllm): Unsupported GPU: gfx950",
    # system_info.cpp's variants: no family read, or an NVIDIA family with its compute capability
    "Error: Cannot install llamacpp:rocm on this system: Unsupported GPU",
    "Error: Cannot install llamacpp:cuda on this system: Unsupported GPU: sm_120 (compute capability 12.0)",
])
def test_lemonades_unsupported_gpu_wordings_are_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    # the same endpoint refusing for another reason (a device type, not the GPU's family)
    "Error: Cannot install flm:npu on this system: Requires XDNA2 NPU",
    # the backend table's default message, no GPU named
    "Error: Cannot install kokoro:cpu on this system: Automatic backend install is disabled.",
    # the same words elsewhere: a driver or a game, not Lemonade's check
    "Unsupported GPU: this driver does not support the installed graphics card",
])
def test_other_refusals_are_not_the_gpu_row(line):
    assert ROW not in _ids(line), line


def test_the_row_is_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"
