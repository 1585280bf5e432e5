"""Held-out set HG (tests/data/real/3140-3144, HELDOUT.md): a third theme-neutral sample of ComfyUI's AMD GPU issues
(Comfy-Org/ComfyUI, patientx/ComfyUI-Zluda, 2025-2026).  On the unchanged code two of five led at their layer (3140
and 3144 through the catch-all); 3142, cmd.exe refusing ComfyUI-Zluda's launcher, and 3143, ComfyUI-Zluda's 'CUDA
device detected: None', had no finding; 3141's only failing line is a start-up warning of the Windows ROCm torch wheels (the hang
is prose), so it stays a miss.  Two catalogue rows were added: ComfyUI-Zluda's report of no torch device
(patientx/ComfyUI-Zluda comfy/customzluda/zluda.py) and cmd.exe's parse error '<token> was unexpected at this time.'
(reactos/reactos base/shell/cmd/parser.c ParseError, reimplementing cmd.exe's message).  Detection: the torch version
of ComfyUI's error report ('- **PyTorch Version:** ...', a Markdown item with a bold label) is read now."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

NONE = "hg_comfyui_zluda_cuda_device_detected_none"
CMD = "hg_cmd_batch_token_unexpected"


@pytest.mark.parametrize("num,layer", [("3140", "framework"), ("3144", "framework")])
def test_the_set_hg_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_zluda_fixture_is_named_and_leads_at_runtime():
    assert_named_and_leads("3143", NONE, "runtime")


def test_the_launcher_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3142", CMD, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's title (patientx/ComfyUI-Zluda#141, RX 5700 XT, ZLUDA 3.9.5)
    "CUDA device detected: None",
    # zluda.py's own format, with its '  ::  ' prefix (as in patientx/ComfyUI-Zluda#463, Vega 56)
    "  ::  CUDA device detected: None",
    # the same line in a timestamped ComfyUI log
    "[2025-05-16 10:55:45.012]   ::  CUDA device detected: None",
])
def test_the_zluda_row_reads_no_device(line):
    assert NONE in _ids(line)
    assert error_signatures.failure_layer(NONE) == "runtime"


@pytest.mark.parametrize("line", [
    # a device found: not a failure (zluda.py prints the name of a non-ZLUDA device)
    "  ::  CUDA device detected: NVIDIA GeForce RTX 3060",
    # other programs' wordings
    "No CUDA device detected, using rank-based selection with rank_id: 0",
    "CUDA device detected: False",
])
def test_near_misses_do_not_match_the_zluda_row(line):
    assert NONE not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (patientx/ComfyUI-Zluda#361, comfyui-n.bat under cmd.exe)
    "\\ComfyUI-Zluda\\ was unexpected at this time.",
    # a ')' of a path expanded in a parenthesised block (cmd's most common case)
    "\\AMD\\ROCm\\6.2\\bin\" was unexpected at this time.",
    # npm scripts run through cmd.exe: a shell loop ('(f') and a redirection
    "(f was unexpected at this time.",
    "> was unexpected at this time.",
    # a keyword out of place
    "else was unexpected at this time.",
])
def test_the_cmd_row_reads_cmds_parse_error(line):
    assert CMD in _ids(line)
    assert error_signatures.failure_layer(CMD) == "framework"


@pytest.mark.parametrize("line", [
    # prose: a plain word before the phrase
    "This was unexpected at this time.",
    # AllJoyn's status comment
    "AJ_ERR_UNEXPECTED = 2,  /**< An operation was unexpected at this time */",
    # the phrase inside a sentence
    "cmd said the token was unexpected at this time, so I quoted the path.",
])
def test_near_misses_do_not_match_the_cmd_row(line):
    assert CMD not in _ids(line)


@pytest.mark.parametrize("text,torch", [
    # the fixture's report (Comfy-Org/ComfyUI#14881, ComfyUI Desktop on Windows)
    ("- **PyTorch Version:** 2.9.1+rocm7.2.1\n", "2.9.1+rocm7.2.1"),
    # the same report of fixtures 2342 and 2341 (Comfy-Org/ComfyUI#7798, #7400)
    ("- **PyTorch Version:** 2.7.0+rocm6.2.4\n", "2.7.0+rocm6.2.4"),
    ("- **PyTorch Version:** 2.8.0.dev20250326+rocm6.3\n", "2.8.0.dev20250326+rocm6.3"),
])
def test_comfyuis_error_report_names_the_torch_version(text, torch):
    assert [t[0] for t in paste_facts.parse(text).torch] == [torch]


@pytest.mark.parametrize("text", [
    "- **PyTorch Version:** 2.9.1\n",          # no build tag: not read (as a bare 'pytorch version: 2.9.1')
    "- **Python Version:** 3.12.12\n",         # another field
])
def test_other_report_lines_name_no_torch(text):
    assert paste_facts.parse(text).torch == []
