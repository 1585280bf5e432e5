"""Held-out set BG (1460, 1461, 1464): the GPU target MIOpen's run-time CK loader names (ROCm/rocm-libraries projects/miopen
CkImplLibLoader: "CK grouped conv library not found for device " << StripDeviceSuffix(device_name) << ": " ..., and its
siblings "Failed to resolve symbols in CK grouped conv library for device <gfx>", "CK grouped conv API version mismatch for
device <gfx>: ...")."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts


def _gfx(text):
    return [g.gfx_target for g in paste_facts.parse(text).gpus]


@pytest.mark.parametrize("text, want", [
    ("MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv library not found for device gfx1151: "
     "libMIOpenCKGroupedConv_gfx1151.so: cannot open shared object file: No such file or directory\n", ["gfx1151"]),
    ("[Issue]: CK grouped conv library not found for device gfx90c\n", ["gfx90c"]),
    ("MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] Failed to resolve symbols in CK grouped conv library for device "
     "gfx942\n", ["gfx942"]),
    ("MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv API version mismatch for device gfx1201: "
     "expected 3, got 2\n", ["gfx1201"]),
    # the same GPU twice in a log is one GPU
    ("MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv library not found for device gfx1103: x\n" * 2,
     ["gfx1103"]),
])
def test_the_gpu_miopen_runs_on_is_read(text, want):
    assert _gfx(text) == want


@pytest.mark.parametrize("text", [
    # a library path names a build target, not the device MIOpen runs on
    "MIOpen(HIP): Info2 [OpenRuntimeLibraryForDevice] Loaded CK grouped conv library from lib dir: "
    "/opt/rocm/lib/libMIOpenCKGroupedConv_gfx1151.so\n",
    "ls: cannot access 'libMIOpenCKGroupedConv_gfx1103.so': No such file or directory\n",
    "CK grouped conv library not found for device\n",
])
def test_near_misses_give_no_gpu(text):
    assert _gfx(text) == []
