"""Held-out set AS (tests/data/real/1180-1185, HELDOUT.md): ROCm in containers in 2026.
1183's miss fixed by its cause: a CUDA wheel of torch named by its version's local tag in the title
(detect/parsers/paste_facts.py, _TORCH_NAMED) reaches the rule that reports a CUDA or CPU build of torch."""
from __future__ import annotations

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer

PROBLEM = ("warning", "error", "critical")


def test_1183_the_cuda_wheel_in_a_rocm_image_is_reported_at_framework():
    diag = diagnose(detect_snapshot(str(_fixture("1183"))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("torch-not-rocm", "framework") in found, found
    assert _lead_layer(_fixture("1183")) == "framework"


def test_the_other_fixtures_lead_at_their_labelled_layer():
    # (1181's cause, 'nomodeset' on the host's kernel command line, is told only in prose: its lead stays at hip)
    for num, layer in (("1180", "runtime"), ("1182", "runtime"), ("1184", "libraries"), ("1185", "libraries")):
        assert _lead_layer(_fixture(num)) == layer, num
