"""Held-out set HU (tests/data/real/3240-3244, HELDOUT.md): a fourth theme-neutral sample of Ollama's AMD GPU issues
(2025-2026).  All five lead at their labelled layer on the unchanged code, so no row was added; these tests hold the
set's leads and the existing rows that carry them: hipBLASLt's missing-library message (ROCm/hipBLASLt
library/src/amd_detail/rocblaslt/src/tensile_host.cpp: 'rocblaslt error: Cannot read <file>: <strerror>' and
'rocblaslt error: Could not load <file>', the file printed with or without its folder and quotes), Mesa RADV's
winsys submission failure (mesa src/amd/vulkan/winsys/amdgpu/radv_amdgpu_cs.c) and Ollama's runner-terminated error."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3240", "framework"), ("3241", "framework"), ("3242", "libraries"),
                                       ("3243", "libraries"), ("3244", "libraries")])
def test_the_set_hu_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # 3243 (ollama/ollama#11555): the journal's full path with strerror
    "Jul 28 15:11:48 ubuntu24 ollama[307422]: rocblaslt error: Cannot read "
    "/usr/local/lib/ollama/rocm/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat: No such file or directory",
    # 3242 (ollama/ollama#11652): the 'Could not load' form of the title
    "rocblaslt error: Could not load /usr/local/lib/ollama/rocm/hipblaslt/library/TensileLibrary_lazy_gfx1200.dat",
    # 3244 (ollama/ollama#15452): the quoted bare file name
    'rocblaslt error: Cannot read "TensileLibrary_lazy_gfx1200.dat": No such file or directory',
    # LM Studio on Windows (lmstudio-ai/lmstudio-bug-tracker#1163): a drive-letter path
    "rocblaslt error: Cannot read C:\\Users\\me\\.lmstudio\\extensions\\backends\\vendor\\win-llama-rocm-vendor-v5\\bin"
    "\\/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat: No such file or directory",
])
def test_hipblaslt_missing_library_wordings_are_read_at_libraries(line):
    assert "rocblaslt_tensile_missing" in _ids(line)
    assert error_signatures.failure_layer("rocblaslt_tensile_missing") == "libraries"


@pytest.mark.parametrize("line", [
    "rocBLAS warning: hipBlasLT failed, falling back to tensile.",            # the fallback notice, no file
    "rocblaslt info: loaded TensileLibrary_lazy_gfx1201.dat",                # not an error line
    "ls /usr/local/lib/ollama/rocm/hipblaslt/library/TensileLibrary_lazy_gfx1200.dat",   # a command naming the file
])
def test_lines_that_do_not_say_hipblaslt_failed_to_read_are_not_read_so(line):
    assert "rocblaslt_tensile_missing" not in _ids(line)


def test_radv_submission_failure_and_device_lost_are_read_at_framework():
    found = _ids((_fixture("3241") / "error.txt").read_text(encoding="utf-8"))
    assert {"fx_mesa_winsys_cs_not_enough_memory", "ct_vulkan_app_device_lost"} <= found
    assert {error_signatures.failure_layer(i) for i in found} == {"framework"}


def test_the_ggml_assert_behind_msty_is_read_as_ollama_runner_terminated():
    found = _ids((_fixture("3240") / "server-log-tail.txt").read_text(encoding="utf-8"))
    assert "wl_ollama_runner_terminated" in found
