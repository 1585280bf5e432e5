"""Held-out set AL (tests/data/real/1040-1047, HELDOUT.md): help requests of 2026 where the user pastes the
output inside their own sentences.  The misses were fixed from the programs' own messages: Windows' loader
texts (STATUS_ENTRYPOINT_NOT_FOUND, STATUS_DLL_NOT_FOUND), the HIP runtime DLL named beside HIP's 'no
ROCm-capable device', the compute node listed as root:root, and Ollama's ggml reporting under 4 GiB of AMD
memory with no layer offloaded.  Each row is tested on the fixture, on other wordings of the same source, and
on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids


@pytest.mark.parametrize("num,row,layer", [
    ("1040", "s11al_hip_runtime_dll_no_rocm_device", "packaging"),
    ("1041", "s11al_ggml_amd_memory_small_zero_offload", "framework"),
    ("1043", "s11al_kfd_node_group_root", "runtime"),
    ("1046", "s11al_windows_loader_dll_not_found", "packaging"),
    ("1047", "s11al_windows_entry_point_not_found", "packaging"),
])
def test_the_set_al_fixtures_are_named_and_lead(num, row, layer):
    assert_named_and_leads(num, row, layer)


# -- Windows' loader: an entry point missing from a DLL (1047) ---------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's line, retyped from the dialog
    "The procedure entry point rocblas_ctrmm_outofplace could not be located in the dynamic link library "
    "C:\\Program Files\\AMD\\ROCm\\5.7\\bin\\hipblas.dll.",
    # a C++-mangled entry point, the program itself as the 'library' (the dialog's other form)
    "The procedure entry point ?expected_function@@YAXXZ could not be located in the dynamic link library "
    "c:\\local\\bin\\MissingSymbol.exe.",
    # the ordinal form of the same NTSTATUS table
    "The ordinal 401 could not be located in the dynamic link library OLEAUT32.dll.",
    # a HIP runtime of another release
    "The procedure entry point hipMemGetInfo could not be located in the dynamic link library amdhip64_6.dll",
])
def test_windows_entry_point_not_found_is_named(line):
    assert "s11al_windows_entry_point_not_found" in _ids(line), line


def test_entry_point_row_is_packaging_and_near_misses_are_not_it():
    rid = "s11al_windows_entry_point_not_found"
    assert error_signatures.failure_layer(rid) == "packaging"
    # the dialog's title alone names no DLL
    assert rid not in _ids("sdcpp.exe - Entry Point Not Found")
    # a DLL that was found and loaded
    assert rid not in _ids("Loaded 'C:\\Program Files\\AMD\\ROCm\\5.7\\bin\\hipblas.dll'. Symbols loaded.")


# -- Windows' loader: a DLL not found (1046) ---------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's sentence
    "When starting sd-server.exe, hipblas.dll is not found (rocm-preview variant "
    "sd-master-ab6afe8-bin-win-rocm-7.12.0-x64.zip).",
    # the loader's dialog (STATUS_DLL_NOT_FOUND)
    "The code execution cannot proceed because amdhip64_7.dll was not found. Reinstalling the program may fix "
    "this problem.",
    # the older Windows wording
    "This application has failed to start because rocblas.dll was not found. Re-installing the application may "
    "fix this problem.",
])
def test_windows_dll_not_found_is_named(line):
    assert "s11al_windows_loader_dll_not_found" in _ids(line), line


def test_dll_not_found_row_is_packaging_and_near_misses_are_not_it():
    rid = "s11al_windows_loader_dll_not_found"
    assert error_signatures.failure_layer(rid) == "packaging"
    # a DLL that is found
    assert rid not in _ids("HIP Library Path: C:\\llama\\amdhip64_7.dll found")
    # a data file, not a DLL
    assert rid not in _ids("TensileLibrary.dat was not found")
    # the word 'not found' about something else on a line naming a DLL
    assert rid not in _ids("hipblas.dll loaded; model file not found")


# -- the HIP runtime DLL beside 'no ROCm-capable device' (1040) ---------------------------------------------
@pytest.mark.parametrize("text", [
    # the fixture: the failing line in the user's sentence, the DLL on the next line
    "since bf1234 i get error “ ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected”.\n"
    "if i copy amdhip64_7.dll from bf1233 to bf1234 (or newer) i dont get this error, all is working fine.",
    # llamacpp-rocm's Windows build prints the runtime's path before ggml's line (llamacpp-rocm#3)
    "HIP Library Path: C:\\Users\\me\\llama-b1007-windows-rocm-gfx120X-x64\\amdhip64_7.dll\n"
    "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
    "warning: no usable GPU found, --gpu-layers option will be ignored",
    # hipInfo's own error with the older runtime's name a few lines below
    "checkHipErrors() HIP API error = 0100 \"no ROCm-capable device is detected\"\n"
    "C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\amdhip64_6.dll",
])
def test_hip_runtime_dll_with_no_device_is_named(text):
    assert "s11al_hip_runtime_dll_no_rocm_device" in _ids(text), text


def test_runtime_dll_row_needs_both_close_together():
    rid = "s11al_hip_runtime_dll_no_rocm_device"
    assert error_signatures.failure_layer(rid) == "packaging"
    # the HIP error alone (Linux, no DLL): the hip layer's rows, not this one
    assert rid not in _ids("ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected")
    # the DLL alone
    assert rid not in _ids("HIP Library Path: C:\\llama\\amdhip64_7.dll")
    # the two far apart are not one statement
    far = ("HIP Library Path: C:\\llama\\amdhip64_7.dll\n" + "\n".join("line %d" % i for i in range(10))
           + "\nno ROCm-capable device is detected")
    assert rid not in _ids(far)


# -- /dev/kfd owned by root:root (1043) -------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's line
    "- `/dev/kfd` = `crw-rw---- root root` after boot; `hal0` cannot read it.",
    # ls -l's own form
    "crw-rw---- 1 root root 511, 0 Jun  2 10:00 /dev/kfd",
    # ls -l of an SELinux host (the dot after the mode)
    "crw-rw----. 1 root root 236, 0 Jul 23 18:21 /dev/kfd",
])
def test_kfd_owned_by_root_group_is_named(line):
    assert "s11al_kfd_node_group_root" in _ids(line), line


def test_kfd_row_is_runtime_and_near_misses_are_not_it():
    rid = "s11al_kfd_node_group_root"
    assert error_signatures.failure_layer(rid) == "runtime"
    # the normal ownership
    assert rid not in _ids("crw-rw---- 1 root render 236, 0 Jul 23 18:21 /dev/kfd")
    # mode 0666: everyone may open it
    assert rid not in _ids("crw-rw-rw- 1 root root 236, 0 Jul 23 18:21 /dev/kfd")
    # a render node owned by root:root is another device
    assert rid not in _ids("crw-rw---- 1 root root 226, 128 Jul 23 18:21 /dev/dri/renderD128")


# -- Ollama's ggml: AMD memory under 4 GiB and no layer offloaded (1041) -----------------------------------
@pytest.mark.parametrize("text", [
    # the fixture's lines (ollama-for-amd on Windows, ADLX)
    "ggml_backend_cuda_device_get_memory device 0000:63:00.0 utilizing AMD specific memory reporting free: "
    "296747008 total: 1073741824\nload_tensors: offloading 0 repeating layers to GPU\n"
    "load_tensors: offloaded 0/29 layers to GPU",
    # Ollama's own log on Linux, the loader's lines between and its slog form of the offload line
    "ggml_backend_cuda_device_get_memory device 0000:c3:00.0 utilizing AMD specific memory reporting free: "
    "402653184 total: 536870912\n"
    "llama_model_loader: loaded meta data with 34 key-value pairs and 288 tensors\n"
    "time=2026-05-20T19:18:03.000-03:00 level=INFO source=ggml.go:494 msg=\"offloaded 0/36 layers to GPU\"",
])
def test_small_amd_memory_with_no_offload_is_named(text):
    assert "s11al_ggml_amd_memory_small_zero_offload" in _ids(text), text


def test_amd_memory_row_is_framework_and_near_misses_are_not_it():
    rid = "s11al_ggml_amd_memory_small_zero_offload"
    assert error_signatures.failure_layer(rid) == "framework"
    # a discrete card with 8 GiB reported and no layer offloaded (the model's own choice): not this
    assert rid not in _ids(
        "ggml_backend_cuda_device_get_memory device 0000:12:00.0 utilizing AMD specific memory reporting free: "
        "7877861376 total: 8573157376\nload_tensors: offloaded 0/29 layers to GPU")
    # a small report but layers offloaded
    assert rid not in _ids(
        "ggml_backend_cuda_device_get_memory device 0000:63:00.0 utilizing AMD specific memory reporting free: "
        "296747008 total: 1073741824\nload_tensors: offloaded 29/29 layers to GPU")
    # the memory line alone
    assert rid not in _ids(
        "ggml_backend_cuda_device_get_memory device 0000:63:00.0 utilizing AMD specific memory reporting free: "
        "296747008 total: 1073741824")
