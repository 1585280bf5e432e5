"""Held-out set AH (tests/data/real/980-982, HELDOUT.md): RDNA4 consumer GPUs.
The one miss (980) fixed from the program that prints the line: Lemonade's backend status message
(lemonade-sdk/lemonade src/cpp/server/system_info.cpp: for an AMD GPU, message = "Unsupported GPU: " +
detected_family, state "unsupported"); tested on the fixture and on other wordings of the same source."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

PROBLEM = ("warning", "error", "critical")
ROW = "s10ah_lemonade_backend_unsupported_gpu"


def test_980_lemonades_unsupported_gpu_is_a_framework_finding_and_leads():
    diag = diagnose(detect_snapshot(str(_fixture("980"))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("known-failure", "framework") in found, found
    assert _lead_layer(_fixture("980")) == "framework"


@pytest.mark.parametrize("line", [
    # the fixture's row of 'lemonade backends' (the llamacpp recipe's rocm backend)
    "                    rocm        unsupported     Unsupported GPU: gfx1036",
    # another recipe, another iGPU family (a Strix Point iGPU chosen before a gfx1201 card)
    "sd-cpp              rocm        unsupported     Unsupported GPU: gfx1150                       -",
    # the same message in the server's JSON (system-info's recipes -> backends -> message)
    '"rocm": {"action": "", "message": "Unsupported GPU: gfx90c", "state": "unsupported"}',
])
def test_lemonades_unsupported_gpu_message_is_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    # the same table's CUDA row: no family, so no AMD GPU was judged
    "                    cuda        unsupported     Unsupported GPU                                -",
    # an NPU requirement of the same table
    "flm                 npu         unsupported     Requires AMD XDNA 2 AMD NPU                    -",
    # another program's 'unsupported GPU' that names no gfx target
    "RuntimeError: Unsupported GPU: nvidia geforce rtx 2080",
])
def test_near_misses_are_not_lemonades_row(line):
    assert ROW not in _ids(line), line


def test_the_row_is_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"
