"""Held-out set IU (tests/data/real/3500-3503, HELDOUT.md): a theme-neutral sample of threads where a user builds a
project for AMD GPUs and pastes the build output (Open Image Denoise's HIP device as a Fedora RPM with hipcc failing
CMake's compiler check, the ollama-for-amd fork's ggml-hip build on Windows failing with the compiler's line cut,
Hugging Face's kernel-builder building torch under Nix without PYTORCH_ROCM_ARCH, vLLM's Dockerfile.rocm falling back to
the default GPU target).  On the unchanged code 3500 and 3501 led at their layers; 3502 led at framework with the
catch-all's 'told, not shown' and 3503 at framework with the catch-all.  The fixes:

* 3502: PyTorch's cmake/public/LoadHIP.cmake stops with message(FATAL_ERROR "No GPU arch specified for ROCm build.
  Please use PYTORCH_ROCM_ARCH environment variable to specify GPU archs to build for.") when torch_hip_get_arch_list
  returns nothing (PYTORCH_ROCM_ARCH unset and rocm_agent_enumerator seeing no GPU); row
  iu_pytorch_loadhip_no_gpu_arch_specified reads it at packaging.
* 3503: HIP's CMake package (ROCm/clr hipamd/hip-config-amd.cmake) warns "AMDGPU_TARGETS was not set, and system GPU
  detection was unsuccsesful." (GPU_TARGETS in later releases) when amdgpu-arch fails and no target was given, and the
  build then gets the compiler's default target; row iu_hip_cmake_gpu_targets_unset_detection_failed reads it at
  packaging as a warning.
* Detection: CMake's find-module report for Python ('-- Found Python: ... (found version "3.12.11")') and a Nix
  derivation's log prefix ('python3.12-torch> ') now name the build's Python (X.Y)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

NO_ARCH = "iu_pytorch_loadhip_no_gpu_arch_specified"
TARGETS = "iu_hip_cmake_gpu_targets_unset_detection_failed"


@pytest.mark.parametrize("num,layer", [("3500", "packaging"), ("3501", "framework")])
def test_the_set_iu_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("3502", NO_ARCH), ("3503", TARGETS)])
def test_the_new_rows_name_their_fixture_and_lead_at_packaging(num, row):
    assert_named_and_leads(num, row, "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's line (huggingface/kernel-builder#142: nix build -L's derivation prefix, CMake's reflowed message)
    "python3.12-torch>   No GPU arch specified for ROCm build.  Please use PYTORCH_ROCM_ARCH",
    # constructed from LoadHIP.cmake's message as CMake prints it in a plain configure (two-space indent, reflowed)
    "  No GPU arch specified for ROCm build.  Please use PYTORCH_ROCM_ARCH",
    # constructed: the same message inside pip's indented build output of an extension doing find_package(Torch)
    "      No GPU arch specified for ROCm build. Please use PYTORCH_ROCM_ARCH environment variable to specify GPU archs "
    "to build for.",
])
def test_the_no_arch_row_reads_loadhips_refusal(line):
    assert NO_ARCH in ids(line)
    assert error_signatures.failure_layer(NO_ARCH) == "packaging"


@pytest.mark.parametrize("line", [
    # the fixture's line (vllm-project/vllm#22590, ROCm 6.4.1 in a podman build)
    "   GPU_TARGETS was not set, and system GPU detection was unsuccsesful.",
    # ROCm 6.3.4 on LUMI, the older variable's name (IPPL-framework/ippl#537, 2026-06)
    "   AMDGPU_TARGETS was not set, and system GPU detection was unsuccsesful.",
    # ROCm 6.3.0 CI log with timestamps (ROCm/MIOpen#3256, 2024-09)
    "2024-09-16T21:54:04.732797101Z    AMDGPU_TARGETS was not set, and system GPU detection was unsuccsesful.",
    # constructed: the corrected spelling, should a release fix the typo
    "   GPU_TARGETS was not set, and system GPU detection was unsuccessful.",
])
def test_the_targets_row_reads_hip_config_amds_warning(line):
    assert TARGETS in ids(line)
    assert error_signatures.failure_layer(TARGETS) == "packaging"


@pytest.mark.parametrize("line", [
    # LoadHIP.cmake's healthy report of the list it found
    "Building PyTorch for GPU arch: gfx1030",
    # AMDMIGraphX's own refusal (ROCm/AMDMIGraphX#3226), another project's message
    "  HIP package is broken and has no GPU_TARGETS.  Please pass GPU_TARGETS to",
    # CMake's HIP language refusal (ROCm/TheRock#7841), another failure
    "  Failed to find a default HIP architecture.",
    # CMake's empty-architectures error (rocm-arch/rocm-arch#620), another failure
    '  HIP_ARCHITECTURES is empty for target "directed_tests.hipEnvVar".',
])
def test_other_target_messages_are_left_alone(line):
    found = ids(line)
    assert NO_ARCH not in found and TARGETS not in found


@pytest.mark.parametrize("text,ver", [
    # vllm-project/vllm#22590 (fixture 3503): CMake's FindPython report
    ('-- Found Python: /usr/bin/python3 (found version "3.12.11") found components: Interpreter '
     'Development.Module Development.SABIModule\n', "3.12"),
    # FindPythonInterp's 'suitable version' form (Kitware/CMake FindPackageHandleStandardArgs.cmake)
    ('-- Found PythonInterp: /usr/bin/python3 (found suitable version "3.8.10", minimum required is "3")\n', "3.8"),
    # huggingface/kernel-builder#142 (fixture 3502): nix build -L's prefix of a nixpkgs Python package derivation
    ("python3.12-torch> Sourcing python-remove-tests-dir-hook\n", "3.12"),
])
def test_a_build_log_names_its_python(text, ver):
    assert paste_facts.parse(text).build_pythons == [ver]


@pytest.mark.parametrize("text", [
    '-- Found PythonLibs: /usr/lib/libpython2.7.so (found version "2.7.18")\n',  # Python 2 is not read
    "python3.12 -m pip install torch > log.txt\n",  # a command line, not a derivation's prefix
    '-- Found HIP: /opt/rocm (found suitable version "6.4.43483-a187df25c", minimum required is "1.0")\n',
])
def test_other_lines_name_no_build_python(text):
    assert paste_facts.parse(text).build_pythons == []
