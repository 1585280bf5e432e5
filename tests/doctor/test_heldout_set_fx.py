"""Held-out set FX (tests/data/real/2790-2794, HELDOUT.md): a second theme-neutral sample of Ollama's AMD GPU issues of
2025-2026.  Three rows were added, each from the printing program's source:

* ``fx_mesa_winsys_cs_not_enough_memory`` -- Mesa's AMD winsys (RADV src/amd/vulkan/winsys/amdgpu/radv_amdgpu_cs.c,
  radeonsi src/gallium/winsys/amdgpu/drm/amdgpu_cs.c, the old radeon winsys) printing
  '<winsys>: Not enough memory for command submission.' when the kernel refuses a submission with -ENOMEM (2790);
  the kernel's own '*ERROR* Not enough memory for command submission!' stays kernel_cs_not_enough_memory.
* ``fx_windows_access_violation_code_and_name`` -- STATUS_ACCESS_VIOLATION told by its code and its name together
  (the Windows debugger's '0xC0000005: Access violation reading location', crash reporters' 'Exception 0xC0000005
  (access violation)', 'EXCEPTION_ACCESS_VIOLATION (C0000005)'), the exit-code forms being ff_windows_exit_code_access_violation
  (2791).
* ``fx_ollama_gpu_found_zero_layers_offloaded`` -- Ollama's 'msg="offloaded 0/N layers to GPU"'
  (ml/backend/ggml/ggml.go) or the message quoted on its own: Ollama chose to put no layer on the GPU (2794); llama.cpp's
  own 'load_tensors: offloaded 0/N' lines (its -ngl default) are left alone.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num", ["2790", "2791", "2792", "2793", "2794"])
def test_the_set_fx_fixtures_lead_at_framework(num):
    assert _lead_layer(_fixture(num)) == "framework"


@pytest.mark.parametrize("num,row", [
    ("2790", "fx_mesa_winsys_cs_not_enough_memory"),
    ("2791", "fx_windows_access_violation_code_and_name"),
    ("2794", "fx_ollama_gpu_found_zero_layers_offloaded"),
])
def test_each_new_row_names_its_fixture_and_leads(num, row):
    assert_named_and_leads(num, row, "framework")


MESA = "fx_mesa_winsys_cs_not_enough_memory"


@pytest.mark.parametrize("text", [
    # ollama/ollama#18272 (2026-09, Renoir iGPU, RADV): Ollama's error with the runner's stderr
    "Error: 500 Internal Server Error: llama-server process has terminated: exit status 1: radv/amdgpu: Not enough "
    "memory for command submission.",
    # ggml-org/llama.cpp#25080 (2026-06, gfx1150 Strix Point, RADV STRIX1)
    "radv/amdgpu: Not enough memory for command submission.\n"
    "terminate called after throwing an instance of 'vk::DeviceLostError'",
    # radeonsi's winsys (Mesa src/gallium/winsys/amdgpu/drm/amdgpu_cs.c) and the old radeon winsys' wording
    "amdgpu: Not enough memory for command submission.",
    "radeon: Not enough memory for command submission.",
])
def test_mesa_winsys_row_reads_its_wordings(text):
    assert MESA in ids(text)
    assert error_signatures.failure_layer(MESA) == "framework"


@pytest.mark.parametrize("text", [
    # the kernel's own line (amdgpu_cs.c), which kernel_cs_not_enough_memory reads
    "[   42.123456] amdgpu 0000:03:00.0: [drm] *ERROR* Not enough memory for command submission!",
    # another winsys message of RADV (a buffer allocation, its own row)
    "radv/amdgpu: Failed to allocate a buffer:",
    # prose that names the message without the winsys
    "The log says there is not enough memory for command submission on my card.",
])
def test_mesa_winsys_row_leaves_other_lines(text):
    assert MESA not in ids(text)


AV = "fx_windows_access_violation_code_and_name"


@pytest.mark.parametrize("text", [
    # the Windows debugger's form (a WWAHost.exe crash report the code index holds)
    "Unhandled exception at 0x00007FF69C37210A in WWAHost.exe: 0xC0000005: Access violation reading location "
    "0x0000000000000000.",
    # a crash reporter's form (Vegas Movie Studio's log on pastebin.com/index/Cf4Ae9Az)
    "Exception 0xC0000005 (access violation) READ:0x3FED38 IP:0x73B7500A",
    # Visual FoxPro's application error (jeffpar/kbarchive kb/222/Q222136)
    "Exception: access violation (0xc0000005),Address 0x005a8b20",
    # the exception's symbolic name with its code (pastebin.com/WKdyiaFU)
    "Unhandled exception: EXCEPTION_ACCESS_VIOLATION (C0000005)",
])
def test_access_violation_row_reads_its_wordings(text):
    assert AV in ids(text)
    assert error_signatures.failure_layer(AV) == "framework"


@pytest.mark.parametrize("text", [
    "Python process exited with code 3221225477 and signal null",   # the exit-code form: ff_windows_exit_code_...
    "An access violation occurs when code reads memory it does not own.",  # prose, no code
    "Exception 0xC0000006 (in-page error)",                          # another NTSTATUS
])
def test_access_violation_row_leaves_other_lines(text):
    assert AV not in ids(text)


ZERO = "fx_ollama_gpu_found_zero_layers_offloaded"


def test_zero_offload_row_reads_ollamas_slog_form():
    # the form of ollama/ollama#12908's 'source=ggml.go:502 msg="offloaded 40/41 layers to GPU"' with no layer offloaded
    text = 'time=2026-05-08T22:38:54.408Z level=INFO source=ggml.go:502 msg="offloaded 0/41 layers to GPU"'
    assert ZERO in ids(text)


@pytest.mark.parametrize("text", [
    # ollama/ollama#12908 (2026-05): a load that offloads
    'time=2026-05-08T22:38:54.408Z level=INFO source=ggml.go:502 msg="offloaded 40/41 layers to GPU"',
    # llama.cpp's own line without -ngl (1742, a healthy fixture)
    "llm_load_tensors: offloaded 0/37 layers to GPU",
    # llama.cpp's newer prefix (1041 is read by s11al_ggml_amd_memory_small_zero_offload, not by this row)
    "load_tensors: offloaded 0/29 layers to GPU",
])
def test_zero_offload_row_leaves_other_lines(text):
    assert ZERO not in ids(text)
