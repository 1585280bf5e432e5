"""Held-out set IY (tests/data/real/3540-3543 and 3545, HELDOUT.md): a second theme-neutral sample of non-English
(here all Chinese) threads about ROCm on AMD GPUs: MedicalGPT's training script stopping with torch's 'HIP error:
invalid argument', the chitu engine on a Hygon DCU Z100 aborting with 'no ROCm-capable device is detected', Paddle's
DCU image printing the thunk's 'Version mismatch' and 'Compiled with WITH_GPU, but no GPU found in runtime', Xinference's
vLLM engine on a Radeon 8060S failing with torch's 'Device string must not be empty', and Paddle's DCU build failing
its first op with 'Hip error(100), no ROCm-capable device is detected'.  On the unchanged code 3542 had no finding and
3543 was led by the catch-all.  The fixes, from the printing programs' sources:

* 3542: PaddlePaddle/Paddle paddle/fluid/platform/init.cc (InitDevices, under PADDLE_WITH_CUDA || PADDLE_WITH_HIP) logs
  'Compiled with WITH_GPU, but no GPU found in runtime.' when the GPU runtime's device query throws, and
  python/paddle/base/framework.py warns 'You are using GPU version Paddle, but your CUDA device is not set properly.
  CPU device will be used by default.'  Row iy_paddle_gpu_build_no_gpu_found reads both at runtime, as torch's
  'No HIP GPUs are available'.
* 3543: pytorch/pytorch c10/core/Device.cpp refuses torch.device("") with 'Device string must not be empty'; vLLM's
  DeviceConfig reaches it when its platform detection found none (UnspecifiedPlatform).  Row
  iy_torch_device_string_empty (framework)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import PROBLEM, assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

PADDLE = "iy_paddle_gpu_build_no_gpu_found"
DEVSTR = "iy_torch_device_string_empty"


@pytest.mark.parametrize("num,layer", [("3540", "hip"), ("3541", "hip"), ("3542", "runtime"), ("3543", "framework")])
def test_the_set_iy_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_3545_keeps_its_hip_finding_after_the_paddle_row_leads_at_runtime():
    # 3545 (Paddle#71646) holds both Paddle's import-time no-GPU warning (runtime, like torch's 'No HIP GPUs are
    # available') and its relay of HIP status 100 (hip): doctor orders by layer, so the runtime row leads there now
    probs = [(f.id, f.layer) for f in realrun.diagnosis(_fixture("3545")).findings if f.severity in PROBLEM]
    assert probs[0] == ("known-failure", "runtime") and ("known-failure", "hip") in probs


def test_the_paddle_row_names_its_fixture_and_leads_at_runtime():
    assert_named_and_leads("3542", PADDLE, "runtime")


def test_the_device_string_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3543", DEVSTR, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's lines (PaddlePaddle/Paddle#73087, Hygon DCU, Paddle 3.0.0)
    "W0604 13:57:12.876377    71 init.cc:181] Compiled with WITH_GPU, but no GPU found in runtime.",
    "/opt/py310/lib/python3.10/site-packages/paddle/base/framework.py:805: UserWarning: You are using GPU version Paddle,"
    " but your CUDA device is not set properly. CPU device will be used by default.",
    # PaddleOCR on a CUDA host without its driver libraries (init.cc:182, paddle/fluid/framework.py:634), a PaddleOCR
    # text in the code index
    "  W1203 09:46:38.052230  8109 init.cc:182] Compiled with WITH_GPU, but no GPU found in runtime.",
    # PaddleFL in a container (YueWang1996/sconeFL README, paddle/fluid/framework.py:299 of Paddle 1.8)
    "/root/miniconda/lib/python3.7/site-packages/paddle/fluid/framework.py:299: UserWarning: You are using GPU version "
    "Paddle, but your CUDA device is not set properly. CPU device will be used by default.",
    # PaddleOCR-VL fine-tuning under WSL (a 2025 issue quoted in the code index, paddle/base/framework.py:824)
    "\"/home/username/ocr/.venv/lib/python3.12/site-packages/paddle/base/framework.py:824: UserWarning: You are using GPU "
    "version Paddle, but your CUDA device is not set properly. CPU device will be used by default.\"",
])
def test_the_paddle_row_reads_both_of_paddles_no_gpu_lines(line):
    assert PADDLE in ids(line)
    assert error_signatures.failure_layer(PADDLE) == "runtime"


@pytest.mark.parametrize("line", [
    # init.cc's sibling warnings for other device kinds and for a CPU build (PaddlePaddle/Paddle init.cc)
    "W0101 00:00:00.000000   100 init.cc:190] Compiled with WITH_XPU, but no XPU found in runtime.",
    "W0101 00:00:00.000000   100 init.cc:170] 'CUDA' is not supported, Please re-compile with WITH_GPU option",
    "W0101 00:00:00.000000   100 init.cc:200] Compiled with PADDLE_WITH_ASCEND_CL, but no NPU found in runtime.",
])
def test_other_paddle_device_lines_are_not_the_paddle_row(line):
    assert PADDLE not in ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (xorbitsai/inference#3784, Radeon 8060S): Xinference's actor prefix before torch's message
    "RuntimeError: [address=0.0.0.0:38231, pid=2088] Device string must not be empty",
    # vLLM on a CPU-only backend, as a research log in the code index records it
    "- `reason = \"vllm import succeeded but runtime initialization failed: RuntimeError: Device string must not be "
    "empty\"`",
    # vLLM under a job whose NVIDIA devices were not passed in (an evaluation note in the code index)
    "`vllm/config/device.py:78` with `RuntimeError: Device string must not be empty`. The dotted worker was never",
])
def test_the_device_string_row_reads_torchs_refusal(line):
    assert DEVSTR in ids(line)
    assert error_signatures.failure_layer(DEVSTR) == "framework"


@pytest.mark.parametrize("line", [
    # a package's own GPU-id list parser with the same words (a ValueError, not torch's check)
    "ValueError: Device string must not be empty",
    # torch's other device-string checks (c10/core/Device.cpp)
    "RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: gpu",
    "RuntimeError: Invalid device string: 'cuda:'",
])
def test_other_device_string_errors_are_not_the_row(line):
    assert DEVSTR not in ids(line)
