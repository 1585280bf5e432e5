"""Held-out set AI (tests/data/real/990-995, HELDOUT.md): upgrading older ROCm installs.
The misses shared one cause, a HIP runtime of another ROCm release loaded in place of the one the program was
built and shipped with (on Windows the display driver's amdhip64_7.dll in System32 against TheRock's copy).
Fixed from the programs' own messages: llama.cpp's device-memory query warning (ggml-cuda.cu,
ggml_backend_cuda_device_get_memory) and a paste naming amdhip64_N.dll with its System32 copy; each tested on
the fixture, on other wordings of the same source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

PROBLEM = ("warning", "error", "critical")


@pytest.mark.parametrize("num", ["990", "991", "992"])
def test_the_mixed_runtime_fixtures_lead_at_packaging(num):
    diag = diagnose(detect_snapshot(str(_fixture(num))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("known-failure", "packaging") in found, found
    assert _lead_layer(_fixture(num)) == "packaging"


# -- llama.cpp's device-memory query fails (990) -----------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's line, with llama.cpp's timestamp and level prefix
    "0.00.906.468 W ggml_backend_cuda_device_get_memory: cudaMemGetInfo failed (invalid argument), returning 0/0",
    # as quoted without the prefix
    "W ggml_backend_cuda_device_get_memory: cudaMemGetInfo failed (invalid argument), returning 0/0",
    # under a service manager
    "Aug 12 10:00:01 host llama-server[4711]: ggml_backend_cuda_device_get_memory: cudaMemGetInfo failed "
    "(invalid argument), returning 0/0",
    # the HIP name of the call and another status of the same kind
    "ggml_backend_cuda_device_get_memory: hipMemGetInfo failed (invalid device ordinal), returning 0/0",
])
def test_llamas_memory_query_failure_is_named(line):
    assert "s10ai_ggml_device_memory_query_failed" in _ids(line), line


def test_the_memory_query_row_is_at_packaging_and_near_misses_are_not_it():
    assert error_signatures.failure_layer("s10ai_ggml_device_memory_query_failed") == "packaging"
    # an out-of-memory status of the same call is not a runtime mismatch
    assert "s10ai_ggml_device_memory_query_failed" not in _ids(
        "ggml_backend_cuda_device_get_memory: cudaMemGetInfo failed (out of memory), returning 0/0")
    # llama.cpp's ordinary device line is not a failure
    assert "s10ai_ggml_device_memory_query_failed" not in _ids(
        "llama_model_load_from_file_impl: using device ROCm0 (AMD Radeon RX 7900 XTX) - 24560 MiB free")


# -- the HIP runtime DLL named with its System32 copy (991, 992) -------------------------------------
@pytest.mark.parametrize("text", [
    # 991: the user's table, the DLL in its header and System32 three lines below
    "| `amdhip64_7.dll` | Version | Source |\n|---|---|---|\n"
    "| Copied by lemond into `llamacpp\\rocm-stable\\` | **10.0.3581** | TheRock 7.14.0 |\n"
    "| In `System32` (from installed AMD driver 32.0.31035.1003) | **10.0.3679** | newer, driver-matched |",
    # 992: one line
    "Driver: Adrenalin, `amdhip64_7.dll` v. dated 2026-07-24 present in `C:\\Windows\\System32`.",
    # `where` output listing both copies
    "C:\\>where amdhip64_7.dll\nC:\\llama\\amdhip64_7.dll\nC:\\Windows\\System32\\amdhip64_7.dll",
    # the older HIP 6 name, the driver's copy named after it
    "amdhip64_6.dll version 6.1 (from C:\\Windows\\System32, the driver's)",
])
def test_the_runtime_dll_with_its_system32_copy_is_named(text):
    assert "s10ai_hip_runtime_dll_two_copies" in _ids(text), text


def test_the_dll_row_needs_both_and_stays_within_a_few_lines():
    rid = "s10ai_hip_runtime_dll_two_copies"
    assert error_signatures.failure_layer(rid) == "packaging"
    # the DLL alone (a copy next to the program) is no conflict
    assert rid not in _ids("Copy-Item C:\\TheRock\\build\\bin\\amdhip64_7.dll .\\")
    # System32 alone names no HIP runtime
    assert rid not in _ids("C:\\Windows\\System32\\vulkan-1.dll loaded")
    # the two far apart (more than a few lines) are not one statement
    far = "amdhip64_7.dll found\n" + "\n".join("line %d" % i for i in range(12)) + "\nC:\\Windows\\System32 scanned"
    assert rid not in _ids(far)
