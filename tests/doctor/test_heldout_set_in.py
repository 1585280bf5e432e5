"""Held-out set IN (tests/data/real/3430-3434, HELDOUT.md): a second theme-neutral sample of threads about ROCm as the
rpm and rolling distributions package it (Fedora's rocm metapackage as dnf repoquery lists it, hipfire's installer on
Fedora's rocm-hip, Arch's ollama-rocm and rocm-* 6.2 under a Linux 6.12 regression, Ollama's runner on Arch's ROCm 6.4.3,
Ollama on the AUR's TheRock gfx1151 build).  3433 and 3434 led at framework on the unchanged code (the Go runtime's
'signal arrived during cgo execution' row); 3430 is healthy; 3431 and 3432 tell their failure only in prose or a title,
the pastes healthy (MISSES).  No row was added: no pasted line of the misses says that anything failed."""
from __future__ import annotations

import pytest

from rwtest.heldout import fixture as _fixture, ids, lead_layer as _lead_layer

CGO_ROW = "eb_go_signal_during_cgo_execution"


@pytest.mark.parametrize("num", ["3433", "3434"])
def test_the_ollama_runner_crashes_lead_at_framework_with_the_cgo_signal_row(num):
    folder = _fixture(num)
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")))
    assert CGO_ROW in ids(text)
    assert _lead_layer(folder) == "framework"


@pytest.mark.parametrize("num", [
    # Fedora's rocm metapackage's requirements: healthy, no false alarm on '>= 6.4' bounds
    "3430",
    # the misses: ldconfig's healthy line, pacman -Q's package list (tests/doctor/test_known_failure.py MISSES)
    "3431", "3432",
])
def test_the_healthy_pastes_raise_no_problem(num):
    assert _lead_layer(_fixture(num)) is None
