"""Held-out set GQ (tests/data/real/2980-2985, HELDOUT.md): a theme-neutral sample of the training kernels' ROCm
issues (bitsandbytes, flash-attention, DeepSpeed).  Five fixtures lead at their labelled layer (2983 at libraries after
its label correction: Composable Kernel's header rejected by the assembler, as 579, 816 and 1562).  Two lines are read
since from their printers' sources: DeepSpeed's op builder asking for the CUDA toolkit (deepspeedai/DeepSpeed
op_builder/builder.py installed_cuda_version: raise MissingCUDAException("CUDA_HOME does not exist, unable to compile
CUDA op(s)"), an assert with the same text before), and pip's summary 'Failed to build <projects>' (pypa/pip
src/pip/_internal/wheel_builder.py build(): logger.info("Failed to build %s", ...), just before install.py's error),
which the catch-all had read at framework from the project's name.  2982 (pip's two summary lines only, labelled
framework by the thread's diagnosis) is a documented miss (tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.error_signatures import scan as _scan
from rwtest import realrun
from rwtest.heldout import PROBLEM, assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "gq_deepspeed_op_builder_cuda_home_missing"


@pytest.mark.parametrize("num,layer", [("2980", "framework"), ("2981", "framework"), ("2983", "libraries"),
                                       ("2984", "framework"), ("2985", "framework")])
def test_the_set_gq_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_2982_is_read_at_packaging_by_pips_row_only():
    findings = [f for f in realrun.diagnosis(_fixture("2982")).findings if f.severity in PROBLEM]
    assert findings and {f.layer for f in findings} == {"packaging"}


PIP = "pkg_pip_wheel_build_failed"


@pytest.mark.parametrize("text", [
    # the fixture's lines (ROCm/flash-attention#80, pip 24.1-24.2's doubled 'ERROR: ERROR:' form)
    "Failed to build flash_attn\n"
    "ERROR: ERROR: Failed to build installable wheels for some pyproject.toml based projects (flash_attn)",
    # pip 24.3's rich error after it (fixture 2597, PyTorch's CI building the torch wheel)
    "Failed to build torch\nerror: failed-wheel-build-for-install\n\n"
    "\u00d7 Failed to build installable wheels for some pyproject.toml based projects",
    # pip 23.x's form (pip src/pip/_internal/commands/install.py, 'Could not build wheels for {}, which is required ...')
    "Failed to build flash-attn bitsandbytes\n"
    "ERROR: Could not build wheels for flash-attn, bitsandbytes, which is required to install pyproject.toml-based projects",
])
def test_pips_summary_line_is_read_by_pips_row(text):
    first = text.split("\n")[0]
    assert (PIP, first) in [(sig.id, m) for sig, m in _scan(text)]


@pytest.mark.parametrize("text", [
    # other programs' 'Failed to build' lines, without pip's error after them
    "Failed to build the manager image",
    "Failed to build flash_attn\nInstalling collected packages: flash_attn\n  Running setup.py install for flash_attn ... done",
])
def test_failed_to_build_without_pips_error_is_not_pips_summary(text):
    assert PIP not in _ids(text)


def test_2597_keeps_its_packaging_lead():
    # the other fixture with pip's summary line (PyTorch's CI wheel build, labelled packaging)
    assert _lead_layer(_fixture("2597")) == "packaging"


def test_the_deepspeed_row_names_2985():
    assert_named_and_leads("2985", ROW, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's line (deepspeedai/DeepSpeed#3091, DeepSpeed 0.8.3, DS_BUILD_OPS=1 ./install.sh on an AMD system)
    "AssertionError: CUDA_HOME does not exist, unable to compile CUDA op(s)",
    # the current source's exception as pip relays setup.py's metadata step (a public install note, pip install deepspeed)
    "\t\t\t\t\top_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)",
    # the assert's own frame line in the same kind of pip output (a WSL install note, deepspeed>=0.9.0)
    '          assert cuda_home is not None, "CUDA_HOME does not exist, unable to compile CUDA op(s)"',
    # the bare message after transformers' import wrapper (a robotics container's notes: import deepspeed at import)
    "RuntimeError: Failed to import transformers.modeling_utils ...\n"
    "CUDA_HOME does not exist, unable to compile CUDA op(s)",
])
def test_the_deepspeed_row_reads_its_wordings(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # torch's own extension builder (torch/utils/cpp_extension.py), another printer
    "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
    # DeepSpeed's version-mismatch exception, another failure of the same builder
    ">- DeepSpeed Op Builder: Installed CUDA version 12.1 does not match the version torch was compiled with 11.8, "
    "unable to compile cuda/cpp extensions without a matching cuda version.",
    "CUDA_HOME does not exist",
    "ROCM_HOME does not exist, unable to compile HIP op(s)",
])
def test_lines_that_are_not_the_cuda_home_refusal(text):
    assert ROW not in _ids(text)
