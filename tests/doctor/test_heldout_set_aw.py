"""Held-out set AW (tests/data/real/1260-1266, HELDOUT.md): the newest threads outside ROCm's own trackers.
Each miss's cause fixed from the program that prints the line: Unsloth's own messages (unsloth_zoo
device_type.py, the Studio installers install.ps1 and studio/setup.ps1, Studio's llama_cpp.py) and HIP's
error names as hipGetErrorName returns them (ROCm/clr hip_error.cpp); tested on the fixture and on other
wordings of the same source, with a near-miss that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids


# -- unsloth_zoo's device check: a ROCm host whose torch has no usable accelerator (1261) -----------
def test_1261_unsloths_rocm_hint_is_named_at_framework_and_leads():
    assert_named_and_leads("1261", "s12aw_unsloth_no_usable_hip_accelerator", "framework")


@pytest.mark.parametrize("line", [
    # raised by get_device_type at import (unsloth_zoo/device_type.py)
    "NotImplementedError: Unsloth detected signs of an AMD ROCm GPU, but your current PyTorch build has no usable "
    "HIP accelerator.",
    # Studio's worker wraps it in its JSON log
    '{"timestamp": "2026-05-02T10:11:12Z", "level": "error", "event": "Failed to import ML libraries: Unsloth detected '
    'signs of an AMD ROCm GPU, but your current PyTorch build has no usable HIP accelerator."}',
])
def test_the_rocm_hint_in_its_other_forms(line):
    assert "s12aw_unsloth_no_usable_hip_accelerator" in ids(line)


@pytest.mark.parametrize("line", [
    # the same function's other refusals are not this one (no AMD runtime seen)
    "NotImplementedError: Unsloth cannot find any torch accelerator? You need a GPU.",
    "NotImplementedError: Unsloth currently only works on NVIDIA, AMD and Intel GPUs.",
])
def test_the_device_checks_other_messages_are_not_the_rocm_hint(line):
    assert "s12aw_unsloth_no_usable_hip_accelerator" not in ids(line)


# -- the Studio installer's hipinfo probe on Windows (1260) -------------------------------------------
def test_1260_the_installers_hipinfo_warning_is_named_at_framework_and_leads():
    assert_named_and_leads("1260", "s12aw_unsloth_installer_hipinfo_error", "framework")


@pytest.mark.parametrize("line", [
    # studio/setup.ps1's substep form, hipinfo's own error code
    "   [WARN] hipinfo returned a HIP runtime error (exit 100)",
    # the desktop app's diagnostics log of install.ps1
    "[1786471859792][stdout]   [WARN] hipinfo returned a HIP runtime error (exit 1)",
])
def test_the_hipinfo_warning_in_its_other_forms(line):
    assert "s12aw_unsloth_installer_hipinfo_error" in ids(line)


def test_the_installers_accepting_branch_is_not_the_warning():
    # hipinfo crashed but printed gcnArchName: the installer goes on with ROCm (the #6043 fix)
    line = ("  [INFO] hipinfo exited with code -1073741819 but reported gcnArchName -- treating as ROCm-capable "
            "(see #6043)")
    assert "s12aw_unsloth_installer_hipinfo_error" not in ids(line)


# -- Studio's bundled llama-server dying at GPU init (1265) -------------------------------------------
def test_1265_studios_gpu_init_crash_is_named_at_packaging_and_leads():
    assert_named_and_leads("1265", "s12aw_unsloth_llama_server_gpu_init_crash", "packaging")


@pytest.mark.parametrize("line", [
    # _gpu_init_crash_message's other backends' advice after the same first sentence
    "Failed to load model: llama-server crashed at startup on both the vision and text-only attempts -- a GPU "
    "driver/runtime initialization crash, not a model or vision-projector problem. This build uses Vulkan, which "
    "Unsloth selects when it detects an Intel or AMD GPU.",
    "llama-server crashed at startup on both the vision and text-only attempts -- a GPU driver/runtime "
    "initialization crash, not a model or vision-projector problem. Check the llama-server log and your GPU driver",
])
def test_the_gpu_init_crash_message_with_other_advice(line):
    assert "s12aw_unsloth_llama_server_gpu_init_crash" in ids(line)
    assert error_signatures.failure_layer("s12aw_unsloth_llama_server_gpu_init_crash") == "packaging"


@pytest.mark.parametrize("line", [
    # the same file's retry notice after one crash with flash attention on, and its model-file message
    "llama-server hard-crashed at startup (exit -11) with flash attention on; retrying once with --flash-attn off "
    "(keeps vision and MTP).",
    "Failed to load model: llama-server failed to start. Check that the GGUF file is valid and you have enough memory.",
])
def test_studios_other_startup_messages_are_not_the_gpu_init_crash(line):
    assert "s12aw_unsloth_llama_server_gpu_init_crash" not in ids(line)


# -- HIP's error names alone, as hipGetErrorName returns them (1266) ----------------------------------
def test_1266_the_error_name_in_the_title_is_named_at_hip_and_leads():
    assert_named_and_leads("1266", "hip_invalid_image", "hip")


@pytest.mark.parametrize("line, row", [
    # AMD_LOG_LEVEL=3 trace of the call that failed
    (":3:hip_module.cpp           :71  : 2827887937 us: [pid:1413 tid: 0x72af7b4e0000] hipModuleLoadData: Returned "
     "hipErrorInvalidImage : ", "hip_invalid_image"),
    # PyTorch's hint after its HIP error (hipified c10 CUDAException)
    ("Search for `hipErrorInvalidImage' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more "
     "information.", "hip_invalid_image"),
    (":3:hip_error.cpp            :36  : 91823 us: [pid:77 tid: 0x7f00] hipGetLastError: Returned hipErrorLaunchFailure : ",
     "hip_launch_failure"),
    ("err=hipErrorLaunchFailure", "hip_launch_failure"),
])
def test_hips_error_names_name_their_rows(line, row):
    assert row in ids(line)


@pytest.mark.parametrize("line, row", [
    # other errors whose names contain the words: a prior launch failure, an invalid device
    ("hipStreamSynchronize: Returned hipErrorPriorLaunchFailure", "hip_launch_failure"),
    ("hipSetDevice: Returned hipErrorInvalidDevice", "hip_invalid_image"),
])
def test_neighbouring_error_names_are_not_these_rows(line, row):
    assert row not in ids(line)


def test_rocblas_quoting_the_name_stays_rocblas_own_row():
    # rocBLAS logs the HIP error it got inside its own message: that line is rocBLAS's (libraries), not HIP's
    line = "rocBLAS error from hip error code: 'hipErrorInvalidImage':200"
    found = ids(line)
    assert "rocblas_hip_error_logged" in found and "hip_invalid_image" not in found
