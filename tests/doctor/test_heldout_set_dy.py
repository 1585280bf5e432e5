"""Held-out set DY (tests/data/real/2390-2393, HELDOUT.md): LLM front-ends and back-ends other than Ollama and vLLM on
AMD GPUs (KoboldCpp and koboldcpp-rocm, text-generation-webui, LocalAI).  2390-2392 led at their labelled layer on the
unchanged code; 2393 (KoboldCpp's Vulkan back-end on Windows with a broken Vulkan driver) had only unrecognised lines.
Its fixes, read from the printing programs' sources:

* KoboldCpp's own report that its GPU probe (koboldcpp.py fetch_gpu_properties: nvidia-smi, rocminfo with rocm-smi,
  vulkaninfo, clinfo) found no GPU memory, 'Unable to detect VRAM[...]' and 'Unable to determine GPU Memory'
  (kcpp_main_process), a warning at framework: `dy_koboldcpp_gpu_memory_undetected`;
* the Vulkan loader finding no driver ('vkCreateInstance: Found no drivers!', KhronosGroup/Vulkan-Loader loader/loader.c)
  and vulkaninfo's report of it (KhronosGroup/Vulkan-Tools vulkaninfo/vulkaninfo.h): `dy_vulkan_loader_no_driver`;
* the loader's Windows warning that the registry holds no layer manifests (loader/loader_windows.c
  windows_read_data_files_in_registry, after which it returns success) is benign in failure_lines.toml."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems as _problems

KOBOLD = "dy_koboldcpp_gpu_memory_undetected"
VULKAN = "dy_vulkan_loader_no_driver"


@pytest.mark.parametrize("num,layer", [("2390", "framework"), ("2391", "hip"), ("2392", "libraries"),
                                       ("2393", "framework")])
def test_the_set_dy_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_rows_sit_at_framework():
    assert error_signatures.failure_layer(KOBOLD) == "framework"
    assert error_signatures.failure_layer(VULKAN) == "framework"


@pytest.mark.parametrize("line", [
    "Unable to detect VRAM.",                                              # 2393 (koboldcpp#2100, KoboldCpp 1.10x)
    "Unable to determine GPU Memory",                                      # 2393, beside 'Detected Available GPU Memory'
    "Unable to detect VRAM, please set layers manually.",                  # 2392 (koboldcpp-rocm 1.82.4); koboldcpp#1748
    "Unable to detect VRAM, but autofit may still be used if applicable.",  # koboldcpp.py of 2026 (kcpp_main_process)
])
def test_koboldcpps_undetected_gpu_memory_is_named(line):
    assert KOBOLD in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    "Detected Available GPU Memory: 16304 MB",                             # the probe's success line
    "Unable to determine available RAM",                                   # psutil missing, not the GPU
    "No GPU backend found, or could not automatically determine GPU layers. You may prefer to set layers manually.",
    "I keep getting Unable to detect VRAM when I start it",                # prose
])
def test_koboldcpp_lookalikes_are_not_named(line):
    assert KOBOLD not in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    "vkCreateInstance: Found no drivers!",                                  # Vulkan-Loader loader.c's format
    "ERROR: [Loader Message] Code 0 : vkCreateInstance: Found no drivers!",  # the loader's stderr log prefix
    "Warning: vkCreateInstance: Found no drivers!",                         # relayed by Dawn (WebGPU) in an app's log
    "This problem is often caused by a faulty installation of the Vulkan driver or attempting to use a GPU that does not "
    "support Vulkan.",                                                      # vulkaninfo.h, under 'Cannot create ...'
    "Warning: vkCreateInstance failed with VK_ERROR_INCOMPATIBLE_DRIVER",   # Dawn's VulkanError.cpp wording
])
def test_the_vulkan_loaders_missing_driver_is_named(line):
    assert VULKAN in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    # 542's RADV/Turnip failure to open the render node: a device access, read by its own row
    "TU: error: ../src/freedreno/vulkan/tu_knl.cc:387: failed to open device /dev/dri/renderD128 "
    "(VK_ERROR_INCOMPATIBLE_DRIVER)",
    "vkCreateInstance failed with ERROR_LAYER_NOT_PRESENT",
    "ggml_vulkan: Found 1 Vulkan devices:",
])
def test_vulkan_lookalikes_are_not_named(line):
    assert VULKAN not in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    "WARNING: [Loader Message] Code 0 : windows_read_data_files_in_registry: Registry lookup failed to get layer "
    "manifest files.",                                                      # 2393's vulkaninfo64.exe run
    "windows_read_data_files_in_registry: Registry lookup failed to get data files.",
])
def test_the_loaders_registry_warning_is_not_a_failure(line):
    assert not failure_lines.looks_like_failure(line)


def test_a_vulkaninfo_without_a_driver_leads_at_framework(tmp_path):
    found = _problems(doctor_files(tmp_path, {"vulkaninfo.txt": (
        "ERROR: [Loader Message] Code 0 : vkCreateInstance: Found no drivers!\n"
        "Cannot create Vulkan instance.\n"
        "This problem is often caused by a faulty installation of the Vulkan driver or attempting to use a GPU that "
        "does not support Vulkan.\n")}))
    assert found and found[0][1] == "framework"
