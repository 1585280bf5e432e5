"""Held-out set JB (tests/data/real/3570-3573, HELDOUT.md): a theme-neutral sample of threads about speech and audio
models on AMD GPUs: a WhisperX ROCm image whose torchcodec wheel is a CUDA build (libnvrtc.so.13 missing), Speech
Note's AMD add-on stopping at rocBLAS's missing TensileLibrary.dat, the CTranslate2 ROCm fork's faster-whisper failing
with 'no ROCm-capable device is detected', and epub2tts-kokoro's device check crashing with "module 'torch.backends'
has no attribute 'rocm'".  All four led at their labelled layer on the unchanged code; 3573 only by the catch-all.
The fix, from the printing program's source:

* 3573: pytorch/pytorch torch/backends/__init__.py (PropModule.__getattr__ returns self.m.__getattribute__(attr)) and
  the torch/backends packages (cuda, cudnn, miopen, hipdnn, mps, xpu, ...: no rocm, no hip); torch has no torch.hip or
  torch.rocm module either, so a program's check naming them raises AttributeError on every torch build.  Row
  jb_torch_no_rocm_module_attribute (framework).  torch.version.rocm is left out: recent releases write it
  (tools/generate_torch_version.py), so its absence means an older torch, another cause."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "jb_torch_no_rocm_module_attribute"


@pytest.mark.parametrize("num,layer", [("3570", "framework"), ("3571", "libraries"), ("3572", "hip"),
                                       ("3573", "framework")])
def test_the_set_jb_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_torch_rocm_attribute_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3573", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (hexgrad/kokoro#285, epub2tts-kokoro on a machine with an old AMD GPU)
    "AttributeError: module 'torch.backends' has no attribute 'rocm'",
    # the same check in epub2tts-kokoro's macOS docker run (aedocw/epub2tts-kokoro#20, 2026-03; title and traceback)
    "error on mac: AttributeError: module 'torch.backends' has no attribute 'rocm'",
    # fla's fla/utils.py device probe on a ROCm machine (fla-org/flash-linear-attention#207, 2025-02, its title)
    "[Bug] AttributeError: module 'torch' has no attribute 'hip'",
    # the same mistake spelled torch.rocm (a program's probe; the message is Python's AttributeError format)
    "AttributeError: module 'torch' has no attribute 'rocm'",
])
def test_the_row_reads_checks_of_rocm_modules_torch_does_not_have(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # torch.version.rocm exists in recent releases: its absence is an old torch (vladmandic/sdnext#1157, 2023)
    "AttributeError: module 'torch.version' has no attribute 'rocm'",
    # an old torch without the MPS backend (pytorch/pytorch#117462), another cause
    "AttributeError: module 'torch.backends' has no attribute 'mps'",
    # torch.backends.miopen is real in recent torch; a different attribute and module
    "AttributeError: module 'torch.backends.miopen' has no attribute 'immediate'",
])
def test_other_missing_torch_attributes_are_not_the_row(line):
    assert ROW not in ids(line)
