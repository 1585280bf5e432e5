"""Held-out set GE (tests/data/real/2860-2864, HELDOUT.md): a second theme-neutral sample of ComfyUI's AMD GPU issues of
2025-2026.  One row and one detection sign were added, each from the printing program's source:

* ``ge_torch_no_cuda_gpus`` -- torch's device check in its CUDA spelling, 'No CUDA GPUs are available'
  (pytorch/pytorch c10/cuda/CUDAFunctions.cpp, device_count_ensure_non_zero; ROCm builds hipify it to 'No HIP GPUs are
  available', torch_no_hip_gpus).  On AMD systems it comes from a CUDA build of torch on ZLUDA over the HIP runtime
  (ComfyUI-Zluda), a relayed message, or a container without the device nodes: runtime (2860-2862, 770).
* windows_facts' ``comfyui_manager_platform`` sign -- ComfyUI-Manager's start-up line '** Platform: Windows'
  (Comfy-Org/ComfyUI-Manager prestartup_script.py, print("** Platform:", platform.system())) behind a log prefix:
  ComfyUI Desktop's electron-log '[date time.ms] [info]  ', the Manager's '[date hh:mm] ', ComfyUI's ISO '... - ' (2863).

2863 (torch's 'No HIP GPUs are available' told only in a title the user retyped with a misspelling) stays in MISSES.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2860", "runtime"), ("2861", "runtime"), ("2862", "runtime"),
                                       ("2864", "framework")])
def test_the_set_ge_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num", ["2860", "2861", "2862"])
def test_the_cuda_spelling_row_names_its_fixtures_and_leads(num):
    assert_named_and_leads(num, "ge_torch_no_cuda_gpus", "runtime")


ROW = "ge_torch_no_cuda_gpus"


@pytest.mark.parametrize("text", [
    # patientx/ComfyUI-Zluda#278 (2025-08, Ryzen 7735HS 680M gfx1035 under ZLUDA): the title
    "RuntimeError: No CUDA GPUs are available",
    # patientx/ComfyUI-Zluda#400 (2025-12, HIP SDK 6.4 under ZLUDA): the title as written
    "No CUDA GPUS are available",
    # fixture 770's wording (vLLM's ROCm platform in a podman container without the device nodes), as its notes file has it
    "but PyTorch/HIP reports `RuntimeError: No CUDA GPUs are available` because the container has no exposed GPU devices.",
    # SystemVll/ComfyUI-AMD#4's description (2026-06, 2860's thread), in markdown bold
    "Starting ComfyUI results in a **RuntimeError: No CUDA GPUs are available**",
])
def test_cuda_spelling_row_reads_its_wordings(text):
    assert ROW in ids(text)
    assert error_signatures.failure_layer(ROW) == "runtime"


@pytest.mark.parametrize("text", [
    "RuntimeError: No HIP GPUs are available",                       # the hipified spelling: torch_no_hip_gpus
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
    "http://www.nvidia.com/Download/index.aspx",                      # a CUDA wheel without a driver (2864's line)
    "CUDA GPUs are available: 1",                                     # a healthy probe's print
])
def test_cuda_spelling_row_leaves_other_lines(text):
    assert ROW not in ids(text)


def test_hip_spelling_stays_with_its_row():
    assert "torch_no_hip_gpus" in ids("RuntimeError: No HIP GPUs are available")


@pytest.mark.parametrize("text", [
    # Comfy-Org/ComfyUI#12164 (2863): ComfyUI Desktop's electron-log prefix
    "[2026-01-29 17:04:56.248] [info]  ** Platform: Windows",
    # patientx/ComfyUI-Zluda#28 (2024-10): ComfyUI-Manager's own log file prefix
    "[2024-10-13 00:29] ** Platform: Windows",
    # ComfyUI's comfyui.log prefix (Comfy-Org/ComfyUI_frontend#3078's log shape)
    "2025-03-15T22:55:58.520532 - ** Platform: Windows",
])
def test_comfyui_manager_platform_line_is_a_windows_sign(text):
    sign = windows_sign(text)
    assert sign is not None and sign[0] in ("comfyui_manager_platform", "issue_form"), sign


@pytest.mark.parametrize("text", [
    "[2026-01-29 17:04:56.248] [info]  ** Platform: Linux",         # a Linux (or WSL) host's header
    "[2026-01-29 17:04:56.248] [info]  ** Platform: Darwin",        # a Mac
    "I run ComfyUI on the Windows platform with an AMD card",        # prose
])
def test_comfyui_manager_platform_line_leaves_other_hosts(text):
    assert windows_sign(text) is None


def test_the_detection_reads_2863s_windows_host():
    from rocm_wizard.detect import detect_snapshot
    system = detect_snapshot(str(_fixture("2863")))
    assert system.os.windows_native is True and system.os.wsl is not True
