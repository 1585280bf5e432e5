"""Held-out set CF (tests/data/real/1740-1744): the detection readers fixed for it, each from the program that
prints the line: pciutils' name of a device its pci.ids does not know ('Device %04x', lib/names.c), and ggml's Vulkan
backend's device list (ggml-vulkan.cpp, ggml_vk_print_gpu_info, both its formats).  Fixture + other wordings +
near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rwtest.heldout import fixture as _fixture


def _snap(tmp_path, text):
    (tmp_path / "p.txt").write_text(text, encoding="utf-8")
    return detect_snapshot(str(tmp_path))


# -- lspci's 'Device 164e' ------------------------------------------------------------------------------
def test_1741_the_unnamed_amd_device_gives_its_id():
    amd = detect_snapshot(str(_fixture("1741"))).amd_gpus
    assert [g.device_id for g in amd] == ["164e"]


@pytest.mark.parametrize("line,dev", [
    ("12:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 164e (rev c1)\n", "164e"),
    ("03:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Device 7551 (rev c0)\n", "7551"),
    ("c4:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 150E (rev c1)\n", "150e"),
])
def test_lspci_device_fallback_name_is_the_id(tmp_path, line, dev):
    assert dev in [g.device_id for g in _snap(tmp_path, line).amd_gpus]


def test_a_named_device_keeps_its_name_and_bracketed_id(tmp_path):
    g = _snap(tmp_path, "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
                        "[Radeon RX 7900 XT/7900 XTX] [1002:744c] (rev c8)\n").amd_gpus
    assert [x.device_id for x in g] == ["744c"]


# -- ggml's Vulkan device list -----------------------------------------------------------------------------
def test_1742_the_amd_vulkan_device_is_named():
    assert [g.name for g in detect_snapshot(str(_fixture("1742"))).amd_gpus] == ["AMD Radeon(TM) Graphics"]


@pytest.mark.parametrize("text,name", [
    ("ggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) | uma: 0 | fp16: 1 | "
     "bf16: 0 | warp size: 64 | shared memory: 65536 | int dot: 1 | matrix cores: KHR_coopmat\n",
     "AMD Radeon RX 7900 XTX"),
    ("ggml_vulkan: Found 1 Vulkan devices:\nVulkan0: Radeon RX 7900 XTX | uma: 0 | fp16: 1 | warp size: 64\n",
     "Radeon RX 7900 XTX"),
    ("ggml_vulkan: 0 = AMD Radeon(TM) 890M (RADV GFX1150) | uma: 1 | fp16: 1 | bf16: 0 | warp size: 64\n",
     "AMD Radeon(TM) 890M"),
])
def test_ggml_vulkan_amd_devices(tmp_path, text, name):
    assert name in [g.name for g in _snap(tmp_path, text).amd_gpus]


@pytest.mark.parametrize("text", [
    "ggml_vulkan: 0 = NVIDIA GeForce RTX 4060 Laptop GPU (NVIDIA) | uma: 0 | fp16: 1 | bf16: 1 | warp size: 32\n",
    "ggml_vulkan: 0 = Intel(R) Iris(R) Xe Graphics (Intel Corporation) | uma: 1 | fp16: 1 | bf16: 0 | warp size: 32\n",
    # Dozen (Vulkan over Direct3D12) on a GPU ggml names by no AMD product: the layered device is not read
    "Vulkan1: Microsoft Direct3D12 (AMD Radeon(TM) Graphics) (Dozen) | uma: 1 | fp16: 1 | warp size: 32\n",
    "ggml_vulkan: 0 = llvmpipe (LLVM 19.1.7, 256 bits) (llvmpipe) | uma: 0 | fp16: 1 | warp size: 8\n",
])
def test_other_vendors_and_layered_devices_are_not_amd_gpus(tmp_path, text):
    assert _snap(tmp_path, text).amd_gpus == []


def test_a_tool_that_lists_gpus_wins_over_the_vulkan_names(tmp_path):
    # rocminfo's agent gives the GPU; the Vulkan list adds no second one
    text = ("*******\nAgent 2\n*******\n  Name:                    gfx1100\n  Marketing Name:          Radeon RX 7900 XTX\n"
            "  Vendor Name:             AMD\n  Device Type:             GPU\n\n"
            "ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) | uma: 0 | fp16: 1 | warp size: 64\n")
    assert len(_snap(tmp_path, text).amd_gpus) == 1
