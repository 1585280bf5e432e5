"""Held-out set CU (tests/data/real/1900-1903, HELDOUT.md): programs that run but not on the AMD GPU.
Each miss's cause fixed from the program that prints the line: llama.cpp's --list-devices (common/arg.cpp
common_print_available_devices: 'Available devices:', then one line per non-CPU device, '  (none)' since
ggml-org/llama.cpp#26170, nothing before it) and ONNX Runtime's provider list (InferenceSession.get_providers(),
get_available_providers(), the warning of check_and_normalize_provider_args), as programs print it; tested on the
fixtures, on other wordings of the same sources and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

LIST = "cu_llama_list_devices_none"
ORT = "cu_ort_cpu_provider_only"


# -- llama.cpp lists no GPU device (1901, 1903) ------------------------------------------------------
@pytest.mark.parametrize("num", ["1901", "1903"])
def test_the_empty_device_list_is_named_and_leads_at_framework(num):
    assert_named_and_leads(num, LIST, "framework")


@pytest.mark.parametrize("text", [
    # the current source: the empty list says so
    "Available devices:\n  (none)\n",
    # under a shell prompt, nothing after it (older builds print the header alone)
    "root@4c4b93019ee6:/app# ./llama-server --list-devices\nAvailable devices:\n",
    # llama-cli on Windows, the backends it loaded above the header, then a blank line
    "load_backend: loaded RPC backend from C:\\llama\\ggml-rpc.dll\n"
    "load_backend: loaded CPU backend from C:\\llama\\ggml-cpu-icelake.dll\nAvailable devices:\n\nPS C:\\llama>",
    # llama-bench's option, the command and its empty answer
    "$ ./llama-bench --list-devices\nAvailable devices:",
])
def test_llamas_empty_device_list_in_its_wordings(text):
    assert LIST in _ids(text), text


@pytest.mark.parametrize("text", [
    # a list with a device: the GPU was found
    "$ ./llama-server --list-devices\nAvailable devices:\n  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)\n",
    # the index's copy without the indent
    "./llama-server --list-devices\nAvailable devices:\nVulkan0: AMD Radeon 780M Graphics (RADV PHOENIX) (29696 MiB, 28598 MiB free)\n",
    # another program's header (a libpcap sample) with an empty list and no llama.cpp line around it
    "Finding available devices ... Done\nAvailable devices:\n\nSelect the device. ",
    # OpenVINO's hello_query_device lists its devices under the same header
    "Available devices:\n  CPU\n  GPU.0\n",
])
def test_a_list_with_devices_or_another_programs_header_is_not_it(text):
    assert LIST not in _ids(text), text


def test_the_device_list_row_is_llamas_at_framework():
    assert error_signatures.failure_layer(LIST) == "framework"


# -- ONNX Runtime's session on the CPU only (1900) ---------------------------------------------------
def test_the_cpu_only_provider_list_is_named_and_leads_at_framework():
    assert_named_and_leads("1900", ORT, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (kirkify.py prints the session's providers)
    "INSwapper active providers: ['CPUExecutionProvider']```",
    # insightface's model_zoo, for each model it loads
    "Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}",
    # print('providers:', sess.get_providers()) and the build's list
    "providers: ['CPUExecutionProvider']",
    "Available providers: [\"CPUExecutionProvider\"]",
    # ONNX Runtime's own warning when the application asks for CUDA on a CPU-only build
    "onnxruntime_inference_collection.py:69: UserWarning: Specified provider 'CUDAExecutionProvider' is not in "
    "available provider names.Available providers: 'CPUExecutionProvider'",
])
def test_onnx_runtimes_cpu_only_provider_list_in_its_wordings(line):
    assert ORT in _ids(line), line


@pytest.mark.parametrize("line", [
    # a session with the ROCm or MIGraphX provider first: the GPU is used
    "Applied providers: ['ROCMExecutionProvider', 'CPUExecutionProvider'], with options: {}",
    "providers: ['MIGraphXExecutionProvider', 'CPUExecutionProvider']",
    "Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: "
    "'ROCMExecutionProvider, CPUExecutionProvider'",
    # code that chooses the CPU on purpose, not a session's report
    "sess = ort.InferenceSession(path, providers=['CPUExecutionProvider'])",
])
def test_a_gpu_provider_or_code_choosing_the_cpu_is_not_it(line):
    assert ORT not in _ids(line), line


def test_a_rocm_request_the_build_lacks_stays_with_its_own_row():
    line = ("UserWarning: Specified provider 'ROCMExecutionProvider' is not in available provider names."
            "Available providers: 'CPUExecutionProvider'")
    found = _ids(line)
    assert "ort_amd_provider_not_available" in found and ORT not in found
