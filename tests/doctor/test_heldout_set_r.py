"""Held-out set R (tests/data/real/690-701, HELDOUT.md): the TheRock / Core SDK era on 2026 hardware.
Each miss's cause, fixed from the program that prints the line (CPython's subprocess report of a child killed by
a signal, TheRock's rocm-sdk self-test headers, rocBLAS's log of the HIP error of its own call, a user's words for
shared objects the loader cannot find), tested on the fixture and on other wordings of the same source."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect import failure_lines as fl
from rocm_wizard.doctor import diagnose
from rwtest.heldout import PROBLEM, REAL, assert_named_and_leads, ids as _ids, lead_layer as _lead_layer


def _problems(folder: Path):
    return [f for f in diagnose(detect_snapshot(str(folder))).findings if f.severity in PROBLEM]


def _paste(tmp_path: Path, text: str) -> Path:
    (tmp_path / "report.txt").write_text(text, encoding="utf-8")
    return tmp_path


# ------------------------------------------------------------------ 690: rocminfo killed under rocm-sdk test
def test_690_rocminfo_killed_under_the_self_test_leads_at_runtime():
    folder = next(REAL.glob("690-*"))
    text = (folder / "report.txt").read_text(encoding="utf-8")
    assert "rocminfo_died_signal" in _ids(text)
    problems = _problems(folder)
    assert problems[0].id == "rocminfo-crashed" and problems[0].layer == "runtime"
    # the self-test's header names the check, not why it failed: it no longer leads (nor is it reported)
    assert not any("rocm_sdk_selftest_failed" in e for f in problems for e in f.evidence)


@pytest.mark.parametrize("line", [
    # CPython Lib/subprocess.py, CalledProcessError.__str__: a list of PosixPath, a string, an unknown signal
    "subprocess.CalledProcessError: Command '[PosixPath('/.../rocminfo')]' died with <Signals.SIGSEGV: 11>.",
    "subprocess.CalledProcessError: Command 'rocminfo --support' died with <Signals.SIGABRT: 6>.",
    "CalledProcessError: Command '['/opt/rocm/bin/rocminfo']' died with unknown signal 99.",
])
def test_rocminfo_killed_by_a_signal_as_its_caller_reports_it(line):
    assert "rocminfo_died_signal" in _ids(line)


@pytest.mark.parametrize("line", [
    # another tool killed; rocminfo failing with an exit status (not a signal)
    "subprocess.CalledProcessError: Command '[PosixPath('/venv/bin/hipconfig')]' died with <Signals.SIGSEGV: 11>.",
    "subprocess.CalledProcessError: Command '[PosixPath('/venv/bin/rocminfo')]' returned non-zero exit status 1.",
    "Command '[PosixPath('/venv/bin/rocminfo_wrapper')]' died with <Signals.SIGSEGV: 11>.",
])
def test_near_misses_of_the_rocminfo_signal_line(line):
    assert "rocminfo_died_signal" not in _ids(line)


def test_self_test_header_alone_is_still_reported(tmp_path):
    # 692: the header and an exit status no row reads: the header's packaging finding stays (and leads)
    folder = next(REAL.glob("692-*"))
    problems = _problems(folder)
    assert problems[0].id == "known-failure" and problems[0].layer == "packaging"
    assert any("rocm_sdk_selftest_failed" in e for e in problems[0].evidence)
    # with the line that says why (a system library missing, 695's), the header is left out of the report
    why = _paste(tmp_path, (
        "ERROR: testPreloadLibraries (rocm_sdk.tests.core_test.ROCmCoreTest.testPreloadLibraries) "
        "[Check rocm_sdk.preload_libraries] (shortname='rocprofiler-sdk')\n"
        "OSError: libatomic.so.1: cannot open shared object file: No such file or directory\n"))
    evidence = [e for f in _problems(why) for e in f.evidence]
    assert any("libatomic.so.1" in e for e in evidence)
    assert not any("rocm_sdk_selftest_failed" in e for e in evidence)


# ------------------------------------------------------------------ 697: rocBLAS logs the HIP error of its own call
def test_697_rocblas_hip_error_leads_at_libraries():
    assert_named_and_leads("697", "rocblas_hip_error_logged", "libraries")
    problems = _problems(next(REAL.glob("697-*")))
    assert [f.layer for f in problems] == ["libraries"]  # ggml's echo of the same error follows rocBLAS's row


@pytest.mark.parametrize("line", [
    "rocBLAS error from hip error code: 'hipErrorInvalidImage':200",
    "rocBLAS error from hip error code: 'hipErrorInvalidDeviceFunction':98",  # gfx906 under ROCm 7.0.2 (TRSM)
    "rocBLAS error from hip error code: 'hipErrorOutOfMemory':2",
])
def test_rocblas_logged_hip_error_wordings(line):
    assert "rocblas_hip_error_logged" in _ids(line)
    assert error_signatures.failure_layer("rocblas_hip_error_logged") == "libraries"
    # HIP's enum names are whole words: hipErrorInvalidDeviceFunction (98) is not hipErrorInvalidDevice (101)
    assert "invalid_device" not in _ids(line)


def test_invalid_device_signature_takes_the_whole_enum_name():
    assert "invalid_device" in _ids("RuntimeError: HIP error: hipErrorInvalidDevice")
    assert "invalid_device" in _ids("hipSetDevice: Returned hipErrorInvalidDevice :")
    assert "invalid_device" not in _ids(":3:hip_module.cpp :450: hipModuleLaunchKernel: Returned hipErrorInvalidDeviceFunction :")
    assert "invalid_device" not in _ids("hipMemcpy: Returned hipErrorInvalidDevicePointer :")


def test_application_echo_follows_the_library_only_for_the_same_error(tmp_path):
    ggml = ("ggml_cuda_compute_forward: SOLVE_TRI failed\n"
            "ROCm error: device kernel image is invalid\n"
            "  current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda/ggml-cuda.cu:2408\n"
            "ggml/src/ggml-cuda/ggml-cuda.cu:106: ROCm error\n")
    with_lib = tmp_path / "a"
    with_lib.mkdir()
    _paste(with_lib, "rocBLAS error from hip error code: 'hipErrorInvalidImage':200\n" + ggml)
    assert _lead_layer(with_lib) == "libraries"
    alone = tmp_path / "b"
    alone.mkdir()
    assert _lead_layer(_paste(alone, ggml)) == "hip"  # no library names the error: HIP's, as before
    # a library's HIP error does not take another HIP error of the paste with it
    other = tmp_path / "c"
    other.mkdir()
    _paste(other, "rocBLAS error from hip error code: 'hipErrorOutOfMemory':2\n"
                  "RuntimeError: HIP error: device kernel image is invalid\n")
    layers = {f.layer for f in _problems(other) if f.id == "known-failure"}
    assert {"hip", "libraries"} <= layers


# ------------------------------------------------------------------ 701: a user's words for .so files not found
def test_701_shared_objects_not_found_in_a_users_words_lead_at_packaging():
    assert _lead_layer(next(REAL.glob("701-*"))) == "packaging"


@pytest.mark.parametrize("line", [
    "package cannot find depending so files",
    "the extension cannot find the .so files it was built against",
    "Programs could not locate the shared objects of ROCm",
    "ComfyUI can't find the DLLs of the HIP SDK",
    "Programs are stuck not being able to find HIP libraries.",  # set Q's wording, unchanged
])
def test_library_words_of_the_loader_place_told_failures_at_packaging(line):
    assert fl.layer_of(line) == "packaging"
