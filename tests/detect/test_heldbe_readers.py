"""(s13-heldbe, set BE) Two lines that name the running GPU's gfx target, each read from the program that prints it:
rocBLAS's and hipBLASLt's failed load of 'TensileLibrary_lazy_<processor>.dat' (the library file named for the device's
target, tensile_host.cpp; 1423) and Unsloth Studio's installer/setup summary 'gpu  AMD ROCm (gfx1201)' (install.sh,
studio/setup.sh; 1421).  Near-misses: a listing of the library folder, another target's file named in prose, the summary
without a target, and a paste that overrides the target."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts


def _gfx(text: str):
    return sorted({g.gfx_target for g in paste_facts.parse(text).gpus if g.gfx_target})


@pytest.mark.parametrize("line,gfx", [
    # the fixture's line (hipBLASLt inside the Alpaca Flatpak's Ollama plugin)
    ("rocblaslt error: Could not load /app/plugins/Ollama/lib/ollama/rocm/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat",
     "gfx1201"),
    # rocBLAS's wording of the same failed load
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1036.dat: No such file or directory",
     "gfx1036"),
    ("rocBLAS error: Cannot read /usr/lib64/rocblas/library/TensileLibrary_lazy_gfx90a.dat: No such file or directory",
     "gfx90a"),
])
def test_a_failed_tensile_load_names_the_devices_target(line, gfx):
    assert _gfx(line) == [gfx]


@pytest.mark.parametrize("text", [
    # a listing of the folder names every target the package ships, not the device's
    "TensileLibrary_lazy_gfx1030.dat  TensileLibrary_lazy_gfx1100.dat  TensileLibrary_lazy_gfx1201.dat",
    "-rw-r--r-- 1 root root 12345 TensileLibrary_lazy_gfx942.dat",
    # the same failed load under an override: the file is the overridden target's
    "HSA_OVERRIDE_GFX_VERSION=11.0.0\nrocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/"
    "TensileLibrary_lazy_gfx1100.dat: No such file or directory",
])
def test_listings_and_overridden_loads_name_no_target(text):
    assert _gfx(text) == []


@pytest.mark.parametrize("line,gfx", [
    ("  gpu            AMD ROCm (gfx1201)", "gfx1201"),                                 # the fixture (setup.sh)
    ("  gpu            AMD ROCm (gfx1150)", "gfx1150"),                                 # unsloth#7280's installer
    ("  gpu            AMD ROCm (gfx1201, PyTorch cannot use it)", "gfx1201"),          # PR 8606's warning form
    ("[1786969397930][stdout]   gpu            AMD ROCm (gfx1030)", "gfx1030"),         # the desktop app's phase log
])
def test_unsloths_summary_names_the_target(line, gfx):
    assert _gfx(line) == [gfx]


@pytest.mark.parametrize("line", [
    "  gpu            AMD ROCm",                                      # no target read (unsloth PR 9138's log)
    "  gpu            AMD GPU (no usable ROCm -- CPU fallback)",      # 1421's first run
    "The installer said gpu AMD ROCm (gfx1201) but torch sees nothing",  # prose about it
])
def test_other_summary_lines_name_no_target(line):
    assert _gfx(line) == []


def _amd(tmp_path, files):
    from rocm_wizard.detect import detect_snapshot

    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return detect_snapshot(str(tmp_path)).amd_gpus


GGML = ("ggml_cuda_init: found 1 ROCm devices:\n"
        "  Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32\n")


def test_a_target_only_line_is_no_second_gpu_where_a_gpu_of_that_target_is_named(tmp_path):
    amd = _amd(tmp_path, {"bench.txt": GGML, "journal.txt": 'rocblaslt error: Could not load "TensileLibrary_lazy_gfx1151.dat"\n'})
    assert len(amd) == 1 and amd[0].gfx_target == "gfx1151"


def test_a_target_only_line_of_another_target_stays_its_own_gpu(tmp_path):
    amd = _amd(tmp_path, {"bench.txt": GGML, "setup.txt": "  gpu            AMD ROCm (gfx1201)\n"})
    assert sorted(g.gfx_target for g in amd) == ["gfx1151", "gfx1201"]
