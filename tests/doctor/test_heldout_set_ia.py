"""Held-out set IA (tests/data/real/3300-3303, HELDOUT.md): a fourth theme-neutral sample of PyTorch's ROCm issues of
2025-2026.  3301 (a torch 2.10 training slowdown on MI300X) leads at framework on the unchanged code and 3300 (ComfyUI's
start-up on gfx1201) is healthy.  3302's crash under torch.linalg.eigh was silent: its only failure text is the title's
'crash', a word the catch-all (detect/failure_lines.toml) did not know, beside "segfault" and "regression".  The crash
words are failure words now (LM Studio's 'The model has crashed without additional information.' and reporters'
titles and sentences), so a crash told in prose is a failure told, not shown, and asked for; 3302 and 3303 stay in
MISSES (the library is named only in prose; 3303's 'asserts' is no failure word)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest import realrun
from rwtest.heldout import PROBLEM, fixture as _fixture, lead_layer as _lead_layer


def test_the_set_ia_training_slowdown_leads_at_framework():
    assert _lead_layer(_fixture("3301")) == "framework"


def test_the_set_ia_healthy_start_up_gets_no_problem():
    findings = realrun.diagnosis(_fixture("3300")).findings
    assert not [f.id for f in findings if f.severity in PROBLEM]


def test_the_eigh_crash_told_in_the_title_is_no_longer_silent():
    findings = realrun.diagnosis(_fixture("3302")).findings
    assert "failure-told-not-shown" in [f.id for f in findings if f.severity in PROBLEM]


@pytest.mark.parametrize("line", [
    # the fixture's title (pytorch/pytorch#148425)
    "[ROCM]` linalg.eigh` crash with float64 dtype and shape [8192,8192]",
    # real fixture 1126's title (LM Studio on Windows, lmstudio-ai/lmstudio-bug-tracker)
    "(0 GPUs, ROCm stuck at 100%, Stubborn runtime download button) - New Adrenalin 26.5.1 Drivers make ROCm llama.cpp "
    "runtime crash during hardware survey",
    # real fixture 321's title (ollama/ollama, MI50 in Docker)
    "Runner crashes checking AMD MI50 GPU",
    # real fixture 659's sentence (CTranslate2 on the Windows HIP SDK)
    "I thought they might be compatible anyways, but it turns out that `libhipblas.dll` in 7.1.1 changed to "
    "`hipblas.dll` in 7.2, causing a crash when CT2 loads.",
    # real fixture 1380's title (Blender's HIP Cycles on NixOS with an RX 9070 XT)
    "Blender w/ ROCM crashes when using Cycles renderer AMD 9070XT",
])
def test_a_crash_told_in_prose_is_a_failure_told(line):
    assert failure_lines.classify(line) == failure_lines.TOLD


def test_lm_studios_own_crash_line_reads_as_a_failure():
    # LM Studio's server error for a dead model process, as users paste it (lmstudio-ai/lmstudio-bug-tracker)
    line = "The model has crashed without additional information. (Exit code: 18446744072635812000)"
    assert failure_lines.classify(line, "error-log") == failure_lines.SHOWN


@pytest.mark.parametrize("line", [
    "crashpad_handler: started the GPU process watcher",            # an identifier, not the word
    "CRASH_HANDLER=1 python main.py --listen",                      # a setting's name
    "warning: asserts enabled, performance may be affected",        # llama.cpp's debug-build note (real fixture 936)
    "the crash rate of our nightly farm is tracked on the dashboard",  # no part of the stack named
])
def test_lines_that_only_hold_crash_like_text_are_not_failures(line):
    assert failure_lines.classify(line) is None
