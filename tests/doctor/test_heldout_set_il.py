"""Held-out set IL (tests/data/real/3410-3413, HELDOUT.md): a second theme-neutral sample of the image-generation
front-ends' AMD GPU issues (SD.Next's installer finding no ROCm agent, rocBLAS of TheRock's wheels in SD.Next's venv
without a Tensile library for gfx1200, SD.Next's ZLUDA loader failing on a DLL, Stability Matrix not finding an AMD GPU on
Linux).  Two led at their layer on the unchanged code.  Two did not:

* 3412: 'Failed to load ZLUDA: Could not find module '...\\.zluda\\nvcuda.dll' (or one of its dependencies) ...', SD.Next's
  installer.py (install_rocm_zluda: log.warning(f'Failed to load ZLUDA: {e}')) relaying CPython's ctypes
  FileNotFoundError (Modules/_ctypes/callproc.c).  SD.Next's rich console wraps the line inside '(or one / of its
  dependencies)', so windows_dll_not_found did not read it.  Row il_zluda_load_dll_not_found reads the loader's line at
  framework; it sits before windows_dll_not_found so that an unwrapped copy is read at the loader's layer too.
* 3413: Stability Matrix's GPU probe (LykosAI/StabilityMatrix StabilityMatrix.Core/Helper/HardwareInfo/HardwareHelper.cs,
  IterGpuInfo: Logger.Error(e, "Failed to get GPU info using nvidia-smi, falling back to registry")), the first sign of
  the app's own GPU detection taking its fallback on an AMD machine.  Row il_stabilitymatrix_gpu_probe_nvidia_smi_failed
  (framework, a warning: the line alone is also printed where the fallback then finds the GPU)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, doctor_files, fixture as _fixture, ids, lead_layer as _lead_layer
from rwtest.heldout import problems

ZLUDA = "il_zluda_load_dll_not_found"
SMATRIX = "il_stabilitymatrix_gpu_probe_nvidia_smi_failed"


@pytest.mark.parametrize("num,layer", [("3410", "runtime"), ("3411", "libraries"), ("3412", "framework"),
                                       ("3413", "framework")])
def test_the_set_il_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("3412", ZLUDA), ("3413", SMATRIX)])
def test_the_new_rows_name_their_fixture_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line as SD.Next's console wraps it (vladmandic/sdnext#3910, comment of 2025-05-04)
    "08:52:06-241924 WARNING  Failed to load ZLUDA: Could not find module 'C:\\Documents\\SD\\sdnext\\.zluda\\nvcuda.dll'"
    " (or one",
    # the same fixture's title
    "[Issue]: Failed to load ZLUDA: Could not find module. Try using the full path with constructor syntax.",
    # vladmandic/sdnext#3646's title (2024-12) and #3651's title (2024-12), ZLUDA's nvrtc replacement
    "[Issue]: Failed to load ZLUDA: Could not find module 'nvrtc64_112_0.dll'",
    "[Issue]: WARNING Failed to load ZLUDA: Could not find module 'E:\\Stable Diffusion\\ZLUDA STABLE diffusion\\automatic"
    ".zluda\\nvrtc64_112_0.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
])
def test_the_zluda_row_reads_the_loaders_dll_failure(line):
    assert ZLUDA in ids(line)
    assert error_signatures.failure_layer(ZLUDA) == "framework"


@pytest.mark.parametrize("line", [
    # the loader's other failures: a missing export (gu_webui_zluda_load_missing_export, fixture 3024) and 3040's
    "Failed to load ZLUDA: function 'zluda_get_nightly_flag' not found",
    "Failed to load ZLUDA: list index out of range",
    # ctypes' message from another program (koboldcpp, windows_dll_not_found's example), and the loader's success line
    "FileNotFoundError: Could not find module 'C:\\Users\\csman\\AppData\\Local\\Temp\\_MEI29962\\koboldcpp_vulkan.dll' (or"
    " one of its dependencies). Try using the full path with constructor syntax.",
    "Using ZLUDA in C:\\SD-Zluda\\stable-diffusion-webui-amdgpu\\.zluda",
])
def test_near_misses_are_not_read_as_the_zluda_dll_failure(line):
    assert ZLUDA not in ids(line)


def test_an_unwrapped_zluda_line_leads_at_framework_not_packaging(tmp_path):
    line = ("17:13:05-105212 WARNING  Failed to load ZLUDA: Could not find module 'E:\\SD\\automatic\\.zluda\\"
            "nvrtc64_112_0.dll' (or one of its dependencies). Try using the full path with constructor syntax.\n")
    found = problems(doctor_files(tmp_path, {"sdnext.txt": line}))
    assert found and found[0][1] == "framework"


@pytest.mark.parametrize("line", [
    # the fixture's line (LykosAI/StabilityMatrix#1331, 2.14.3 AppImage on Linux; NLog's layout, a trailing blank)
    "04:29:49.920 ERROR HardwareHelper: Failed to get GPU info using nvidia-smi, falling back to registry ",
    # the source's message under another timestamp, as a Windows run logs it (HardwareHelper.cs, IterGpuInfo)
    "21:07:13.402 ERROR HardwareHelper: Failed to get GPU info using nvidia-smi, falling back to registry",
])
def test_the_stability_matrix_row_reads_the_gpu_probes_fallback(line):
    assert SMATRIX in ids(line)
    assert error_signatures.failure_layer(SMATRIX) == "framework"


@pytest.mark.parametrize("line", [
    # another program's nvidia-smi probe (gpustack/gpustack#2078) and a shell script's own message without the class
    "2025-05-21T21:55:49+08:00 - gpustack.worker.collector - ERROR - Failed to detect GPU devices: Failed to execute"
    " ['nvidia-smi', '--format=csv,noheader']: Unexpected return code: 255",
    "[ERROR] Failed to get GPU info using nvidia-smi",
    # the shell's 'not found' (bm_nvidia_smi_not_found_on_amd) and prose
    "bash: nvidia-smi: command not found",
    "Stability Matrix says HardwareHelper failed and I have no idea why",
])
def test_near_misses_are_not_read_as_the_stability_matrix_probe(line):
    assert SMATRIX not in ids(line)
