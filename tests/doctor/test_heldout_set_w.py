"""Held-out set W (tests/data/real/790-798, HELDOUT.md): the newest threads of 2026.
Each miss's cause fixed from the program that prints the line: the kernel's numbered MES message
(mes_v11_0.c / mes_v12_0.c: "MES(%d) failed to respond to msg=%s"), torch's module-level import of the
amdsmi binding (torch/cuda/__init__.py) and the binding's own report (ROCm/amdsmi tools/generator.py),
and a crash at torch's first GPU call (hipGetDeviceCount, where HIP starts ROCr); tested on the fixture
and on other wordings of the same source, with near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems as _problems


# -- the MES scheduler not answering, in newer kernels' numbered form (790) --------------------------------------
def test_790_the_numbered_mes_line_is_the_gpu_hang_rule_at_kernel():
    found = _problems(diagnose(detect_snapshot(str(_fixture("790")))))
    assert ("gpu-hang-reset", "kernel") in found, found
    assert _lead_layer(_fixture("790")) == "kernel"


@pytest.mark.parametrize("line", [
    # the fixture: the log wrapped after the device prefix
    "2026-08-27T05:27:22.652671+00:00 amdgpu 0000:04:00.0:\nMES(1) failed to respond to msg=INVALIDATE_TLBS",
    # dmesg, the pipe-numbered form (mes_v12_0.c since 6.13)
    "[127037.563935] amdgpu 0000:c5:00.0: amdgpu: MES(0) failed to respond to msg=REMOVE_QUEUE",
    # journald, with the misc-op detail of the same dev_err
    "Aug 19 10:02:11 host kernel: amdgpu 0000:03:00.0: amdgpu: MES(1) failed to respond to msg=MISC (WAIT_REG_MEM)",
    # older kernels' wording, and a paste with the prefix stripped
    "[drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* MES failed to response msg=3",
    "MES failed to respond to msg=REMOVE_QUEUE",
    "failed to remove hardware queue from MES, doorbell=0x1002",
])
def test_the_kernels_mes_wordings_are_the_mes_hang_signature(line):
    assert "mes_hang" in _ids(line), line


@pytest.mark.parametrize("line", [
    "SMU: No response msg_reg: 13 resp_reg: 0",                      # the SMU, not the MES (791)
    "amdgpu 0000:03:00.0: amdgpu: failed to load MES firmware",      # a firmware file, not a hang
    "MES FW version must be >= 0x7f to enable LR compute workaround",
])
def test_other_mes_and_smu_lines_are_not_the_mes_hang(line):
    assert "mes_hang" not in _ids(line), line


# -- torch's import of the amdsmi binding (794) ------------------------------------------------------------------
def test_794_torchs_amdsmi_import_is_named_at_framework_and_leads():
    found = _problems(diagnose(detect_snapshot(str(_fixture("794")))))
    assert ("known-failure", "framework") in found, found
    assert _lead_layer(_fixture("794")) == "framework"
    assert error_signatures.failure_layer("s10w_torch_import_amdsmi_failed") == "framework"
    assert error_signatures.failure_layer("s10w_amdsmi_binding_library_not_found") == "packaging"


@pytest.mark.parametrize("text", [
    # the fixture's frames (PyTorch CI, TheRock wheels)
    '  File ".../site-packages/torch/cuda/__init__.py", line 2646, in <module>\n    import amdsmi  # type: ignore[import]',
    # a Windows venv, the statement without its comment
    '  File "C:\\venv\\Lib\\site-packages\\torch\\cuda\\__init__.py", line 107, in <module>\n    import amdsmi',
    # a system Python
    '  File "/usr/lib/python3.12/site-packages/torch/cuda/__init__.py", line 98, in <module>\n    import amdsmi\n'
    'KeyError: \'libamd_smi.so\'',
])
def test_torchs_module_level_amdsmi_import_failing_is_the_framework_row(text):
    assert "s10w_torch_import_amdsmi_failed" in _ids(text), text


@pytest.mark.parametrize("text", [
    # another program importing the binding (vLLM's platform probe): not torch's import
    '  File ".../site-packages/vllm/platforms/rocm.py", line 20, in <module>\n    import amdsmi',
    # a torch/cuda frame that fails on another statement
    '  File ".../site-packages/torch/cuda/__init__.py", line 372, in _lazy_init\n    torch._C._cuda_init()',
    # the statement quoted in prose or code, outside a traceback
    "torch tries `import amdsmi` when it starts",
])
def test_other_frames_are_not_torchs_amdsmi_import(text):
    assert "s10w_torch_import_amdsmi_failed" not in _ids(text), text


@pytest.mark.parametrize("line", [
    "Unable to find libamd_smi.so library try installing amd-smi-lib from your package manager",  # the fixture's
    "Unable to find amdsmi library try installing amd-smi-lib from your package manager",          # older wrappers
    "Unable to find amd_smi.dll library try installing amd-smi-lib from your package manager",     # Windows' name
])
def test_the_amdsmi_bindings_own_report_is_named(line):
    assert "s10w_amdsmi_binding_library_not_found" in _ids(line), line


def test_a_generic_unable_to_find_is_not_the_amdsmi_binding():
    assert "s10w_amdsmi_binding_library_not_found" not in _ids("Unable to find libamd_smi.so in /opt/rocm/lib")


# -- a crash at torch's first GPU call (797) ---------------------------------------------------------------------
def test_797_a_crash_at_the_first_gpu_call_leads_at_runtime():
    found = _problems(diagnose(detect_snapshot(str(_fixture("797")))))
    assert ("known-failure", "runtime") in found, found
    assert _lead_layer(_fixture("797")) == "runtime"


@pytest.mark.parametrize("text", [
    # the fixture: the reporter's own result line under the command
    '$ python -c "import torch; print(torch.cuda.is_available())"\n# → SIGSEGV (exit 139), no traceback',
    # a shell's report of the crash
    "$ python3 -c 'import torch; print(torch.cuda.is_available())'\nSegmentation fault (core dumped)",
    # the interactive interpreter
    ">>> torch.cuda.device_count()\nSegmentation fault (core dumped)",
    # Python's faulthandler in a container
    'root@c0ffee:/# python -c "import torch;print(torch.cuda.device_count())"\nFatal Python error: Segmentation fault',
    # a container runtime's exit report
    'python -c "import torch; print(torch.cuda.is_available())"\nthe container exited with code 139',
])
def test_a_crash_right_after_the_enumeration_call_is_the_runtime_row(text):
    assert "s10w_torch_device_enumeration_segfault" in _ids(text), text


@pytest.mark.parametrize("text", [
    # the call answered; the crash is a later step's (fixture 675)
    "torch.cuda.is_available(): True\ntorch.cuda.device_count(): 1\nSegmentation fault         (core dumped) python test.py",
    ">>> torch.cuda.is_available()\nTrue\n>>> torch.ones(1).cuda()\nSegmentation fault (core dumped)",
    # the call named in prose, not run
    "torch.cuda.is_available() is False, then the app hits a Segmentation fault later",
])
def test_a_crash_after_the_calls_answer_is_not_the_enumeration(text):
    assert "s10w_torch_device_enumeration_segfault" not in _ids(text), text


def test_the_bindings_printed_loader_error_is_the_bindings_not_a_packaging_failure():
    """amdsmi prints the OSError of its last ctypes.CDLL try (str(e): '<path>: cannot open shared object
    file: ...') and then its advice; the pair is the binding's report (information: the failure is the
    importing program's next step), not the generic row's library missing from an install."""
    pair = ("/var/lib/jenkins/workspace/libamd_smi.so: cannot open shared object file: No such file or directory\n"
            "Unable to find libamd_smi.so library try installing amd-smi-lib from your package manager")
    got = _ids(pair)
    assert "s10w_amdsmi_binding_library_not_found" in got
    assert "rocm_library_dlopen_failed" not in got
    row = error_signatures.failure("s10w_amdsmi_binding_library_not_found")
    assert row is not None and row.severity == "info"


def test_a_bare_loader_error_for_amd_smi_stays_the_generic_row():
    # the same loader text from a program that is not the binding (no advice line after it)
    line = "/opt/rocm/lib/libamd_smi.so.26: cannot open shared object file: No such file or directory"
    assert "rocm_library_dlopen_failed" in _ids(line)
    assert "s10w_amdsmi_binding_library_not_found" not in _ids(line)
