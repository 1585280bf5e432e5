"""Held-out set CK (tests/data/real/1720-1723, HELDOUT.md): AMD's validation, stress and benchmark tools.  Rows taken
from the programs that print the lines: the ROCm Validation Suite's CLI (rvs/src/rvsexec.cpp, both 'No ... support for
the detected GPU' wordings), its modules' configuration checks (gst/iet/edp/perf/tst action.cpp, src/rvsactionbase.cpp,
rvsexec_do_yaml.cpp) and the loader's missing-library line for the reference BLAS/LAPACK libraries that ROCm's bench
and test clients link (system_library_missing, glibc's dl-load.c wording)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

PLATFORM = "ck_rvs_no_platform_support_for_gpu"
CONFIG = "ck_rvs_config_key_invalid"
SYSLIB = "system_library_missing"


@pytest.mark.parametrize("num,row,layer", [
    ("1720", PLATFORM, "framework"),
    ("1721", CONFIG, "framework"),
    ("1722", SYSLIB, "packaging"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("row,layer", [(PLATFORM, "framework"), (CONFIG, "framework"), (SYSLIB, "packaging")])
def test_rows_are_at_their_layer(row, layer):
    assert error_signatures.failure_layer(row) == layer


# ---- RVS's CLI: the '-m' and '-r' wordings of rvsexec.cpp

@pytest.mark.parametrize("line", [
    "RVS-ERROR [CLI] No platform support for the detected GPU or no GPU detected !",
    "RVS-ERROR [CLI] No test levels support for the detected GPU or no GPU detected !",
])
def test_rvs_platform_lines_are_named(line):
    assert PLATFORM in _ids(line), line


@pytest.mark.parametrize("line", [
    # other CLI errors of rvsexec.cpp are not the platform table
    "RVS-ERROR [CLI] Test level must be between 1 and 5 !",
    "RVS-ERROR [CLI] could not list GPUs.",
    # prose about support, not RVS's line
    "No platform support for this GPU yet, see the release notes",
])
def test_rvs_platform_near_misses(line):
    assert PLATFORM not in _ids(line), line


# ---- RVS's configuration checks: every module's two wordings and the CLI's

@pytest.mark.parametrize("line", [
    "RVS-ERROR [GST] [gpustress] key 'target_stress' was not found",
    "RVS-ERROR [IET] [action_1] key 'target_power' was not found",
    "RVS-ERROR [gst] [gst-1215Tflops-4K4K8K-rand-fp8] invalid 'target_stress' key value 1215",
    "RVS-ERROR [pebb] [action_1] invalid 'parallel' key value",
    "RVS-ERROR [CLI] Invalid configuration file !",
    "RVS-ERROR [CLI] Invalid module name: gstt",
])
def test_rvs_config_lines_are_named(line):
    assert CONFIG in _ids(line), line


@pytest.mark.parametrize("line", [
    # the action's status line names no cause
    "RVS-ERROR [gst] [gpustress] Action failed to run successfully.",
    # a test result, not a configuration error (set CK's search: an iet power run)
    "RVS-ERROR [iet] [action_5] Action failed to run successfully.",
    # another program's 'was not found'
    "ERROR: key 'target_stress' was not found in dict",
])
def test_rvs_config_near_misses(line):
    assert CONFIG not in _ids(line), line


# ---- the reference BLAS/LAPACK libraries of ROCm's clients, by the loader's wording

@pytest.mark.parametrize("line", [
    "libopenblas.so.0: cannot open shared object file: No such file or directory",
    "/opt/rocm/bin/hipblaslt-bench: error while loading shared libraries: libopenblas.so.0: cannot open shared object"
    " file: No such file or directory",
    "/opt/rocm/bin/rocblas-bench: error while loading shared libraries: libcblas.so.3: cannot open shared object file:"
    " No such file or directory",
    "rocsolver-bench: error while loading shared libraries: liblapack.so.3: cannot open shared object file: No such file"
    " or directory",
    "libblis-mt.so.4: cannot open shared object file: No such file or directory",
])
def test_blas_library_missing_is_named(line):
    assert SYSLIB in _ids(line), line


@pytest.mark.parametrize("line", [
    # ROCm's own BLAS libraries are not distribution libraries
    "error while loading shared libraries: librocblas.so.5: cannot open shared object file: No such file or directory",
    "libhipblaslt.so.1: cannot open shared object file: No such file or directory",
    # a found library
    "libopenblas.so.0 => /lib/x86_64-linux-gnu/libopenblas.so.0 (0x00007f0a1c000000)",
])
def test_blas_near_misses(line):
    assert SYSLIB not in _ids(line), line
