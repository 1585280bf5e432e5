"""Held-out set Z (tests/data/real/850-859, HELDOUT.md): image, video and audio generation apps.
Each miss's cause fixed from the program that prints the line: Python's OSError on a path of TheRock's ROCm SDK
wheels (CTranslate2's DLL folder, 854), bitsandbytes' rocminfo probe (bitsandbytes/cuda_specs.py, 856, a healthy
system), and HIP's launch failure told of beside a library's name (failure_lines.toml, 859); tested on the fixture,
on other wordings of the same source and on near misses."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids, problems

PROBLEM = ("warning", "error", "critical")


# -- a wheel loading TheRock's ROCm SDK folder that is not installed (854) --------------------------
def test_854_the_missing_rocm_sdk_wheel_is_named_and_leads_at_packaging():
    assert_named_and_leads("854", "s10z_rocm_sdk_wheel_path_missing", "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's line (CTranslate2 4.7.0's os.add_dll_directory on Windows)
    "FileNotFoundError: [WinError 3] The system cannot find the path specified: "
    "'C:\\\\Users\\\\u\\\\venv\\\\Lib\\\\site-packages\\\\ctranslate2/../_rocm_sdk_core/bin'",
    # the same OSError for a file (WinError 2), in a libraries wheel of a GPU family
    "FileNotFoundError: [WinError 2] The system cannot find the file specified: "
    "'E:\\\\sd\\\\venv\\\\Lib\\\\site-packages\\\\_rocm_sdk_libraries_gfx110X_dgpu\\\\bin\\\\hipblaslt.dll'",
    # POSIX errno form on Linux
    "OSError: [Errno 2] No such file or directory: '/venv/lib/python3.12/site-packages/_rocm_sdk_core/lib/libamdhip64.so.7'",
    "[Errno 2] No such file or directory: '/opt/venv/lib/python3.12/site-packages/_rocm_sdk_devel/bin'",
])
def test_the_missing_rocm_sdk_path_wordings_are_named(line):
    assert "s10z_rocm_sdk_wheel_path_missing" in _ids(line), line


@pytest.mark.parametrize("line", [
    # bitsandbytes running rocminfo/hipinfo: no path of a ROCm wheel
    "Could not detect ROCm GPU architecture: [WinError 2] The system cannot find the file specified",
    "Could not detect ROCm GPU architecture: [Errno 2] No such file or directory: 'rocminfo'",
    # another missing file, not of TheRock's wheels
    "FileNotFoundError: [Errno 2] No such file or directory: '/home/u/models/_rocm_sdk_notes.txt'",
    # a path of the wheels in a working PATH line is no error
    "export PATH=$VENV/Lib/site-packages/_rocm_sdk_core/bin:$PATH",
])
def test_other_missing_paths_are_not_the_rocm_sdk_row(line):
    assert "s10z_rocm_sdk_wheel_path_missing" not in _ids(line), line


# -- bitsandbytes' rocminfo probe on a working system (856, healthy) --------------------------------
def test_856_the_healthy_invokeai_container_has_no_problem():
    from rwtest.heldout import lead_layer

    assert lead_layer(_fixture("856")) is None


@pytest.mark.parametrize("line", [
    "2026-08-12 12:54:23.668017+00:00Could not detect ROCm GPU architecture: [Errno 2] No such file or directory: 'rocminfo'",
    "ROCm GPU architecture detection failed despite ROCm being available.",
    "Could not detect ROCm warp size: [WinError 2] The system cannot find the file specified. Defaulting to 64. "
    "(some 4-bit functions may not work!)",
    "[bitsandbytes.cuda_specs|ERROR]Could not detect ROCm GPU architecture: [Errno 2] No such file or directory: 'rocminfo'",
    "ROCm warp size detection failed despite ROCm being available.",
])
def test_bitsandbytes_rocminfo_probe_lines_are_information(line):
    assert "s10z_bnb_rocm_arch_probe_failed" in _ids(line), line
    assert error_signatures.failure_layer("s10z_bnb_rocm_arch_probe_failed") == "framework"


def test_the_probe_note_does_not_hide_bitsandbytes_own_failure(tmp_path: Path):
    # the same notes beside bitsandbytes' failure to load its GPU library: that failure is still reported
    diag = doctor_files(tmp_path, {"log.txt": (
        "Could not detect ROCm GPU architecture: [WinError 2] The system cannot find the file specified\n\n"
        "ROCm GPU architecture detection failed despite ROCm being available.\n\n"
        "bitsandbytes library load error: Configured ROCm binary not found at "
        "F:\\ComfyUI\\.venv\\Lib\\site-packages\\bitsandbytes\\libbitsandbytes_rocm71.dll\n")})
    assert problems(diag), diag.findings
    assert "s10z_bnb_rocm_arch_probe_failed" not in _ids(
        "bitsandbytes library load error: Configured ROCm binary not found at /x/libbitsandbytes_rocm71.so")


# -- HIP's launch failure told of beside a library's name (859) -------------------------------------
def test_859_the_told_launch_failure_is_at_hip():
    from rwtest.heldout import lead_layer

    assert lead_layer(_fixture("859")) == "hip"


@pytest.mark.parametrize("line", [
    "[Issue]: ROCm 7.12.0 on gfx1150 gives HIP error launch failure partway through MIOpen optimization of SDXL VAE decode",
    "torch.AcceleratorError: HIP error: unspecified launch failure",
    "MIOpen(HIP): Error [GenericSearch] Error: Exception encountered : handlehip.cpp:161: Error setting device 0: "
    "unspecified launch failure",
    "hipblaslt returned hipErrorLaunchFailure after the GEMM",
])
def test_hips_launch_failure_is_placed_at_hip(line):
    assert failure_lines.layer_of(line) == "hip", line


@pytest.mark.parametrize("line, layer", [
    ("MIOpen(HIP): Error [FindSolutionImpl] Search Failed: 2x640x48x32", "libraries"),
    ("rocBLAS error: Cannot read TensileLibrary.dat: No such file or directory", "libraries"),
    ("MIOpen Error: convolutionocl.cpp:536: Requested convolution is not supported", "libraries"),
])
def test_library_failures_without_a_launch_failure_stay_at_libraries(line, layer):
    assert failure_lines.layer_of(line) == layer, line


# -- PyTorch's allocator without expandable segments (850's second line) ----------------------------
@pytest.mark.parametrize("line", [
    "E:\\AI\\ComfyUI\\venv\\Lib\\site-packages\\torch\\nn\\modules\\sparse.py:166: UserWarning: expandable_segments not "
    "supported on this platform (Triggered internally at B:\\src\\torch\\c10/hip/HIPAllocatorConfig.h:40.)",
    "[W1001 01:18:06.108184462 CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform "
    "(function operator())",
])
def test_expandable_segments_unsupported_is_a_note(line):
    assert "s10z_torch_expandable_segments_unsupported" in _ids(line), line


def test_850_the_oom_leads_and_the_allocator_note_is_no_problem():
    assert_named_and_leads("850", "oom", "framework")
    assert problems(doctor_files_850()) == [("known-failure", "framework")]
    # the OOM message's own advice names the option: that is not the note
    assert "s10z_torch_expandable_segments_unsupported" not in _ids(
        "If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True")


def doctor_files_850():
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose

    return diagnose(detect_snapshot(str(_fixture("850"))))


def test_ctranslate2s_wrapped_launch_failure_stays_framework():
    # set P: CTranslate2's 'CUDA failed with error <HIP string>' is placed at framework, the launch failure too
    assert failure_lines.layer_of("RuntimeError: CUDA failed with error unspecified launch failure") == "framework"


# -- PyTorch's suffix after every HIP error (852, 853, 858: noise beside the error) -----------------
@pytest.mark.parametrize("line", [
    "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.",
    "Search for `hipErrorLaunchFailure' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.",
    # the opening backtick eaten by a Markdown code span (853)
    "Search for hipErrorLaunchFailure' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.",
])
def test_torchs_hip_error_suffix_is_a_note(line):
    assert "s10z_torch_hip_check_suffix" in _ids(line), line


def test_the_suffix_note_is_not_the_error_itself():
    assert "s10z_torch_hip_check_suffix" not in _ids("RuntimeError: HIP error: invalid device function")
    assert "s10z_torch_hip_check_suffix" not in _ids("Search for the error in the ROCm documentation")
