"""Held-out set HV (tests/data/real/3250-3254, HELDOUT.md): a fourth theme-neutral sample of ComfyUI's AMD GPU issues
(Comfy-Org/ComfyUI, its custom nodes' repositories and Comfy-Org/desktop, 2025-2026).  All five fixtures led at their
labelled layer on the unchanged code (apt's unmet dependencies of the WSL ROCm packages, ROCr's memory access fault,
torch's HIP out-of-memory twice, a Windows access violation under ComfyUI Desktop).  One row was added: ComfyUI's own
note on an out-of-memory failure ('This error means you ran out of memory on your GPU.', comfyanonymous/ComfyUI
execution.py, appended to the exception message of an OOM_EXCEPTION), which the catch-all had read as an unrecognised
failure beside torch's message (3254, and the older fixtures 324 and 325)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import (assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer,
                            problems as _problems)
from rwtest import realrun

TIPS = "hv_comfyui_oom_tips"


@pytest.mark.parametrize("num,layer", [("3250", "packaging"), ("3251", "runtime"), ("3252", "framework"),
                                       ("3253", "framework")])
def test_the_set_hv_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_oom_tips_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3254", TIPS, "framework")


@pytest.mark.parametrize("num", ["3254", "324", "325"])
def test_the_oom_tips_line_is_no_longer_an_unrecognised_failure(num):
    ids = [i for i, _ in _problems(realrun.diagnosis(_fixture(num)))]
    assert "unrecognised-failure" not in ids


@pytest.mark.parametrize("text", [
    # the fixture's lines (Comfy-Org/ComfyUI#9529: the front-end's dialog after torch's message)
    "HIP out of memory. Tried to allocate 432.00 MiB.\nThis error means you ran out of memory on your GPU.",
    # ComfyUI's error report, the tips after the shortened 'Allocation on device ' (Comfy-Org/ComfyUI#10246)
    "- **Exception Message:** Allocation on device \nThis error means you ran out of memory on your GPU.\n\n"
    "TIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.",
    # a custom node's dialog: node name, message, tips (benjiyaya/HeartMuLa_ComfyUI#14)
    "HeartMuLa_Generate\nAllocation on device\nThis error means you ran out of memory on your GPU.",
    # after torch's allocator-limit message (Comfy-Org/ComfyUI#12360)
    ": 17179869184.00 GiB\nThis error means you ran out of memory on your GPU.",
    # the execution_error payload as API clients log it, the newline escaped
    '"exception_message": "Allocation on device \\nThis error means you ran out of memory on your GPU.\\n\\nTIPS: ..."',
])
def test_the_tips_row_reads_comfyui_oom_note(text):
    assert TIPS in _ids(text)
    assert error_signatures.failure_layer(TIPS) == "framework"


@pytest.mark.parametrize("text", [
    # the second half of the tips alone says nothing failed
    "TIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.",
    # other programs' out-of-memory wordings keep their own rows
    "RuntimeError: HIP out of memory. Tried to allocate 20.00 MiB",
    "llama_model_load: error: the GPU ran out of memory while loading the model",
])
def test_near_misses_do_not_match_the_tips_row(text):
    assert TIPS not in _ids(text)
