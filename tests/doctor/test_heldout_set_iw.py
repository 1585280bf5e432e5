"""Held-out set IW (tests/data/real/3520-3524, HELDOUT.md): a theme-neutral sample of threads about research GPU
libraries on AMD GPUs (OpenSplat's ROCm build training after a fix, mamba-ssm's pip installs failing twice -- its
metadata step under --no-build-isolation and pip's isolated build environment pulling a CUDA torch --, xformers aborting
in the HIP runtime under WSL2, and SageAttention's Triton kernel failing to compile on an RX 6800 in 2026).  On the
unchanged code 3522 led at packaging and 3524 at framework; 3521 was read at packaging by the pip row where the thread
puts it at framework (MISSES, as 2982); 3523 was led at runtime by torch's amd-smi warning.  The fixes:

* 3523: the HIP runtime's guarantee in Function::getStatFunc, 'Module not initialized', printed through
  amd::log_printf with the source file and line and then abort() (ROCm/clr hipamd/src/hip_global.cpp,
  rocclr/utils/debug.hpp): row iw_hip_global_module_not_initialized reads it at hip.
* 3523: torch's 'Can't initialize amdsmi - Error code: N' is a warning after which torch counts the GPUs through
  HIP (pytorch/pytorch torch/cuda/__init__.py _raw_device_count_amdsmi returns -1); code 34 is
  AMDSMI_STATUS_DRIVER_NOT_LOADED (ROCm/amdsmi amdsmi.h), printed on every WSL2 start.  Row torch_amdsmi_init_failed
  now reads it as information, so it no longer leads over the failure that follows.
* 3523's detection: a check script's label in another script after the name ('PyTorch版本: 2.8.0+rocm6.4') is read
  as torch's version (paste_facts._TORCH_LABELLED)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, doctor_files, fixture as _fixture, ids, lead_layer as _lead_layer, problems

MODULE = "iw_hip_global_module_not_initialized"
SMI = "torch_amdsmi_init_failed"


@pytest.mark.parametrize("num,layer", [("3522", "packaging"), ("3523", "hip"), ("3524", "framework")])
def test_the_set_iw_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_opensplat_run_raises_nothing():
    assert _lead_layer(_fixture("3520")) is None


def test_the_module_row_names_its_fixture_and_leads_at_hip():
    assert_named_and_leads("3523", MODULE, "hip")


@pytest.mark.parametrize("line", [
    # the fixture's line (facebookresearch/xformers#1314, torch 2.8.0+rocm6.4's bundled HIP runtime)
    "longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/clr/hipamd/src/"
    "hip_global.cpp:158 : 1096688401 us:  Module not initialized",
    # constructed from amd::log_printf's form as the 'Cannot find Symbol' guarantee of the same file prints it in
    # newer runtimes (level prefix, pid and tid: the hip_cannot_find_symbol row's example)
    ":0:/long_pathname_so_that_rpms_can_package_the_debug_info/src/external/clr/hipamd/src/hip_global.cpp:150 : "
    "2813161128841 us: [pid:165941 tid:0x14a21b4cab80] Module not initialized",
    # constructed: a TheRock build's path, one space after 'us:'
    "/__w/TheRock/TheRock/rocm-systems/projects/clr/hipamd/src/hip_global.cpp:157 : 88412 us: Module not initialized",
])
def test_the_module_row_reads_hips_guarantee(line):
    assert MODULE in ids(line)
    assert error_signatures.failure_layer(MODULE) == "hip"


@pytest.mark.parametrize("line", [
    # other programs' words (a Python module's RuntimeError, a TypeScript service)
    'RuntimeError: AutoMod module not initialized. Call automod.setup(db) first.',
    "Error: Agents module not initialized",
    # the same file's other guarantee is the symbol row's, not this one
    ":0:/x/src/clr/hipamd/src/hip_global.cpp:114 : 2813161128841 us: [pid:1 tid:0x1] Cannot find Symbol with name: _Z3fooi",
])
def test_lines_that_are_not_the_guarantee_are_left_alone(line):
    assert MODULE not in ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (xformers#1314, WSL2)
    "/home/ai/.local/lib/python3.10/site-packages/torch/cuda/__init__.py:816: UserWarning: Can't initialize amdsmi - Error code: 34",
    # a WSL2 7900 XTX that runs ComfyUI (ROCm/legacy-rocm-build#4459, where AMD calls the line expected on WSL)
    "/home/soraka/.local/lib/python3.10/site-packages/torch/cuda/__init__.py:645: UserWarning: Can't initialize amdsmi - Error code: 34",
    # a LUMI login node without GPUs (the LUMI AI guide's container exercise, rocm-6.2.4 PyTorch image)
    "/opt/miniconda3/envs/pytorch/lib/python3.12/site-packages/torch/cuda/__init__.py:721: UserWarning: Can't initialize amdsmi - Error code: 34",
])
def test_torchs_amdsmi_warning_is_read_as_information(line):
    assert SMI in ids(line)
    assert error_signatures.failure_layer(SMI) == "runtime"
    assert next(r for r in error_signatures.FAILURES if r.id == SMI).severity == "info"


def test_the_amdsmi_warning_alone_raises_no_problem(tmp_path):
    # a WSL2 torch check whose GPU works (ROCm/legacy-rocm-build#5000's start-up lines, ComfyUI on a 7900 XTX)
    diag = doctor_files(tmp_path, {"log.txt": (
        "pytorch version: 2.6.0+rocm6.4.1.git1ded221d\n"
        "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:736: UserWarning: Can't initialize amdsmi - Error code: 34\n"
        "  warnings.warn(f\"Can't initialize amdsmi - Error code: {e.err_code}\")\n"
        "AMD arch: gfx1100\n"
        "Device: cuda:0 AMD Radeon RX 7900 XTX : native\n")})
    assert problems(diag) == []


@pytest.mark.parametrize("line,want", [
    ("PyTorch版本: 2.8.0+rocm6.4", "2.8.0+rocm6.4"),      # the fixture's line (xformers#1314)
    ("PyTorch版本：2.9.1+rocm7.1", "2.9.1+rocm7.1"),      # a full-width colon
    ("PyTorch 버전: 2.8.0+rocm6.4", "2.8.0+rocm6.4"),
    ("PyTorch версия: 2.7.1+rocm6.3", "2.7.1+rocm6.3"),
    ("torchvision版本: 0.23.0+rocm6.4", None),           # not torch
    ("ROCm版本: 6.4.43482-0f2d60242", None),             # the HIP version beside it
])
def test_a_translated_version_label_names_torch(line, want):
    m = paste_facts._TORCH_LABELLED.match(line)
    assert (m.group("torch") if m else None) == want


def test_the_source_line_python_echoes_under_a_warning_is_no_failure_line():
    from rocm_wizard.detect import failure_lines
    # cpython Lib/warnings.py: the warning, then its source line indented by two spaces
    text = ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:736: UserWarning: Can't initialize amdsmi - Error code: 34\n"
            "  warnings.warn(f\"Can't initialize amdsmi - Error code: {e.err_code}\")\n")
    assert not [l for l, _layer, _lab in failure_lines.scan([(text, None, "log")], known=[text.splitlines()[0]])]
    # the same words not under a warning's header stay a line to read
    alone = "  raise RuntimeError(\"Can't initialize amdsmi - Error code: 34\")\nRuntimeError: Can't initialize the GPU, failed\n"
    assert failure_lines.scan([(alone, None, "log")])
