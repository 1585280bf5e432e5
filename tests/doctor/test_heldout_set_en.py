"""Held-out set EN (tests/data/real/2530-2535, HELDOUT.md): a theme-neutral sample of ComfyUI's and vLLM's AMD GPU
issues of 2024.  On the unchanged code every fixture was warned; the misses of lead were:

* 2533: vLLM's CMake configure ending in "Can't find CUDA or HIP installation." (vllm-project/vllm CMakeLists.txt,
  message(FATAL_ERROR)) after HIP's FindHIP recorded version 0.0.0 ("Could NOT find HIP: Found unsuitable version"):
  no row named either line, and the catch-all's first line was PyTorch's harmless CMake warning that the static kineto
  library is absent, read at framework.  Rows ``en_vllm_cmake_no_gpu_toolkit`` and ``en_cmake_hip_unsuitable_version``
  read the two lines at packaging; TorchConfig.cmake's "static library <NAME>_LIBRARY-NOTFOUND not found." is benign.
* 2531 and 2535 (labelled framework, led at firmware by gpu-memory-small on a GPU of 512 MiB in all): the label, not
  doctor, was changed after the baseline: the paste is fixture 326's (the same user's Ryzen 7 7700 iGPU carve-out)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

VLLM = "en_vllm_cmake_no_gpu_toolkit"
FINDHIP = "en_cmake_hip_unsuitable_version"


@pytest.mark.parametrize("num,layer", [("2530", "runtime"), ("2531", "firmware"), ("2532", "framework"),
                                       ("2533", "packaging"), ("2534", "framework"), ("2535", "firmware")])
def test_the_set_en_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_rows_sit_at_packaging():
    assert error_signatures.failure_layer(VLLM) == "packaging"
    assert error_signatures.failure_layer(FINDHIP) == "packaging"


@pytest.mark.parametrize("text", [
    # the fixture's lines (vllm-project/vllm#6762, ROCm 6.1.2 container, python setup.py develop)
    "CMake Error at CMakeLists.txt:108 (message):\n  Can't find CUDA or HIP installation.\n",
    # vLLM v0.20.0 against a torch 2.13 ROCm nightly whose LoadHIP.cmake no longer sets HIP_FOUND, as a Strix Halo
    # image's patch script quotes it (scripts/patch_strix.py, its 'Patch 18' comment)
    "CMake Error at CMakeLists.txt:147 (message):\n  Can't find CUDA or HIP installation.\n",
])
def test_vllm_cmake_without_a_gpu_toolkit_is_named(text):
    assert VLLM in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's line (vllm-project/vllm#6762)
    '-- Could NOT find HIP: Found unsuitable version "0.0.0", but required is at least "1.0" (found /opt/rocm)\n',
    # pytorch/pytorch#181939 (2026-04-29: a C++ program's find_package(Torch) against a torch 2.11 ROCm 7.2 wheel)
    '-- Could NOT find HIP: Found unsuitable version "0.0.0", but required is at least "1.0" (found /opt/rocm-7.2.1)\n'
    'Optional package HIP not found\n',
])
def test_findhip_rejecting_the_hip_version_is_named(text):
    assert FINDHIP in _ids(text)


@pytest.mark.parametrize("text", [
    # CMake's other outcomes of a package search (vllm-project/vllm#6259's CUDA search; a HIP found)
    "      -- Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE)\n",
    '-- Found HIP: /opt/rocm (found suitable version "6.1.40093", minimum required is "1.0")\n',
    # prose, and a configure message of the same words in another order (both constructed)
    "I can't find the CUDA or HIP installation docs for ROCm 6.1\n",
    "CMake Error at CMakeLists.txt:40 (message):\n  Could not find HIP. Ensure that HIP is either installed in /opt/rocm\n",
])
def test_other_cmake_lines_are_not_the_rows(text):
    found = _ids(text)
    assert VLLM not in found and FINDHIP not in found


@pytest.mark.parametrize("line", [
    # the fixture's (vllm-project/vllm#6762) and NixOS/nixpkgs#469677's (vLLM for ROCm in nixpkgs, torch 2.9) warning,
    # the same text in both
    "  static library kineto_LIBRARY-NOTFOUND not found.",
])
def test_torchconfig_static_library_note_is_benign(line):
    assert not failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    "CMake Error at CMakeLists.txt:108 (message):",
    "ld.lld: error: unable to find library -lkineto: library not found.",
])
def test_cmake_and_linker_failures_stay_failure_lines(line):
    assert failure_lines.looks_like_failure(line)
