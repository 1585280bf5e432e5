"""Held-out set GY (tests/data/real/3060-3064, HELDOUT.md): the other image-generation applications' AMD GPU issues
(InvokeAI, Fooocus, SwarmUI, Krita AI Diffusion).  Four fixtures led at their labelled layer on the unchanged code; the
fifth, InvokeAI 2.3's console on a ROCm system saying '>> Using device_type cpu' with no error line (3061), had no
row.  InvokeAI prints its torch device at start-up and takes the GPU only when torch.cuda.is_available() is true
(invoke-ai/InvokeAI ldm/generate.py and ldm/invoke/devices.py in 2.x; 'GPU device = {device} {device_name}' in 3.x's
invokeai/app/services/model_manager_service.py; 'Using torch device: {torch_device_name}' in invokeai/app/run_app.py
with invokeai/backend/util/devices.py, device.type.upper() for the CPU, from 4.x): gy_invokeai_torch_device_cpu
reads the three wordings with the CPU as the device, at framework, a warning."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "gy_invokeai_torch_device_cpu"


@pytest.mark.parametrize("num,layer", [("3060", "hip"), ("3062", "runtime"), ("3063", "framework"),
                                       ("3064", "framework")])
def test_the_set_gy_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_invokeai_cpu_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3061", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (InvokeAI 2.3.5.post2, Ubuntu 22, ROCm 5.4.2; invoke-ai/InvokeAI#3527)
    ">> Using device_type cpu",
    # InvokeAI 2.x on Ubuntu 20.04 (invoke-ai/InvokeAI#2030)
    ">> Using device_type cpu\n>> Loading stable-diffusion-1.4 from models/ldm/stable-diffusion-v1/model.ckpt",
    # InvokeAI 2.2 on Windows, the reporter's arrow after it (invoke-ai/InvokeAI#1763)
    ">> Using device_type CPU     <-----------------------------",
    # InvokeAI 5.0.2 (invoke-ai/InvokeAI#7011)
    "[2024-10-02 09:04:20,991]::[InvokeAI]::INFO --> Using torch device: CPU",
    # InvokeAI 3.x's model manager service, its format with the CPU (model_manager_service.py)
    "[2023-08-15 15:03:16,001]::[InvokeAI]::INFO --> GPU device = cpu ",
])
def test_the_row_reads_invokeais_device_lines(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    ">> Using device_type cuda",                                                         # 2.x on a GPU
    "[2023-08-09 17:25:18,421]::[InvokeAI]::INFO --> GPU device = cuda AMD Radeon RX 6800 XT",  # #4211
    "[2026-08-12 08:54:28,009]::[InvokeAI]::INFO --> Using torch device: [AMD Radeon RX 7900 XTX (cuda:0)]",  # 856
    "Using torch device: cpu",                                                 # a user's script, no InvokeAI prefix
])
def test_near_misses_match_not_the_row(line):
    assert ROW not in _ids(line)
