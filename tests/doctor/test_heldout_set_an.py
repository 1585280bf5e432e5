"""Held-out set AN (tests/data/real/1080-1087, HELDOUT.md): Windows and WSL2 in 2026.
Each miss's cause fixed from the program that prints the line: LM Studio's ROCm runtime failing its own GPU survey
('Error trying to query ROCm gpus: ...'), a ROCm torch killed by an access violation while HIP enumerates the GPUs
(faulthandler's stack or the launcher's exit code 3221225477 at torch.cuda.is_available()), and the ROCm thunk's
assertion on a GPU node without a gfx version (libhsakmt / librocdxg topology).  Each is tested on the fixture, on
other wordings of the same source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

SURVEY = "s11an_lmstudio_rocm_gpu_survey_failed"
ACCESS = "s11an_torch_hip_init_access_violation"
ENGINE = "s11an_thunk_engineid_assertion"


@pytest.mark.parametrize("num,layer", [("1080", "hip"), ("1081", "runtime"), ("1082", "hip"), ("1083", "framework"),
                                       ("1084", "hip"), ("1085", "hip"), ("1086", "hip")])
def test_the_set_an_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_set_an_fixture_has_no_problem():
    diag = diagnose(detect_snapshot(str(_fixture("1087"))))
    assert not [f for f in diag.findings if f.severity in ("warning", "error", "critical")], diag.ids()


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


@pytest.mark.parametrize("num,row", [("1083", SURVEY), ("1044", SURVEY), ("1086", ACCESS), ("1081", ENGINE)])
def test_the_fixtures_name_their_cause(num, row):
    assert row in _ids(_text(num))


def test_the_rows_sit_at_their_layers():
    assert error_signatures.failure_layer(SURVEY) == "framework"
    assert error_signatures.failure_layer(ACCESS) == "hip"
    assert error_signatures.failure_layer(ENGINE) == "runtime"


# -- LM Studio's ROCm runtime failing its GPU survey (1083, 1044) -------------------------------------------------
@pytest.mark.parametrize("text", [
    # lmstudio-bug-tracker#2358 (1083)
    "Backend 'llama.cpp-win-x86_64-amd-rocm-avx2' requires GPU acceleration, but GPU survey software was unsuccessful "
    "with message:",
    'Error trying to query ROCm GPUs: Failed to get memory info for hip device id "0".',
    # lmstudio-ai/lms#625 (1044)
    "Backend 'llama.cpp-win-x86_64-amd-rocm-avx2' requires gpu acceleration,but GPU survey on hardware was unsuccessful "
    "with message 'Error trying to query ROCm gpus: No hip devices found!'!",
    # the UI's words (lmstudio-bug-tracker#658, #1306)
    "Error surveying hardware",
    "GPU survey unsuccessful",
])
def test_lmstudio_gpu_survey_failures_are_known(text):
    assert SURVEY in _ids(text)


@pytest.mark.parametrize("text", [
    # the survey working (LM Studio's own log) is not a failure
    "[BackendManager] Survey for engine 'llama.cpp-linux-x86_64-vulkan-avx2@1.42.0' took 71.35ms",
    "[BackendManager] Performing backend hardware survey...",
    "GPU survey successful: 1 ROCm device",
])
def test_lmstudio_survey_near_misses_are_not_matched(text):
    assert SURVEY not in _ids(text)


def test_a_survey_failure_leads_at_the_application(tmp_path):
    found = problems(doctor_files(tmp_path, {"lmstudio.txt": "GPU survey unsuccessful\n\nError trying to query ROCm "
                                                             "gpus: No hip devices found!\n"}))
    assert found and found[0][1] == "framework", found


# -- a ROCm torch killed by an access violation in torch.cuda.is_available() (1086) ------------------------------
FAULTHANDLER = (
    "Windows fatal exception: access violation\n\n"
    "Stack (most recent call first):\n"
    '  File "C:\\Users\\User\\Desktop\\comfyui-rocm-040726\\python_env\\Lib\\site-packages\\torch\\cuda\\__init__.py", '
    "line 180 in is_available\n"
    '  File "C:\\Users\\User\\Desktop\\comfyui-rocm-040726\\python_env\\Lib\\site-packages\\comfy_kitchen\\backends\\cuda'
    '\\__init__.py", line 639 in _register\n')


@pytest.mark.parametrize("text", [
    # patientx-cfz/comfyui-rocm#21: faulthandler's stack (the path names the ROCm build)
    FAULTHANDLER,
    # its first frame alone: the ROCm build named only in the frame's own path
    FAULTHANDLER.split("\n  File \"C:\\Users\\User\\Desktop\\comfyui-rocm-040726\\python_env\\Lib\\site-packages\\comfy_kitchen")[0],
    # Comfy-Org/desktop#1611's wording (line 182, the HIP SDK named elsewhere in the log)
    "[WARNING] failed to run offload-arch: binary not found.\nWindows fatal exception: access violation\n\n"
    "Stack (most recent call first):\n"
    '  File "E:\\ComfyUI\\.venv\\Lib\\site-packages\\torch\\cuda\\__init__.py", line 182 in is_available\n'
    "torch 2.9.1+rocm7.2.1 hip 7.2.53211\n",
    # ComfyUI-Manager#2724 (1086): the launcher's exit code and the call it died in
    "PyTorch: 2.9.1+rocmsdk20260116\nPython process exited with code 3221225477 and signal null\n\n"
    "This appears to happen during GPU probing. In my logs, the crash occurs when Python reaches "
    "torch.cuda.is_available().\n",
    # the hex exit code, with HIP named after it
    "Process exited with code 0xC0000005\ncrash in torch.cuda.is_available()\ntorch.version.hip: 7.2.26024\n",
])
def test_a_rocm_torch_killed_in_hip_init_is_known(text):
    assert ACCESS in _ids(text)


@pytest.mark.parametrize("text", [
    # the same crash under a CUDA build of torch (Comfy-Org/desktop#1732, Comfy-Desktop#1074): not HIP's
    "Windows fatal exception: access violation\n\nStack (most recent call first):\n"
    '  File "C:\\ComfyUI\\.venv\\Lib\\site-packages\\torch\\cuda\\__init__.py", line 182 in is_available\n'
    "torch 2.10.0+cu128\n",
    # an access violation in a ROCm math library (its own row), not in device enumeration
    "Windows fatal exception: access violation\n\nStack (most recent call first):\n"
    '  File "C:\\venv\\Lib\\site-packages\\torch\\nn\\modules\\linear.py", line 125 in forward\n'
    "torch 2.12.0+rocm7.12\n",
    # the exit code with no torch device call
    "rocm llama-server exited with code 3221225477\n",
])
def test_other_access_violations_are_not_this_row(text):
    assert ACCESS not in _ids(text)


def test_the_hip_init_crash_leads_at_hip(tmp_path):
    found = problems(doctor_files(tmp_path, {"log.txt": FAULTHANDLER}))
    assert found and found[0][1] == "hip", found


# -- the thunk's assertion on a GPU node without a gfx version (1081) --------------------------------------------
@pytest.mark.parametrize("text", [
    # librocdxg under WSL (legacy-rocm-build#6204, 1081)
    "Assertion `props.EngineId.ui32.Major && \"HSA_OVERRIDE_GFX_VERSION may be needed\"' failed.",
    # glibc's full assert line from native libhsakmt (props->)
    "rocminfo: /src/libhsakmt/src/topology.c:1217: topology_sysfs_get_node_props: Assertion "
    "`props->EngineId.ui32.Major && \"HSA_OVERRIDE_GFX_VERSION may be needed\"' failed.",
])
def test_the_thunk_engineid_assertion_is_known(text):
    assert ENGINE in _ids(text)


@pytest.mark.parametrize("text", [
    # advice in scripts and READMEs that names the variable
    "# HSA_OVERRIDE_GFX_VERSION may be needed for some AMD GPUs",
    "gfx1100 not detected - HSA_OVERRIDE_GFX_VERSION may be needed",
    # the other WSL thunk assertion has its own row
    "rocminfo: ./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp:111: void thunk_proxy::QueryAdapterInfo("
    "D3DKMT_HANDLE, ATIADAPTERINFO*): Assertion `ret == STATUS_SUCCESS' failed.",
])
def test_engineid_near_misses_are_not_matched(text):
    assert ENGINE not in _ids(text)


def test_the_engineid_assertion_leads_at_the_runtime(tmp_path):
    found = problems(doctor_files(tmp_path, {"rocminfo.txt": "Assertion `props.EngineId.ui32.Major && "
                                                             "\"HSA_OVERRIDE_GFX_VERSION may be needed\"' failed.\n"}))
    assert found and found[0][1] == "runtime", found
