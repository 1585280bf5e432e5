"""Held-out set FI (tests/data/real/2640-2645, HELDOUT.md): a theme-neutral sample of the LLM serving engines' AMD GPU
issues of 2025-2026 (vLLM, SGLang, AITER).  Five of six led at their layer on the unchanged code; 2640 stays a miss
(vLLM's traceback frames cut before Composable Kernel's refusal, in MISSES).  The fixes: the HIP runtime's own report of
a GPU memory fault, 'Memory Fault Error [%sGPU index: %u, faulting addr: 0x%lx, kernel: %s]' (ROCm/rocm-systems
projects/clr/rocclr/device/rocm/rocdevice.cpp, Device::BackendErrorCallBackHandler), which the catch-all read at kernel
by its 'kernel:' word, is a catalogue row at runtime; SGLang's environment report (sgl-project/sglang
python/sglang/check_env.py) no longer makes its 'name: Module Not Found' inventory lines unrecognised failures, and its
'PyTorch: <torch.__version__>' line names the torch version whatever the local tag; the memory-access-fault rule
also reads ROCr's HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION (rocr-runtime core/runtime/hsa.cpp), the class's fault in
the runtime's status words (2644)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

MEM_FAULT = "fi_clr_memory_fault_error_kernel"


@pytest.mark.parametrize("num,layer", [("2641", "framework"), ("2642", "kernel"), ("2643", "runtime"),
                                       ("2644", "runtime"), ("2645", "libraries")])
def test_the_set_fi_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_memory_fault_row_names_2643s_line_and_the_fixture_leads_at_runtime():
    assert_named_and_leads("2643", MEM_FAULT, "runtime")


@pytest.mark.parametrize("line", [
    # the fixture's line, the reporter's shortened copy (sgl-project/sglang#39517, MI300X/MI325X/MI355X)
    "Memory Fault Error [... kernel: _ZN7ck_tile6kentryILi1ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmha"
    "BatchPrefillPipelineQRKSVSAsyncI...]",
    # a CI log's copy wrapped after the address (ROCm/TheRock#6472, rocSPARSE on gfx1151, ctest's '9: ' prefix)
    "9: :0:rocdevice.cpp            :3781: 1322868210220 us:  Memory Fault Error [host: 62f9aa2c321e, GPU index: 0, "
    "faulting addr: 0x0,",
    # the source's format on one line, with and without the host tag (rocdevice.cpp, ClPrint LOG_ALWAYS)
    ":0:rocdevice.cpp            :3905: 53892590555 us:  Memory Fault Error [host: node7, GPU index: 3, faulting addr: "
    "0x7fb3edc00000, kernel: Cijk_Ailk_Bjlk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x32x128_MI16x16x1]",
    "Memory Fault Error [GPU index: 0, faulting addr: 0x7f2d68800000, kernel: rocsparse::csr2hyb_kernel<512u, float>]",
])
def test_the_memory_fault_row_reads_clrs_wordings(line):
    assert MEM_FAULT in _ids(line)
    assert error_signatures.failure_layer(MEM_FAULT) == "runtime"


@pytest.mark.parametrize("line", [
    "we keep seeing a Memory Fault Error in the server log",       # prose, no bracket
    "Memory Fault Error [see the attached log]",                   # a bracket without the format's fields
    ":1:rocdevice.cpp            :3640: 1234 us:  Memory Fault Error",  # CLR's LogError at level 1, no kernel named
])
def test_lines_that_are_not_clrs_report_are_not_the_row(line):
    assert MEM_FAULT not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's check_env (sgl-project/sglang#10195)
    "anthropic: Module Not Found", "flashinfer_python: Module Not Found",
    # a CUDA host's report (sgl-project/sglang#18989)
    "torchcodec: Module Not Found",
])
def test_sglang_check_envs_missing_packages_are_not_failures(line):
    assert not failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    "ModuleNotFoundError: No module named 'aiter'",                # Python's import failure stays one
    "ERROR: module not found: amdgpu",                             # a program's error line
])
def test_real_import_failures_still_look_like_failures(line):
    assert failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("text,torch", [
    # the fixture's (sgl-project/sglang#10195): a ROCm image's source build
    ("Python: 3.12.8 (main, Dec  4 2024, 08:54:12) [GCC 11.4.0]\nROCM available: True\nPyTorch: 2.6.0a0+git8d4926e\n"
     "sglang: 0.5.2rc1\nsgl_kernel: 0.3.8\n", "2.6.0a0+git8d4926e"),
    # ROCm 7.2's image (sgl-project/sglang#38849, MI300X VF)
    ("ROCM_HOME: /opt/rocm-7.2.0\nPyTorch: 2.9.1+rocm7.2.0.git7e1940d4\nsglang: 0.5.18\nsglang-kernel: 0.4.6.post1\n",
     "2.9.1+rocm7.2.0.git7e1940d4"),
    # a CUDA host's report (sgl-project/sglang#18989)
    ("CUDA available: True\nPyTorch: 2.9.1+cu129\nsglang: 0.0.0.dev1+gd3bae71e3\nsgl_kernel: 0.3.21\n", "2.9.1+cu129"),
])
def test_sglang_check_envs_pytorch_line_names_the_torch_version(text, torch):
    assert (torch, None) in paste_facts.parse(text).torch


@pytest.mark.parametrize("text", [
    "Python: 3.12.8\nROCM available: True\nPyTorch: 2.6.0a0+git8d4926e\n",   # no sglang line: not the report
    "sglang: 0.5.2\nPyTorch: 2.6.0 or newer is required\n",                 # prose after the label
])
def test_a_pytorch_label_outside_sglangs_report_names_no_source_build(text):
    assert not any(v.startswith("2.6.0") for v, _ in paste_facts.parse(text).torch)


def test_the_memory_access_fault_rule_reads_the_runtimes_aperture_violation():
    # 2644 (ROCm/aiter#1143): CLR's queue callback with ROCr's HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION is the
    # class's fault in the runtime's status words (rocr-runtime core/runtime/hsa.cpp hsa_status_string)
    from rwtest import realrun
    found = {f.id: f for f in realrun.diagnosis(_fixture("2644")).findings}
    assert found["memory-access-fault"].layer == "runtime"
    assert any("APERTURE_VIOLATION" in e for e in found["memory-access-fault"].evidence)
