"""Held-out set ET (tests/data/real/2560-2562, HELDOUT.md): a theme-neutral sample of ROCm's main tracker in 2026
(ROCm/ROCm, indexed as ROCm/legacy-rocm-build, issues numbered 5700 and above).  2560's failing line is CMake's
generate-step refusal of an imported target whose INTERFACE_INCLUDE_DIRECTORIES names a directory that does not exist
(Kitware/CMake Source/cmGeneratorTarget_IncludeDirectories.cxx: "Imported target \"<name>\" includes non-existent
path\\n  \"<dir>\"\\nin its INTERFACE_INCLUDE_DIRECTORIES. Possible reasons include: ..."), read at packaging by the row
et_cmake_imported_target_nonexistent_include; 2561 led at framework on the unchanged code; 2562 (a slowdown shown only by
two successful runs' timings) is a miss (tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "et_cmake_imported_target_nonexistent_include"


@pytest.mark.parametrize("num,layer", [("2560", "packaging"), ("2561", "framework")])
def test_the_set_et_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_performance_regression_stays_a_miss():
    # no line of 2562's pastes is an error: the slowdown is only in the timings of two successful runs
    assert _lead_layer(_fixture("2562")) is None


def test_the_row_names_2560s_line_and_leads_at_packaging():
    assert_named_and_leads("2560", ROW, "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/ROCm#5817: RCCL configured against a TheRock nightly's rocm_smi config)
    '  Imported target "rocm_smi64" includes non-existent path',
    # TheRock's super-build prefix (ROCm/TheRock#198, hipBLASLt configured with THEROCK_BUNDLE_SYSDEPS=OFF)
    '[hipBLASLt configure]   Imported target "rocm_smi64" includes non-existent path',
    # pybind11's embed target naming a missing Python include directory (Emrys-Lee/Traffic4D-Release#3)
    '  Imported target "pybind11::embed" includes non-existent path',
    # pybind11's module target from an Anaconda python.app (steven-ray/modular_tree#2)
    '  Imported target "pybind11::module" includes non-existent path',
])
def test_the_row_reads_cmakes_wordings(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "packaging"


@pytest.mark.parametrize("line", [
    # another CMake check on the same property (a build-tree path exported): not a missing directory
    '  Target "opencv_core" INTERFACE_INCLUDE_DIRECTORIES property contains path:',
    # CMake's message for an imported target's missing library file, not an include directory
    '  The imported target "hip::amdhip64" references the file',
    # a found package, no error
    '-- Found rocprofiler-register: /opt/rocm (found version "0.6.0")',
])
def test_lines_that_are_not_the_refusal_do_not_match(line):
    assert ROW not in _ids(line)
