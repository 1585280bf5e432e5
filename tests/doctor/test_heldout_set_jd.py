"""Held-out set JD (tests/data/real/3590-3593, HELDOUT.md): threads of 2025-2026 where ROCm runs on a consumer GPU or
APU ROCm does not list (Radeon 780M, RX 7700S, an overridden gfx1100), with or without HSA_OVERRIDE_GFX_VERSION.  All
four fixtures lead at their labelled layer on the unchanged code, so no catalogue row was added; these tests hold the
set's leads.  The one detection miss (3590's torch version) came from a check script's bare version with torch's HIP
version on the line after it (lamikr/rocm_sdk_builder docs/examples/pytorch/pytorch_gpu_hello_world.py: "Pytorch
version: " + torch.__version__, then "ROCM HIP version: " + torch.version.hip): a source build has no local tag, so the
labelled-version reader, which needs one, passed it by; the pair of lines is read now."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3590", "runtime"), ("3591", "libraries"), ("3592", "framework"),
                                       ("3593", "framework")])
def test_the_set_jd_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("text,want", [
    # the fixture's lines (lamikr/rocm_sdk_builder#257, rocm_sdk_builder's RDNA3 image on a Radeon 780M)
    ("Pytorch version: 2.4.1 \nROCM HIP version: 6.1.40093-d104dca71\ncuda device count: 1\n",
     ("2.4.1", "6.1.40093-d104dca71")),
    # the same script as TheRock's RockBuilder README shows it (ROCm/TheRock experimental/rockbuilder/README.md, Windows,
    # W7900, a prompt before it)
    ("(.venv) D:\\rockbuilder\\examples>python torch_gpu_hello_world.py\nPytorch version: 2.7.0\n"
     "ROCM HIP version: 6.5.25222-1f8e4aaca\n", ("2.7.0", "6.5.25222-1f8e4aaca")),
])
def test_a_bare_torch_version_with_its_hip_line_is_read(text, want):
    assert want in paste_facts.parse(text).torch


@pytest.mark.parametrize("text", [
    # collect_env's bare version: the next line is not torch's HIP version
    "PyTorch version: 2.4.1\nIs debug build: False\n",
    # RockBuilder's vision check: torchvision's line after it, no HIP
    "pytorch version: 2.7.0\npytorch vision version: 0.22.0\n",
    # the HIP line not right after the version
    "Pytorch version: 2.7.0\ncuda device count: 1\nROCM HIP version: 6.5.25222-1f8e4aaca\n",
])
def test_a_bare_version_without_its_hip_line_is_not_read(text):
    assert paste_facts.parse(text).torch == []


def test_a_labelled_rocm_wheel_is_read_once():
    # a LUMI guide's check script output (a Markdown file in the code index): the wheel's local tag makes it
    # _TORCH_LABELLED's; the pair reader leaves it, so the version is not read twice
    text = "PyTorch version: 2.3.0+rocm6.2.0\nROCm HIP version: 6.2.41133-dd7f95766\n"
    assert [t for t, _ in paste_facts.parse(text).torch] == ["2.3.0+rocm6.2.0"]
