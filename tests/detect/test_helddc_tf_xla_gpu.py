"""Set DC (2060, 2062): the GPU TensorFlow's or XLA's ROCm device check names -- TensorFlow's gpu_device.cc
("Ignoring visible gpu device (device: N, name: ..., pci bus id: ...) with AMDGPU version : gfxNNNN. ..."; TF 1.x
"... with AMDGPU ISA gfxNNN. The minimum required AMDGPU ISA is ..."), XLA's platform_util.cc ("StreamExecutor ROCM
device (N) is of unsupported AMDGPU version : gfxNNNN. ...") -- read as the device's gfx target and name."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts


def _gpus(text):
    return [(g.gfx_target, g.name, g.bdf) for g in paste_facts.parse(text).gpus]


@pytest.mark.parametrize("line, want", [
    ("2024-05-04 09:45:04.334204: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2266] Ignoring visible gpu device "
     "(device: 0, name: Radeon RX 7900 XTX, pci bus id: 0000:03:00.0) with AMDGPU version : gfx1100. The supported AMDGPU "
     "versions are gfx1030gfx1100, gfx900, gfx906, gfx908, gfx90a, gfx940, gfx941, gfx942.",
     ("gfx1100", "Radeon RX 7900 XTX", "0000:03:00.0")),
    # an empty name (tensorflow-upstream#2118, W7900)
    ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1990] Ignoring visible gpu device (device: 0, name: , pci bus "
     "id: 0000:23:00.0) with AMDGPU version : gfx1100. The supported AMDGPU versions are gfx1030, gfx900, gfx906.",
     ("gfx1100", None, "0000:23:00.0")),
    # TF 1.x's wording, a name with commas in it (ROCmSoftwarePlatform/tensorflow#90)
    ("2018-11-11 22:30:37.207580: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1605] Ignoring visible gpu device "
     "(device: 0, name: AMD A10-8700P Radeon R6, 10 Compute Cores 4C+6G, pci bus id: 0000:00:01.0) with AMDGPU ISA gfx801. "
     "The minimum required AMDGPU ISA is gfx803.",
     ("gfx801", "AMD A10-8700P Radeon R6, 10 Compute Cores 4C+6G", "0000:00:01.0")),
    # XLA's platform_util.cc (2062's line)
    ("18:10:28.124 [info] StreamExecutor ROCM device (0) is of unsupported AMDGPU version : gfx1100. The supported AMDGPU "
     "versions are gfx900, gfx906, gfx908, gfx90a, gfx1030.", ("gfx1100", None, None)),
])
def test_the_skipped_device_is_read(line, want):
    got = _gpus(line)
    assert got == [want], got


@pytest.mark.parametrize("line", [
    # the supported list alone is not the device's target
    "The supported AMDGPU versions are gfx1030, gfx900, gfx906, gfx908, gfx90a.",
    # CUDA's compute-capability check names no AMD target
    "StreamExecutor cuda device (0) is of insufficient compute capability: 3.5 required, device is 3.0",
])
def test_lists_and_other_vendors_are_not_read(line):
    assert _gpus(line) == [], _gpus(line)
