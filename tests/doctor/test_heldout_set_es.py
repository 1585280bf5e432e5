"""Held-out set ES (tests/data/real/2554-2558, HELDOUT.md): a theme-neutral sample of the web UIs' AMD GPU issues of
2023-2024 (AUTOMATIC1111's web UI and its DirectML fork, text-generation-webui, InvokeAI).  All five fixtures lead
at their labelled layer on the unchanged code, so no catalogue row was added; these tests hold the set's leads.
The two detection misses (2558's torch and Python) were in InvokeAI's dependency report, the JSON its About dialog
shows and its issue form asks for (invoke-ai/InvokeAI invokeai/app/api/routers/app_info.py get_app_deps:
'"python": platform.python_version()', '"torch": torch.__version__', one quoted pair a line), which no parser read;
paste_facts reads the two exact keys now."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2554", "hip"), ("2555", "libraries"), ("2556", "framework"),
                                       ("2557", "runtime"), ("2558", "framework")])
def test_the_set_es_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("text,torch,python", [
    # the fixture's report (invoke-ai/InvokeAI#5761, InvokeAI 3.7.0, RX 7800 XT)
    ('{\n  "accelerate": "0.27.2",\n  "python": "3.10.12",\n  "torch": "2.1.2+rocm5.6",\n'
     '  "torchvision": "0.16.2+rocm5.6",\n  "transformers": "4.37.2",\n  "xformers": null\n}\n',
     "2.1.2+rocm5.6", "3.10.12"),
    # invoke-ai/InvokeAI#7574 (InvokeAI 5.5.0, RX 7600 XT; fixture 466's issue.txt)
    ('  "pillow": "10.2.0",\n  "python": "3.11.11",\n  "torch": "2.4.1+rocm6.1",\n', "2.4.1+rocm6.1", "3.11.11"),
    # invoke-ai/InvokeAI#6301 (InvokeAI 4.2.0a4, RX 7800 XT), in a ```json fence
    ('```json\n{\n  "onnx": "1.15.0",\n  "pillow": "10.3.0",\n  "python": "3.11.9",\n  "torch": "2.2.2+rocm5.6",\n'
     '  "torchvision": "0.17.2+rocm5.6",\n',
     "2.2.2+rocm5.6", "3.11.9"),
])
def test_invokeai_s_dependency_report_names_torch_and_python(text, torch, python):
    facts = paste_facts.parse(text)
    assert (torch, None) in facts.torch
    assert facts.app_pythons == [python]


@pytest.mark.parametrize("text", [
    '  "torchvision": "0.16.2+rocm5.6",\n  "torchaudio": "2.1.2+rocm5.6",\n',   # another package's version
    '  "torch": null,\n  "python": "3.10",\n',                                   # no version, no full release
    'I set "torch": "2.1.2+rocm5.6" in my requirements and "python": "3.10.12" too\n',  # prose, not a report line
])
def test_lines_that_are_not_the_report_s_pairs_name_nothing(text):
    facts = paste_facts.parse(text)
    assert not any(v.startswith("2.1.2") for v, _ in facts.torch)
    assert facts.app_pythons == []


def test_the_report_s_python_reaches_the_os_probe():
    from rwtest import realrun
    system = realrun.snapshot(_fixture("2558"))
    assert system.os.python == "3.10.12"
    assert "2.1.2+rocm5.6" in [t.version for t in system.torch]
