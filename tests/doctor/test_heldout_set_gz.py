"""Held-out set GZ (tests/data/real/3070-3073, HELDOUT.md): a theme-neutral sample of the local LLM servers' and
bindings' AMD GPU issues (LocalAI, gpt4all, llama-cpp-python).  All four fixtures lead at their layer on the unchanged
code (3070 torch's 'No HIP GPUs are available' relayed by LocalAI, 3071 rocBLAS' missing TensileLibrary.dat in
LocalAI's image, 3072 gpt4all's Vulkan exception, 3073 a cut ggml HIP error under its title).  3072 led only through
the catch-all; a catalogue row now names its cause: a Vulkan-Hpp program's exception when the loader gives it no
working driver (KhronosGroup/Vulkan-Hpp vulkan.hpp: a failed vkCreateInstance / vkEnumeratePhysicalDevices thrown as
'<call>: ErrorInitializationFailed' or 'ErrorIncompatibleDriver'; gpt4all's Kompute backend prints it in
ggml_vk_available_devices_internal, 'ignoring Vulkan exception: %s')."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "gz_vulkan_instance_no_driver"


@pytest.mark.parametrize("num,layer", [("3070", "runtime"), ("3071", "libraries"), ("3073", "hip")])
def test_the_set_gz_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_gpt4all_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3072", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (nomic-ai/gpt4all#1990, gpt4all's Python bindings 2.2.1 on Ubuntu 22.04, Kompute backend)
    "ggml_vk_available_devices_internal: ignoring Vulkan exception: vk::Instance::enumeratePhysicalDevices: "
    "ErrorInitializationFailed",
    # llama.cpp's Vulkan build on a machine without a Vulkan driver (ggml-org/llama.cpp#11493), both lines of it
    "terminate called after throwing an instance of 'vk::IncompatibleDriverError'",
    "  what():  vk::createInstance: ErrorIncompatibleDriver",
    # a Vulkan-Hpp compute library's examples on macOS without a driver (Glavnokoman/vuh#67)
    "libc++abi: terminating with uncaught exception of type vk::IncompatibleDriverError: vk::createInstance: "
    "ErrorIncompatibleDriver",
    # Vulkan-Hpp's unique-handle variant of the same call (vulkan.hpp: resultCheck(..., "vk::createInstanceUnique"))
    "vk::createInstanceUnique: ErrorInitializationFailed",
])
def test_the_row_reads_vulkan_hpps_no_driver_exceptions(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # a device lost after a hang: another row (ct_vulkan_app_device_lost), not a missing driver (fixture 2695)
    "llama_model_load: error loading model: vk::Queue::submit: ErrorDeviceLost",
    # a device created without an extension it needs (ggml-org/llama.cpp#14559): a driver is there
    "0.00.165.104 E llama_model_load: error loading model: vk::PhysicalDevice::createDevice: ErrorExtensionNotPresent",
    # ggml-vulkan's device line: a driver found and a device listed
    "ggml_vulkan: 0 = AMD Radeon RX 6700 XT (RADV NAVI22) | uma: 0 | fp16: 1 | warp size: 64",
])
def test_near_misses_do_not_match_the_row(line):
    assert ROW not in _ids(line)
