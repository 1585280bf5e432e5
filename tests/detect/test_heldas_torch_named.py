"""Held-out set AS (tests/data/real/1180-1185, HELDOUT.md): a torch version written right after the word torch,
with the PEP 440 local tag PyTorch's own wheels carry (rocmX.Y, cuNNN, cpu), is read in prose and titles as well as
in the labelled lines the reader knew (1183: 'ships a CUDA-only torch (2.12.0+cu130)')."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts


def _torch(text: str):
    return paste_facts.parse(text).torch


@pytest.mark.parametrize("line, version", [
    # the fixture's title (YanWenKun/ComfyUI-Docker#187)
    ("rocm7-20260601 ships a CUDA-only torch (2.12.0+cu130), won't start on AMD", "2.12.0+cu130"),
    # the same thread's prose form and a pin in a requirements line
    ("the torch that ships in that image is torch 2.12.0+cu130 rather than a ROCm one", "2.12.0+cu130"),
    ("torch==2.9.1+rocm7.2.3", "2.9.1+rocm7.2.3"),
    # pip's own summary line after an install (the wheel's name joined by a dash)
    ("Successfully installed torch-2.14.0+cu130 torchvision-0.29.0+cu130", "2.14.0+cu130"),
    # a CPU build at the end of a sentence
    ("Inside the venv I have PyTorch 2.8.0+cpu.", "2.8.0+cpu"),
])
def test_a_torch_version_with_its_build_tag_after_the_word_torch_is_read(line, version):
    assert (version, None) in _torch(line), _torch(line)


@pytest.mark.parametrize("line", [
    # torchvision's and torchaudio's versions are not torch's
    "torchvision 0.27.0+cu130 and torchaudio 2.12.0+cu130 were pulled in",
    # libtorch (the C++ distribution) is not the Python wheel
    "libtorch 2.12.0+cu130 was linked",
    # a bare version names no build
    "ships torch 2.12.0 from PyPI",
    # a local tag that is not PyTorch's (a distribution's rebuild)
    "torch 2.12.0+fedora43",
])
def test_near_misses_are_not_read(line):
    assert _torch(line) == [], _torch(line)
