"""Held-out set JI (tests/data/real/3640-3644, HELDOUT.md): image-model training tools on AMD GPUs (OneTrainer and
its ROCm fork, ai-toolkit, Stability Matrix's OneTrainer).  On the unchanged code 3642 had no warning: its only lines are
the C++ runtime's report of an uncaught std::bad_alloc (gcc libstdc++-v3/libsupc++/vterminate.cc's verbose terminate
handler; libc++abi's cxa_default_handlers.cpp has its own wording), which no row read.  Row
ji_cxx_uncaught_std_bad_alloc_terminate (framework) reads both runtimes' wordings; other exception types keep their
rows.  Detection: 3640's bare 'Python 3.10.11' answers OneTrainer's start-ui.bat, which echoes 'Checking Python
version...' and runs '%PYTHON% --version' with its command echo off; the announcement now counts as the command."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "ji_cxx_uncaught_std_bad_alloc_terminate"


@pytest.mark.parametrize("num,layer", [("3640", "framework"), ("3641", "hip"), ("3642", "framework"),
                                       ("3643", "framework"), ("3644", "framework")])
def test_the_set_ji_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_bad_alloc_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3642", ROW, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's stderr.log (ostris/ai-toolkit#563, torchaudio imported on Strix Halo)
    "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n",
    # 'import torch' on ROCm 5.6 with a nightly for ROCm 5.5, the abort in librocfft (pytorch/pytorch#104415)
    ">>> import torch\nterminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n"
    "Aborted (core dumped)\n",
    # importing a package on a CUDA machine, behind a loguru line (ModelTC/LightX2V#802)
    "2026-01-20 18:17:08.700 | INFO     | lightx2v_platform.base.base:check_ai_device:33 - AI device for platform "
    "'cuda' is available.\nterminate called after throwing an instance of 'std::bad_alloc'\n",
    # libc++abi's wording since LLVM 16 (a Lean build's abort quoted in a public notes file of the code index)
    "libc++abi: terminating due to uncaught exception of type std::bad_alloc: std::bad_alloc\n",
    # libc++abi's wording before LLVM 16 (macOS's libc++abi.dylib, as quoted in a public C++ exercise's comment)
    "libc++abi.dylib: terminating with uncaught exception of type std::bad_alloc: std::bad_alloc\n",
])
def test_the_row_reads_both_runtimes_wordings(text):
    assert ROW in ids(text)


@pytest.mark.parametrize("text", [
    "RuntimeError: std::bad_alloc\n",                                                  # caught and re-raised by torch
    "terminate called after throwing an instance of 'c10::Error'\n  what():  invalid device pointer: 0x6712000\n",
    "terminate called without an active exception\n",                                # no exception at all
    "libc++abi: terminating due to uncaught exception of type std::runtime_error: boom\n",
])
def test_other_terminations_are_not_the_row(text):
    assert ROW not in ids(text)


def test_the_row_is_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text,want", [
    # the fixture's launcher lines (Nerogar/OneTrainer#911)
    ('Using Python "E:\\OneTrainer\\venv\\Scripts\\python.exe"\nChecking Python version...\nPython 3.10.11\n',
     ["3.10.11"]),
    # the announcement with another line after it, and a version line under some other line
    ("Checking Python version...\nStarting UI...\nPython 3.12.4\n", []),
    ("Starting UI...\nPython 3.12.4\n", []),
])
def test_a_launchers_announced_python_version_is_read(text, want):
    assert paste_facts.parse(text).pythons == want
