"""Held-out set CZ (HELDOUT.md), detection: an issue's environment block -- 'PyTorch Version: 2.7.1+rocm7.2.1
(ROCm)' (2004) and 'System: WSL Ubuntu 22.04' (2003) -- was not read.  The torch line's label ends with a colon after
'Version'; the system field names WSL without the '2'.  Near-misses: torchvision's line, a version without a
build tag, a system field that is not WSL."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts, wsl
from rwtest.heldout import fixture as _fixture


def _torch(text):
    return [t for t, _ in paste_facts.parse(text).torch]


def test_2004_the_environment_blocks_torch_is_read():
    system = detect_snapshot(str(_fixture("2004")))
    assert "2.7.1+rocm7.2.1" in [t.version for t in system.torch]


@pytest.mark.parametrize("line,want", [
    ("PyTorch Version: 2.7.1+rocm7.2.1 (ROCm)", "2.7.1+rocm7.2.1"),
    ("- PyTorch version: 2.9.1+rocm6.4 (GPU)", "2.9.1+rocm6.4"),
    ("Torch Version: 2.8.0+cu128", "2.8.0+cu128"),
])
def test_a_labelled_torch_version_with_a_word_after_it(line, want):
    assert want in _torch(line), _torch(line)


@pytest.mark.parametrize("line", [
    "torchvision Version: 0.22.1+rocm6.3",
    "PyTorch Version: 2.7.1 (ROCm)",
])
def test_other_lines_give_no_torch(line):
    assert _torch(line) == []


def test_2003_the_system_field_says_wsl():
    assert detect_snapshot(str(_fixture("2003"))).os.wsl is True


@pytest.mark.parametrize("text", ["System: WSL Ubuntu 22.04", "OS: WSL2", "Platform: WSL", "WSL Ubuntu 24.04 on Windows 11"])
def test_wsl_named_in_a_system_field(text):
    assert wsl.wsl_said(text)


@pytest.mark.parametrize("text", ["System: Ubuntu 22.04 (not WSL)", "OS: Windows 11", "System: cores=16 affinity=16"])
def test_no_wsl_where_the_field_does_not_name_it(text):
    assert wsl.wsl_said(text) is None
