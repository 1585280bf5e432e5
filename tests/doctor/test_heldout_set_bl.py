"""Held-out set BL (tests/data/real/1540-1546, HELDOUT.md): long noisy logs with the failure buried.  The lines read
from the programs that print them: HIP's hipErrorIllegalAddress as a program's own HIP check prints it (ggml's
'ROCm error: %s', torch's 'HIP error: %s'; ROCm/clr hip_error.cpp's string) is the memory-access-fault rule's at the
program's layer, ggml's abort line ('ggml-cuda.cu:N: ROCm error') only names where ggml stopped; vLLM's
DeviceConfig error (vllm/config/device.py), ggml's alloc_tensor_range (ggml/src/ggml-alloc.c) and systemd's unit
result lines (src/core/unit.c, src/core/service.c, information)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, doctor_files, fixture, ids as _ids, lead_layer, problems

VLLM = "bl_vllm_failed_to_infer_device_type"
GGML_TENSOR = "bl_ggml_failed_to_initialize_tensor"
SYSTEMD = "bl_systemd_unit_failed_with_result"


@pytest.mark.parametrize("num,row,layer", [
    ("1543", VLLM, "framework"),
    ("1541", GGML_TENSOR, "framework"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


# ---- HIP's illegal-address error through a program's HIP check: the memory-access-fault rule, at the program's layer

@pytest.mark.parametrize("num", ["1540", "930"])
def test_the_illegal_address_of_a_ggml_program_is_a_fault_at_the_framework(num):
    diag_problems = problems(__import__("rwtest.realrun", fromlist=["x"]).diagnosis(fixture(num)))
    assert diag_problems[0] == ("memory-access-fault", "framework"), diag_problems
    # ggml's abort line ('ggml-cuda.cu:N: ROCm error') is not reported at hip beside it
    assert ("known-failure", "hip") not in diag_problems


@pytest.mark.parametrize("text", [
    # torch's HIP check (c10/hip: 'HIP error: %s')
    "torch.AcceleratorError: HIP error: an illegal memory access was encountered\n"
    "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n",
    # ggml's two lines in a plain llama-server log
    "/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:94: ROCm error\nROCm error: an illegal memory access was encountered\n",
    # a HIP program printing the error name
    "hipDeviceSynchronize failed: hipErrorIllegalAddress\n",
])
def test_other_wordings_of_the_illegal_address_are_a_fault_at_the_framework(tmp_path, text):
    diag = doctor_files(tmp_path, {"log.txt": text})
    assert problems(diag)[0] == ("memory-access-fault", "framework"), problems(diag)


def test_ro_crs_own_fault_line_keeps_the_fault_at_runtime(tmp_path):
    # ROCr's own report (and HIP's error code after it): the runtime's line, runtime as before
    diag = doctor_files(tmp_path, {"log.txt":
        "Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address 0x7f2a53193000. "
        "Reason: Page not present or supervisor privilege.\n"
        "ROCm error: an illegal memory access was encountered\n"})
    assert problems(diag)[0] == ("memory-access-fault", "runtime"), problems(diag)


def test_a_ggml_abort_line_without_its_reason_is_still_reported(tmp_path):
    # the header alone (the reason line not pasted) is not dropped
    diag = doctor_files(tmp_path, {"log.txt": "/build/ggml/src/ggml-cuda/ggml-cuda.cu:103: ROCm error\n"})
    assert ("known-failure", "hip") in problems(diag), problems(diag)


@pytest.mark.parametrize("line", [
    # prose and CUDA's own wording on an NVIDIA card are not HIP's error through a program's check
    "the docs say an illegal memory access may mean a bad pointer",
])
def test_near_misses_are_not_the_illegal_address(line):
    assert "hip_illegal_address" not in _ids(line), line


# ---- vLLM's device detection

@pytest.mark.parametrize("line", [
    # the title of 1543
    "[Bug]: 0.19.0 rocm+7900xtx： Failed to infer device type",
    # vllm/config/device.py since 2025, as the traceback's last line
    "RuntimeError: Failed to infer device type, please set the environment variable `VLLM_LOGGING_LEVEL=DEBUG` "
    "to turn on verbose logging to help debug the issue.",
    # the older vllm/config.py wording inside an engine log
    "(APIServer pid=12) RuntimeError: Failed to infer device type",
])
def test_vllm_failed_to_infer_device_type_is_named(line):
    assert VLLM in _ids(line), line


@pytest.mark.parametrize("line", [
    "Failed to infer dtype from the checkpoint, using float16",
    "could not infer the device type of the tensor",
])
def test_near_misses_are_not_the_vllm_row(line):
    assert VLLM not in _ids(line), line


def test_the_vllm_row_is_at_framework():
    assert error_signatures.failure_layer(VLLM) == "framework"


# ---- ggml's tensor allocator

@pytest.mark.parametrize("line", [
    "alloc_tensor_range: failed to initialize tensor output.weight",
    "alloc_tensor_range: failed to initialize tensor blk.0.attn_q.weight",
    "ggml_backend_alloc_ctx_tensors_from_buft_impl: failed to initialize tensor token_embd.weight",
    "Jul 02 10:05:09 host ollama[123]: alloc_tensor_range: failed to initialize tensor leaf_3",
])
def test_ggml_failed_to_initialize_tensor_is_named(line):
    assert GGML_TENSOR in _ids(line), line


@pytest.mark.parametrize("line", [
    # torch.distributed / vLLM wording about tensor parallelism
    "RuntimeError: Failed to initialize tensor parallel group",
    "alloc_tensor_range: failed to initialize tensor output.weight because of something else entirely",
])
def test_near_misses_are_not_the_ggml_tensor_row(line):
    assert GGML_TENSOR not in _ids(line), line


# ---- systemd's unit result: information

@pytest.mark.parametrize("line", [
    "Mär 06 18:00:32 laptop systemd[1]: ollama.service: Failed with result 'core-dump'.",
    "May 07 18:52:23 genesis systemd[1]: hipfire.service: Failed with result 'exit-code'.",
    "ollama.service: Main process exited, code=dumped, status=6/ABRT",
    "comfyui@user.service: Failed with result 'signal'.",
])
def test_systemd_unit_result_is_information(line):
    assert SYSTEMD in _ids(line), line
    assert error_signatures.failure(SYSTEMD).severity == "info"  # information, not a failure


@pytest.mark.parametrize("line", [
    "ollama.service: Failed to start Ollama Service.",
    "Failed with result 'core-dump' in my last three runs, any idea?",
])
def test_near_misses_are_not_the_systemd_row(line):
    assert SYSTEMD not in _ids(line), line


def test_the_journal_restart_lines_are_not_a_failure_of_their_own():
    # 1542: the ROCr fault leads; systemd's restart lines after it are no finding of their own.  (s25, set JE: the
    # service's crash by a signal, "Main process exited, code=dumped, status=6/ABRT", is a framework warning of its
    # own since je_systemd_service_main_process_crash_signal -- after the fault that caused it)
    from rwtest import realrun
    diag = realrun.diagnosis(fixture("1542"))
    assert problems(diag) in ([("memory-access-fault", "runtime")],
                              [("memory-access-fault", "runtime"), ("known-failure", "framework")])
    lowered = [f for f in diag.findings if f.id == "known-failure"]
    assert all("je_systemd_service_main_process_crash_signal" in f.evidence[0] for f in lowered)
    assert not any("Scheduled restart job" in e or "Consumed" in e for f in lowered for e in f.evidence)
    assert lead_layer(fixture("1542")) == "runtime"


# ---- torch's companion wheels of another +rocm build in a pip list / pip freeze

COMPANION = "bl_pip_list_torch_companion_other_rocm_build"


def test_1546_names_the_companion_of_another_build_and_leads():
    assert_named_and_leads("1546", COMPANION, "framework")


@pytest.mark.parametrize("text", [
    # pip freeze: torchvision of an older ROCm beside torch and torchaudio of 7.2
    "torch==2.9.1+rocm7.2.0.git7e1940d4\ntorchaudio==2.9.1+rocm7.2.0.git7e1940d4\ntorchvision==0.24.1+rocm7.1\n",
    # pip list: a later nightly of torchvision, other packages between
    "torch                2.11.0a0+rocm7.11.0a20260120\ntorchaudio           2.11.0a0+rocm7.11.0a20260120\n"
    "torchsde             0.2.6\ntorchvision          0.26.0a0+rocm7.11.0a20260124\n",
    # a patch release of ROCm in the companion only
    "torch 2.5.1+rocm6.2\ntorchvision 0.20.1+rocm6.2.4\n",
])
def test_a_companion_of_another_rocm_build_is_named(text):
    assert COMPANION in _ids(text), text


@pytest.mark.parametrize("text", [
    # the three from one index
    "torch 2.5.1+rocm6.2\ntorchaudio 2.5.1+rocm6.2\ntorchvision 0.20.1+rocm6.2\n",
    "torch==2.10.0a0+rocm7.10.0a20251015\ntorchvision==0.25.0a0+rocm7.10.0a20251015\n",
    # torch without a +rocm build, or the companion far away in another listing
    "torch 2.5.1\ntorchaudio 2.5.1+rocm6.2\n",
    "torch 2.5.1+rocm6.2\n" + "".join(f"pkg{i} 1.0\n" for i in range(12)) + "torchvision 0.20.1+rocm6.1\n",
])
def test_near_misses_are_not_the_companion_row(text):
    assert COMPANION not in _ids(text), text
