"""Held-out set AQ (tests/data/real/1140-1147, HELDOUT.md): image and video generation on AMD GPUs.
One miss had a cause fixed generally and tested on the fixture, other wordings and near-misses:
* PyTorch's cuDNN v8 frontend finding no engine for a convolution ('GET/FIND was unable to find an engine to
  execute this computation'; on an AMD GPU a cuDNN that ZLUDA runs on MIOpen) was unknown (1141):
  row ``s11aq_cudnn_frontend_no_engine`` at libraries.
1147 (a version warning from a typed system list leading over hipBLASLt's status) is left as described in HELDOUT.md."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

ENGINE = "s11aq_cudnn_frontend_no_engine"


@pytest.mark.parametrize("num,layer", [("1140", "hip"), ("1141", "libraries"), ("1142", "libraries"),
                                       ("1143", "libraries"), ("1144", "runtime"), ("1145", "framework"),
                                       ("1146", "runtime")])
def test_the_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_1141_is_named_by_the_engine_row_and_leads_at_libraries():
    assert_named_and_leads("1141", ENGINE, "libraries")


@pytest.mark.parametrize("text", [
    # 1141's line (the heuristics path, cudnnGetPlan)
    "RuntimeError: GET was unable to find an engine to execute this computation\n",
    # the timed-search path (torch.backends.cudnn.benchmark=True)
    "RuntimeError: FIND was unable to find an engine to execute this computation\n",
    # the older releases' TORCH_CHECK text, in ComfyUI's error report
    "- **Exception Message:** Unable to find an engine to execute this computation\n",
    "!!! Exception during processing !!! GET was unable to find an engine to execute this computation\n",
])
def test_the_cudnn_frontend_wordings_are_named(text):
    assert ENGINE in _ids(text)
    assert error_signatures.failure_layer(ENGINE) == "libraries"


@pytest.mark.parametrize("text", [
    # cuDNN v7's own message (another code path, another meaning)
    "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution\n",
    # an engine of something else
    "Error: unable to find an engine for the requested voice\n",
    # prose quoting part of it
    "the GET engine lookup failed, it could not find an engine\n",
])
def test_near_misses_are_not_the_engine_row(text):
    assert ENGINE not in _ids(text)
