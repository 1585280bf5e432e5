"""Held-out set FI (tests/data/real/2640-2645, HELDOUT.md): a theme-neutral sample of the LLM serving engines' AMD GPU
issues of 2025-2026 (vLLM, SGLang, AITER).  Five of six led at their layer on the unchanged code; 2640 stays a miss
(vLLM's traceback frames cut before Composable Kernel's refusal, in MISSES).  The fixes: the HIP runtime's own report of
a GPU memory fault, 'Memory Fault Error [%sGPU index: %u, faulting addr: 0x%lx, kernel: %s]' (ROCm/rocm-systems
projects/clr/rocclr/device/rocm/rocdevice.cpp, Device::BackendErrorCallBackHandler), which the catch-all read at kernel
by its 'kernel:' word, is a catalogue row at runtime; SGLang's environment report (sgl-project/sglang
python/sglang/check_env.py) no longer makes its 'name: Module Not Found' inventory lines unrecognised failures, and its
'PyTorch: <torch.__version__>' line names the torch version whatever the local tag."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

MEM_FAULT = "fi_clr_memory_fault_error_kernel"


@pytest.mark.parametrize("num,layer", [("2641", "framework"), ("2642", "kernel"), ("2643", "runtime"),
                                       ("2644", "runtime"), ("2645", "libraries")])
def test_the_set_fi_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # the fixture's check_env (sgl-project/sglang#10195)
    "anthropic: Module Not Found", "flashinfer_python: Module Not Found",
    # a CUDA host's report (sgl-project/sglang#18989)
    "torchcodec: Module Not Found",
])
def test_sglang_check_envs_missing_packages_are_not_failures(line):
    assert not failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    "ModuleNotFoundError: No module named 'aiter'",                # Python's import failure stays one
    "ERROR: module not found: amdgpu",                             # a program's error line
])
def test_real_import_failures_still_look_like_failures(line):
    assert failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("text,torch", [
    # the fixture's (sgl-project/sglang#10195): a ROCm image's source build
    ("Python: 3.12.8 (main, Dec  4 2024, 08:54:12) [GCC 11.4.0]\nROCM available: True\nPyTorch: 2.6.0a0+git8d4926e\n"
     "sglang: 0.5.2rc1\nsgl_kernel: 0.3.8\n", "2.6.0a0+git8d4926e"),
    # ROCm 7.2's image (sgl-project/sglang#38849, MI300X VF)
    ("ROCM_HOME: /opt/rocm-7.2.0\nPyTorch: 2.9.1+rocm7.2.0.git7e1940d4\nsglang: 0.5.18\nsglang-kernel: 0.4.6.post1\n",
     "2.9.1+rocm7.2.0.git7e1940d4"),
    # a CUDA host's report (sgl-project/sglang#18989)
    ("CUDA available: True\nPyTorch: 2.9.1+cu129\nsglang: 0.0.0.dev1+gd3bae71e3\nsgl_kernel: 0.3.21\n", "2.9.1+cu129"),
])
def test_sglang_check_envs_pytorch_line_names_the_torch_version(text, torch):
    assert (torch, None) in paste_facts.parse(text).torch


@pytest.mark.parametrize("text", [
    "Python: 3.12.8\nROCM available: True\nPyTorch: 2.6.0a0+git8d4926e\n",   # no sglang line: not the report
    "sglang: 0.5.2\nPyTorch: 2.6.0 or newer is required\n",                 # prose after the label
])
def test_a_pytorch_label_outside_sglangs_report_names_no_source_build(text):
    assert not any(v.startswith("2.6.0") for v, _ in paste_facts.parse(text).torch)
