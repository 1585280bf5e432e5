"""Held-out set AJ (tests/data/real/1000-1006, HELDOUT.md): the newest threads of late 2026.
Each miss's cause fixed from the program that prints the line: ROCr's code-object status (an HSA status that
names the program's device code, the failure HIP reports as 'device kernel image is invalid'), Lemonade's
TheRock wheel install giving up for the tarball (backend_utils.cpp), pip's resolver hitting Python's recursion
limit over an index's metadata; and the order of an unsupported-GPU statement behind a failure the paste shows.
Each is tested on the fixture, on other wordings of the same source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

PROBLEM = ("warning", "error", "critical")


@pytest.mark.parametrize("num,layer", [("1000", "hip"), ("1001", "packaging"), ("1002", "packaging"),
                                       ("1003", "packaging"), ("1004", "packaging"), ("1005", "hip")])
def test_the_set_aj_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_set_aj_fixture_has_no_problem():
    diag = diagnose(detect_snapshot(str(_fixture("1006"))))
    assert not [f for f in diag.findings if f.severity in ("error", "critical")], diag.ids()


# -- ROCr refuses the program's code object (1005) -------------------------------------------------
CODE_OBJECT = "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid."


@pytest.mark.parametrize("text", [
    CODE_OBJECT,
    # as the runtime's queue callback prints a status
    ":0:rocdevice.cpp            :2993: 23233334547 us:  Callback: Queue 0x7fc1a8200000 aborting with error : "
    "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid. code: 0x1010",
    # quoted in an issue title (1005)
    "[Issue]: ROCm 7.11 with Strix Point (gfx1151) results in HSA_STATUS_ERROR_INVALID_CODE_OBJECT (Invalid Kernel "
    "Image) on Llama.cpp",
])
def test_a_refused_code_object_is_the_codes_layer(tmp_path, text):
    assert ("hsa-runtime-error", "hip") in problems(doctor_files(tmp_path, {"log.txt": text + "\n"}))


@pytest.mark.parametrize("text", [
    # an override makes the runtime load code for another target: the override's (runtime) layer, as 974
    "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n" + CODE_OBJECT,
    # another status beside it: the runtime's own failure stays at runtime
    CODE_OBJECT + "\nHSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.",
    # rocminfo's own call failing with it (the runtime's own code objects, before any program ran)
    "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.",
    # another status alone
    "hsa api call failure at: rocminfo.cc:1102\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime "
    "failed to allocate the necessary resources.",
])
def test_other_hsa_failures_stay_at_the_runtime(tmp_path, text):
    found = problems(doctor_files(tmp_path, {"log.txt": text + "\n"}))
    assert ("hsa-runtime-error", "runtime") in found, found
    assert ("hsa-runtime-error", "hip") not in found


# -- Lemonade's TheRock wheel install falls back to the tarball (1003) -------------------------------
ROW_LEMONADE = "s11aj_lemonade_therock_wheel_fallback"


@pytest.mark.parametrize("line", [
    # the fixture's line, as quoted
    "ROCm wheels installed but the HIP runtime could not be located; using TheRock tarball",
    # the other warnings of install_therock_wheels, with Lemonade's log prefix
    "[2026-08-15 10:02:11.123] [Warning] (BackendUtils) pip install of ROCm wheels failed (exit 1); using TheRock "
    "tarball",
    "Failed to create venv (exit 1); using TheRock tarball",
    "ROCm device wheel 'rocm-sdk-device-gfx1036' did not resolve (no code objects for gfx1036); using TheRock tarball",
])
def test_lemonades_wheel_fallback_is_named(line):
    assert ROW_LEMONADE in _ids(line), line


def test_the_lemonade_row_is_a_packaging_warning_and_near_misses_are_not_it():
    assert error_signatures.failure_layer(ROW_LEMONADE) == "packaging"
    for line in ("Installing TheRock ROCm 7.14.0 for gfx1100", "ROCm wheel installation complete",
                 "TheRock installation complete", "Downloading TheRock from: https://repo.amd.com/rocm/tarball-multi-arch/"
                 "therock-dist-linux-gfx110X-all-7.14.0.tar.gz",
                 "Successfully installed rocm-7.14.0 rocm-sdk-core-7.14.0 rocm-sdk-libraries-7.14.0"):
        assert ROW_LEMONADE not in _ids(line), line


def test_1003_leads_with_the_fallback_at_packaging():
    found = problems(diagnose(detect_snapshot(str(_fixture("1003")))))
    assert found[0] == ("known-failure", "packaging"), found


# -- pip's resolver hits Python's recursion limit (1004) ---------------------------------------------
ROW_PIP = "s11aj_pip_resolver_recursion"


@pytest.mark.parametrize("text", [
    # the fixture's title
    '"maximum recursion depth exceeded" when installing theRock-based upstream PyTorch wheels',
    # the same report's title on pytorch/pytorch#193979
    '[ROCm] PyTorch nightly wheel installation for rocm7.14 results in "maximum recursion depth exceeded" error',
    # pip's own traceback end (pip/_vendor/resolvelib frames, then the exception)
    '  File "/usr/local/lib/python3.12/dist-packages/pip/_vendor/resolvelib/resolvers.py", line 492, in '
    '_build_result\n    _has_route_to_root(criteria, key, all_keys, connected)\n'
    'RecursionError: maximum recursion depth exceeded',
    # Windows paths, the variant of the message with its suffix
    '  File "D:\\venv\\Lib\\site-packages\\pip\\_internal\\resolution\\resolvelib\\factory.py", line 320, in '
    '_iter_found_candidates\nRecursionError: maximum recursion depth exceeded while calling a Python object',
])
def test_pips_resolver_recursion_is_named(text):
    assert ROW_PIP in _ids(text), text


def test_the_pip_row_is_at_packaging_and_near_misses_are_not_it():
    assert error_signatures.failure_layer(ROW_PIP) == "packaging"
    # a program's own recursion (torch.compile / dynamo), no pip
    assert ROW_PIP not in _ids(
        '  File "/venv/lib/python3.12/site-packages/torch/_dynamo/eval_frame.py", line 655, in _fn\n'
        "RecursionError: maximum recursion depth exceeded while calling a Python object")
    # pip ran earlier in the paste, the recursion came later from the user's script
    assert ROW_PIP not in _ids(
        "$ pip install -r requirements.txt\nSuccessfully installed numpy-2.1.0\n$ python train.py\n"
        "Epoch 1\nRecursionError: maximum recursion depth exceeded")


# -- an unsupported GPU beside supported ones follows a failure the paste shows (1000) ---------------
def test_1000_leads_with_the_refused_kernels_and_keeps_the_unsupported_gpu_note():
    found = problems(diagnose(detect_snapshot(str(_fixture("1000")))))
    assert found[0] == ("known-failure", "hip"), found
    assert ("mixed-gpu-left-out", "runtime") in found


def test_the_unsupported_gpu_statement_still_leads_where_nothing_fails():
    # 450: a healthy host with a supported card and an unsupported one, nothing failing shown
    found = problems(diagnose(detect_snapshot(str(_fixture("450")))))
    assert found and found[0][0] == "mixed-gpu-left-out", found


# -- CMake's find_package finds no config of a ROCm package (1001; 388 and 900 print it too) ----------
ROW_CMAKE = "s11aj_cmake_rocm_package_config_not_found"


@pytest.mark.parametrize("line", [
    # the fixture's line, in docker build's step prefix
    '#10 102.9   By not providing "Findhipblas.cmake" in CMAKE_MODULE_PATH this project has',
    # CMake's line for other ROCm packages, as wrapped (388's hipblaslt, 900's hip)
    '  By not providing "Findhipblaslt.cmake" in CMAKE_MODULE_PATH this project',
    '  By not providing "Findhip.cmake" in CMAKE_MODULE_PATH this project has asked CMake to find a',
    # the second sentence, when the name stays on its line
    '  Could not find a package configuration file provided by "rocblas" with any',
    'Could not find a package configuration file provided by "hipblas-common"',
])
def test_cmakes_missing_rocm_config_is_named(line):
    assert ROW_CMAKE in _ids(line), line


def test_the_cmake_row_is_at_packaging_and_other_packages_are_not_it():
    assert error_signatures.failure_layer(ROW_CMAKE) == "packaging"
    for line in ('  By not providing "FindQt6.cmake" in CMAKE_MODULE_PATH this project has',
                 '  Could not find a package configuration file provided by "Pangolin" with any',
                 # a package whose name only starts like a ROCm one
                 '  By not providing "Findhipster.cmake" in CMAKE_MODULE_PATH this project has',
                 "-- Found hip: /opt/rocm (found version \"7.2.0\")"):
        assert ROW_CMAKE not in _ids(line), line


def test_1001_leads_with_the_missing_config_at_packaging():
    found = problems(diagnose(detect_snapshot(str(_fixture("1001")))))
    assert found[0] == ("known-failure", "packaging"), found
