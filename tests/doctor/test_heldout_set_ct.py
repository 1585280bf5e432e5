"""Held-out set CT (tests/data/real/1880-1885, HELDOUT.md): Vulkan and OpenCL compute back-ends on AMD GPUs
(llama.cpp's Vulkan backend on RADV, Upscayl's ncnn-Vulkan).
The misses' causes, each from the program that prints the line: Mesa's AMD winsys reports of a command submission the
kernel refused because the context was lost in a GPU reset (Mesa src/amd/vulkan/winsys/amdgpu/radv_amdgpu_cs.c,
'radv/amdgpu: The CS has been cancelled because the context is lost. This context is innocent.' / '... guilty of a
soft|hard recovery.'; radeonsi's src/gallium/winsys/amdgpu/drm/amdgpu_cs.cpp, 'amdgpu: The CS has cancelled ...'),
innocent at kernel (the reset came from the kernel's job timeout or another context), guilty at framework (this
process's own GPU work hung); and a Vulkan application's own report of VK_ERROR_DEVICE_LOST (Vulkan-Hpp's
'<call>: ErrorDeviceLost' and vk::DeviceLostError, ggml's 'ggml_vulkan: device lost on VulkanN', ncnn's
'vkQueueSubmit failed -4') at framework.  Each is tested on the fixture, on other wordings of the same source and on
near-misses that must not match."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

INNOCENT = "ct_mesa_amdgpu_cs_context_lost_innocent"
GUILTY = "ct_mesa_amdgpu_cs_context_lost_guilty"
APP = "ct_vulkan_app_device_lost"


@pytest.mark.parametrize("num,layer", [("1880", "framework"), ("1881", "kernel"), ("1882", "kernel"), ("1883", "kernel"),
                                       ("1884", "kernel"), ("1885", "framework")])
def test_the_set_ct_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("1881", INNOCENT, "kernel"), ("1885", GUILTY, "framework")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


# -- Mesa's winsys: a context lost in a GPU reset ------------------------------------------------------
@pytest.mark.parametrize("line", [
    # RADV since Mesa 24 (the fixture 1881's line)
    "radv/amdgpu: The CS has been cancelled because the context is lost. This context is innocent.",
    # RADV before the guilt was told (-ECANCELED only)
    "radv/amdgpu: The CS has been cancelled because the context is lost.",
    # radeonsi's winsys (OpenGL), its own wording
    "amdgpu: The CS has cancelled because the context is lost. This context is innocent.",
    # behind a journal prefix
    "Jul 14 10:01:02 host llama-server[4242]: radv/amdgpu: The CS has been cancelled because the context is lost. This context is innocent.",
])
def test_an_innocent_lost_context_is_kernel(line):
    found = _ids(line)
    assert INNOCENT in found and GUILTY not in found, line


@pytest.mark.parametrize("line", [
    # RADV, hard and soft recovery (1885's line, in the Markdown italics it was posted in)
    "_radv/amdgpu: The CS has been cancelled because the context is lost. This context is guilty of a hard recovery.",
    "May 01 01:05:59 steam[223306]: radv/amdgpu: The CS has been cancelled because the context is lost. This context is guilty of a soft recovery.",
    # radeonsi's wording
    "gnome-shell[1234]: amdgpu: The CS has cancelled because the context is lost. This context is guilty of a hard recovery.",
    # the sentence wrapped onto a second line by a mail or terminal
    "radv/amdgpu: The CS has been cancelled because the context is lost.\nThis context is guilty of a hard recovery.",
])
def test_a_guilty_lost_context_is_the_application(line):
    found = _ids(line)
    assert GUILTY in found and INNOCENT not in found, line


@pytest.mark.parametrize("line", [
    # the other refusal of the same function: not a lost context
    "radv/amdgpu: The CS has been rejected, see dmesg for more information (-22).",
    "radv/amdgpu: Not enough memory for command submission.",
    # a program's own prose about a lost context
    "WebGL: CONTEXT_LOST_WEBGL: loseContext: context lost",
])
def test_other_winsys_lines_are_not_a_lost_context(line):
    found = _ids(line)
    assert INNOCENT not in found and GUILTY not in found, line


# -- a Vulkan application's VK_ERROR_DEVICE_LOST -------------------------------------------------------
@pytest.mark.parametrize("line", [
    # Vulkan-Hpp's exception text, as llama.cpp relays it (1880's title, 1883's server log)
    "llama_model_load: error loading model: vk::Queue::submit: ErrorDeviceLost",
    "4.45.747.010 E srv  update_slots: decode() failed: vk::Queue::submit: ErrorDeviceLost",
    "libc++abi: terminating due to uncaught exception of type vk::DeviceLostError: vk::Device::waitForFences: ErrorDeviceLost",
    "terminate called after throwing an instance of 'vk::DeviceLostError'",
    # ggml's Vulkan backend
    "4.45.745.058 E ggml_vulkan: device lost on Vulkan0",
    "[ERROR] ggml_extend.hpp:72 - ggml_vulkan: device lost on Vulkan1 waiting for submission (nodes 1055 to 1055):",
    # ncnn (Upscayl, Real-ESRGAN, waifu2x): -4 is VK_ERROR_DEVICE_LOST
    "vkQueueSubmit failed -4",
    "🚧 UPSCAYL_PROGRESS:  vkQueueSubmit failed -4",
    "vkWaitForFences failed -4",
])
def test_a_vulkan_application_device_lost_is_named(line):
    assert APP in _ids(line), line


@pytest.mark.parametrize("line", [
    # ncnn's other failures: out of memory (-2), no driver (-9), initialization (-3)
    "vkAllocateMemory failed -2",
    "vkCreateInstance failed -9",
    "vkEnumeratePhysicalDevices failed -3",
    "vkQueueSubmit failed -42",
    # Vulkan-Hpp's other results
    "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
    # ggml's device listing
    "ggml_vulkan: 0 = AMD Radeon RX 5700 XT (RADV NAVI10) (radv) | uma: 0 | fp16: 1 | bf16: 0 | warp size: 32",
])
def test_other_vulkan_errors_are_not_device_lost(line):
    assert APP not in _ids(line), line
