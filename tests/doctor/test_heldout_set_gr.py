"""Held-out set GR (tests/data/real/2990-2994, HELDOUT.md): ROCm on the rpm and source distributions (Fedora, Gentoo).
All five fixtures are packaging failures; on the unchanged code one led at packaging.  The misses came from lines no
row read -- HIPCC's wrapper finding no compiled driver (ROCm/HIPCC bin/hipconfig, bin/hipcc), Portage's report of a
failed ebuild (gentoo/portage lib/_emerge/Scheduler.py, bin/isolated-functions.sh), CMake's Ninja generator refusing
the ninja it found (Kitware/CMake Source/cmGlobalNinjaGenerator.cxx), rocminfo's configure not finding ROCr (ROCm/rocminfo
CMakeLists.txt) -- and from the catch-all reading CMake's bare 'CMake Error:' header and Portage's status lines by the
package they name or the paste's kind (runtime, framework).  2994's failure is told only in prose (MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,row", [
    ("2990", "gr_hipcc_wrapper_bin_not_present"),
    ("2992", "gr_portage_failed_to_emerge"),
    ("2993", "gr_cmake_ninja_version_too_old"),
])
def test_the_set_gr_fixtures_are_named_and_lead_at_packaging(num, row):
    assert_named_and_leads(num, row, "packaging")


def test_the_source_build_fixture_keeps_its_packaging_lead():
    assert _lead_layer(_fixture("2991")) == "packaging"


@pytest.mark.parametrize("line,row", [
    # HIPCC's two wrappers (ROCm/HIPCC bin/hipconfig:49, bin/hipcc:57) and the title of koboldcpp-rocm#108 (Fedora 41)
    ("hipconfig.bin not present; Install HIPCC binaries before proceeding", "gr_hipcc_wrapper_bin_not_present"),
    ("hipcc.bin not present; install HIPCC binaries before proceeding", "gr_hipcc_wrapper_bin_not_present"),
    ("Compilation Error (Fedora 41): hipconfig.bin not present, ld cannot find not or present",
     "gr_hipcc_wrapper_bin_not_present"),
    # Portage: the Scheduler's line (justxi/rocm#39) and ebuild.sh's die header (justxi/rocm#91, sys-devel/hip-2.8.0)
    (">>> Failed to emerge dev-util/rocminfo-1.0.0, Log file:", "gr_portage_failed_to_emerge"),
    (" * ERROR: sys-devel/hip-2.8.0::rocm failed (configure phase):", "gr_portage_failed_to_emerge"),
    (" * ERROR: sci-libs/rocBLAS-7.2.0::gentoo failed (compile phase):", "gr_portage_failed_to_emerge"),
    # CMake's Ninja check: gentoo/gentoo#10724 (empty version, wrapped at 80 columns) and a one-line rendering
    ("  The detected version of Ninja () is less than the version of Ninja required", "gr_cmake_ninja_version_too_old"),
    ("The detected version of Ninja (1.2.0) is less than the version of Ninja required by CMake (1.3).",
     "gr_cmake_ninja_version_too_old"),
    # rocminfo's CMakeLists (both branches of its check)
    ("ERROR: Define ROCR_LIB_DIR pointing to ROCR libraries is not set", "gr_rocminfo_cmake_rocr_lib_dir_not_set"),
    ("ERROR: /opt/rocm/lib/libhsa-runtime.so doesn't exist. Check value of ROCM_DIR define",
     "gr_rocminfo_cmake_rocr_lib_dir_not_set"),
])
def test_the_new_rows_read_their_sources_wordings(line, row):
    assert row in _ids(line)
    assert error_signatures.failure_layer(row) == "packaging"


@pytest.mark.parametrize("line", [
    "-- Found hipcc: /usr/bin/hipcc.bin",                                  # the binary found, nothing missing
    ">>> Emerging (1 of 4) dev-util/rocminfo-1.0.0::rocm",                 # Portage's normal progress line
    "-- The detected version of Ninja is 1.11.1",                          # not CMake's refusal
    "ROCR_LIB_DIR=/usr/lib64",                                            # the variable, set
])
def test_near_misses_match_none_of_the_rows(line):
    assert not {i for i in _ids(line) if i.startswith("gr_")}


@pytest.mark.parametrize("line", [
    "CMake Error:",
    ">>> Jobs: 0 of 4 complete, 1 failed            Load avg: 0.53, 1.08, 1.34",
    " * ERROR: dev-libs/rocr-runtime-3.9.0::gentoo failed (configure phase):",
])
def test_cmake_and_portage_own_lines_are_packaging_in_the_layer_table(line):
    assert failure_lines.named_layer(line) == "packaging"
