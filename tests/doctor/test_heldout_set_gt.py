"""Held-out set GT (tests/data/real/3010-3013, HELDOUT.md): a theme-neutral sample of the fine-tuning tools' AMD GPU
issues (Unsloth, LLaMA-Factory; no qualifying thread of axolotl, torchtune, peft or trl came up).  One fixture led at
its layer on the unchanged code through the catch-all; its failing lines are now read from their printer's source:

* ``gt_unsloth_studio_stale_venv`` (framework): Unsloth Studio's setup (unslothai/unsloth studio/setup.ps1) probing
  the venv's torch -- before #8398 (e696d3328a) ``substep "Stale venv detected ($reason)."`` and
  ``[ERROR] The existing Unsloth environment needs repair.`` under install.ps1, since then ``Environment does not
  match this host ($reason) -- reinstalling PyTorch in place.``; ``$reason`` is ``torch could not be imported`` or
  ``torch <tag> != required <tag>``.  A direct update's ``Stale venv detected (torch A != required B) --
  rebuilding...`` of a merely drifted tag is setup repairing itself and stays unread.

Detection: Unsloth's installers' ``[TAURI:DIAG] diag_schema=1 platform=... arch=... python_version=...`` line
(install.ps1 Write-TauriDiag, install.sh tauri_log "DIAG") names the interpreter and, with ``platform=windows``,
a native Windows host.  The other three fixtures tell their failure only in a title or prose (MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import windows_facts
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "gt_unsloth_studio_stale_venv"


def test_the_set_gt_fixture_3012_is_named_and_leads_at_framework():
    assert_named_and_leads("3012", ROW, "framework")


@pytest.mark.parametrize("num", ["3010", "3011", "3013"])
def test_the_set_gt_fixtures_told_only_in_prose_stay_without_a_lead(num):
    # known misses (tests/doctor/test_known_failure.py MISSES): no pasted line shows their failure
    assert _lead_layer(_fixture(num)) is None


@pytest.mark.parametrize("text", [
    # the fixture's two lines (unslothai/unsloth#7275, Windows, gfx1103, 2026-07)
    "Stale venv detected (torch could not be imported).\n[ERROR] The existing Unsloth environment needs repair.\n",
    # setup.ps1 before #8398 as its substep and Write-StudioLine print it, a tag mismatch (the #8335 loop: a ROCm venv
    # judged against a CPU expectation)
    "  Stale venv detected (torch rocm7.2 != required cpu).\n   [ERROR] The existing Unsloth environment needs repair.\n",
    # setup.ps1 from #8398 on (015bdef0d94a), under install.ps1
    "  Environment does not match this host (torch could not be imported) -- reinstalling PyTorch in place.\n",
    # a direct 'unsloth studio update' whose torch does not import
    "  Stale venv detected (torch could not be imported) -- rebuilding...\n",
])
def test_the_stale_venv_row_reads_setups_wordings(text):
    assert ROW in ids(text)


@pytest.mark.parametrize("text", [
    # a drifted tag that a direct update rebuilds: setup repairing itself
    "  Stale venv detected (torch cu128 != required cu130) -- rebuilding...\n",
    "  Environment does not match this host (torch cu128 != required cu130) -- reinstalling PyTorch in place.\n",
    # another program's words
    "The existing environment needs repair.\n",
    "pip: stale venv detected, recreating .venv\n",
])
def test_the_stale_venv_row_leaves_other_lines(text):
    assert ROW not in ids(text)


@pytest.mark.parametrize("line,ver", [
    # install.ps1's line in the desktop app's phase log (fixture 3010, unslothai/unsloth#8508)
    ("[1786471860070][stdout] [TAURI:DIAG] diag_schema=1 platform=windows arch=x86_64 python_version=3.11 "
     "skip_torch=false mac_intel=false gpu_branch=unknown torch_index_family=none", "3.11"),
    # install.sh's line (unslothai/unsloth#8473's comment, Linux)
    ("[1786969397935][stdout] [TAURI:DIAG] diag_schema=1 platform=linux arch=x86_64 python_version=3.13 "
     "skip_torch=false mac_intel=false gpu_branch=unknown torch_index_family=none", "3.13"),
])
def test_the_unsloth_diag_line_names_the_python(line, ver):
    assert paste_facts.parse(line + "\n").app_pythons == [ver]


def test_an_unknown_python_in_the_diag_line_names_none():
    line = "[TAURI:DIAG] diag_schema=1 platform=windows arch=x86_64 python_version=unknown skip_torch=false\n"
    assert paste_facts.parse(line).app_pythons == []


@pytest.mark.parametrize("text,native", [
    ("[1786464438683][stdout] [TAURI:DIAG] diag_schema=1 platform=windows arch=x86_64 python_version=3.11\n", True),
    ("[TAURI:DIAG] diag_schema=1 platform=wsl arch=x86_64 python_version=3.12\n", False),
    ("[TAURI:DIAG] diag_schema=1 platform=linux arch=x86_64 python_version=3.13\n", False),
    ("diag_schema=1 platform=windows\n", False),  # without the installer's marker
])
def test_the_unsloth_diag_line_is_a_windows_sign_only_for_windows(text, native):
    assert (windows_facts.windows_sign(text) is not None) is native
