"""Held-out set FA (tests/data/real/2602-2604, HELDOUT.md): a theme-neutral sample of ROCm's new build and systems
trackers in 2026 (ROCm/TheRock, ROCm/rocm-systems, ROCm/rocm-libraries).  2602's failing step is TheRock's super-build
stopping at a sub-project's step (cmake/therock_subproject.cmake's "Configure/Building/Stage installing sub-project %s"
and cmake/therock_artifacts.cmake's "Populate artifact %s" progress lines, then ninja's "FAILED: " / "build stopped" or
the Actions runner's "Error: Process completed with exit code N."), read at packaging by the whole-text row
fa_therock_superbuild_step_failed; 2603's is rocprofiler-compute's own ROCm version detection (ROCm/rocm-systems
projects/rocprofiler-compute/src/utils/specs.py, get_rocm_ver), read at libraries by
fa_rocprof_compute_rocm_version_undetected, and the preview-build statement beside it now follows it (a status rule,
doctor/model.py STATUS_RULES); 2604 led at libraries on the unchanged code (MIOpen's logged error)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

STEP = "fa_therock_superbuild_step_failed"
VER = "fa_rocprof_compute_rocm_version_undetected"


@pytest.mark.parametrize("num,layer", [("2602", "packaging"), ("2603", "libraries"), ("2604", "libraries")])
def test_the_set_fa_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_step_row_names_2602s_step_and_leads_at_packaging():
    assert_named_and_leads("2602", STEP, "packaging")


def test_the_version_row_names_2603s_lines_and_leads_at_libraries():
    assert_named_and_leads("2603", VER, "libraries")


@pytest.mark.parametrize("text,step,name", [
    # the fixture's CI log (ROCm/TheRock#6221, Linux packages for gfx94X-dcgpu)
    ("[279/288] Stage installing sub-project rocshmem\n[280/288] Populate artifact rocshmem\n"
     "Error: Process completed with exit code 255.\n", "Populate artifact", "rocshmem"),
    # a Windows CI stage failure (ROCm/TheRock#5024): the step before it is another sub-project's and must not be named
    ("[169/263] Configure sub-project rocFFT (in background)\n[170/263] Building sub-project hipCUB (in background)\n"
     "[171/263] Stage installing sub-project hipCUB\nFAILED: math-libs/hipCUB/stamp/stage.stamp B:/build/math-libs/hipCUB/"
     "stamp/stage.stamp \n", "Stage installing sub-project", "hipCUB"),
    # a configure failure in a local build (ROCm/TheRock#1135, rocRoller for gfx1103)
    ("[301/384] Configure sub-project rocRoller (in background)\nFAILED: math-libs/BLAS/rocRoller/stamp/configure.stamp "
     "math-libs/BLAS/rocRoller/build/CMakeCache.txt\n", "Configure sub-project", "rocRoller"),
    # rocminfo's configure after the runtime's sub-build line (ROCm/TheRock#949)
    ("[ROCR-Runtime completed in 0 seconds]\n[21/116] Configure sub-project rocminfo (in background)\nFAILED: core/rocminfo/"
     "stamp/configure.stamp core/rocminfo/build/CMakeCache.txt\n", "Configure sub-project", "rocminfo"),
    # ninja's closing line right after a sub-project's build step (ROCm/TheRock#849)
    ("[rocprofiler-register completed in 4 seconds]\n[27/91] Building sub-project therock-numactl (in background)\n"
     "ninja: build stopped: subcommand failed.\n", "Building sub-project", "therock-numactl"),
])
def test_the_step_row_reads_therocks_stopped_steps(text, step, name):
    hits = [m for s, m in error_signatures.scan(text) if s.id == STEP]
    assert hits, text
    first = hits[0].split("\n", 1)[0]  # the matched text starts at the step line the row names
    assert f"] {step} {name}" in first and (first.endswith(name) or first[first.index(name) + len(name)] == " ")
    assert error_signatures.failure_layer(STEP) == "packaging"


@pytest.mark.parametrize("text", [
    # a super-build that goes on to its end (a TheRock contributor's rdc build log)
    "[8/11] Configure sub-project rdc (in background)\n[9/11] Building sub-project rdc (in background)\n"
    "[10/11] Stage installing sub-project rdc\n",
    # a sub-project's own ninja inside TheRock's prefix (ROCm/TheRock#154): its FAILED line is the component's, no step's
    "[hipBLASLt] [3/37] Generating Tensile Libraries\n[hipBLASLt] FAILED: Tensile/library /therock/output/build/math-libs/"
    "BLAS/hipBLASLt/build/Tensile/library \n",
    # CMake's ExternalProject steps, not TheRock's (coal-library/coal#677)
    "[2/9] Performing download step (git clone) for 'stubgen'\nFAILED: stubgen-prefix/src/stubgen-stamp/stubgen-download\n",
    # an Actions step that fails after other output (constructed: a test run, no super-build line)
    "FAILED tests/test_rocm_sanity.py::TestROCmSanity::test_rocm_output - AssertionError\n"
    "Error: Process completed with exit code 1.\n",
])
def test_text_that_is_no_stopped_step_does_not_match(text):
    assert STEP not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's warnings (ROCm/rocm-systems#8098, rocprof-compute 3.6.0 under /opt/rocm-7.13.0)
    "WARNING Unable to detect a complete local ROCm installation.\n"
    "WARNING The expected /opt/rocm-7.13.0/.info/ versioning directory is missing.\n",
    # the hard error of later releases on a ROCm 10.1 install (ROCm/rocm-systems#11351's report)
    "ERROR Unable to detect a complete local ROCm installation.\nThe expected /opt/rocm/.info/ versioning directory is "
    "missing.\nEnsure you have a valid ROCm installation, or set ROCM_VER to override.\n",
    # Omniperf's form (ROCm/rocprofiler-compute src/omniperf: print("Error: ...") and the path line; from the source)
    "Error: Unable to detect a complete local ROCm installation.\n\nThe expected /opt/rocm/.info/ versioning directory "
    "is missing. Please\nensure you have valid ROCm installation.\n",
])
def test_the_version_row_reads_rocprof_computes_wordings(text):
    assert VER in _ids(text)
    assert error_signatures.failure_layer(VER) == "libraries"


@pytest.mark.parametrize("line", [
    # the override's log line when ROCM_VER is set (get_rocm_ver's console_log): detection succeeded
    "Overriding missing ROCm version detection with ROCM_VER = 7.13.0",
    # rocprof-compute's unsupported-arch refusal has its own row
    "ERROR Cannot find a supported arch in rocminfo.",
    # a healthy start-up line of the same tool
    "   INFO Rocprofiler-Compute version: 3.6.0",
])
def test_lines_that_are_not_the_version_refusal_do_not_match(line):
    assert VER not in _ids(line)
