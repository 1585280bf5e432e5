"""Held-out set IF (tests/data/real/3350-3353, HELDOUT.md): ROCm and HIP on Windows and WSL2, 2025-2026.  Both failing
fixtures (TheRock's Windows torch failing to load its DLLs at import) lead at framework on the unchanged code.  The
healthy WSL2 rocminfo of TheRock's SDK (3353) got two errors: the glibc 'cannot open shared object file' row read the WSL
thunk's own probe of the HSA runtime (ROCm/rocm-systems projects/rocr-runtime/libhsakmt/src/dxg/hsa.cpp,
hsakmt_hsa_loader_init(), whose result hsaKmtOpenKFD() in openclose.cpp ignores) as a missing ROCm library at packaging.
That line is now read by an information row at runtime; the other error, no_gpu_agent on the CPU-only agent list that the
index's cut leaves, stays (tests/doctor/test_known_failure.py FALSE_ALARMS says why)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import PROBLEM, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "if_rocdxg_hsa_loader_probe_dlopen_failed"
GLIBC_ROW = "rocm_library_dlopen_failed"


@pytest.mark.parametrize("num,layer", [("3351", "framework"), ("3352", "framework")])
def test_the_set_if_failing_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_windows_import_gets_no_problem():
    assert not [f for f in realrun.diagnosis(_fixture("3350")).findings if f.severity in PROBLEM]


def test_the_thunk_probe_is_no_longer_a_packaging_error():
    findings = [f for f in realrun.diagnosis(_fixture("3353")).findings if f.severity in PROBLEM]
    assert "packaging" not in {f.layer for f in findings}


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/rocm-cli#287, TheRock's _rocm_sdk_devel rocminfo --support under WSL2, 2026; the same
    # paste is in rocm-cli#286 and #288)
    "pid:14435 tid:0x750a661c8e80 [hsakmt_hsa_loader_init] dlopen libhsa-runtime64.so failed - libhsa-runtime64.so: "
    "cannot open shared object file: No such file or directory",
    # the later hsa.cpp's fallback wording (pr_err("dlopen libhsa-runtime64.so.1 failed - %s\n", dlerror()) after the
    # RTLD_NOLOAD check), rendered from the source with pr_err's pid/tid/function prefix: no real paste of it was found
    "pid:2211 tid:0x7f3a1c2b4740 [hsakmt_hsa_loader_init] dlopen libhsa-runtime64.so.1 failed - libhsa-runtime64.so.1: "
    "cannot open shared object file: No such file or directory",
    # the same line as a log collector keeps it, with a timestamp in front
    "2026-08-21T10:02:11Z pid:8 tid:0x7f00 [hsakmt_hsa_loader_init] dlopen libhsa-runtime64.so failed - "
    "/opt/rocm/lib/libhsa-runtime64.so: cannot open shared object file: No such file or directory",
])
def test_the_thunk_probe_is_read_as_information_at_runtime(line):
    found = _ids(line)
    assert ROW in found and GLIBC_ROW not in found
    assert error_signatures.failure_layer(ROW) == "runtime"


@pytest.mark.parametrize("line", [
    # a program that really lacks the runtime: glibc's dlerror() text, read by the packaging row as before
    "ImportError: libhsa-runtime64.so.1: cannot open shared object file: No such file or directory",
    # the thunk's later symbol lookup failing: another line, not the probe
    "pid:9 tid:0x1 [hsakmt_hsa_signal_load_relaxed] hsa_signal_load_relaxed not found - undefined symbol",
    # prose about the probe without the thunk's function tag
    "rocminfo prints dlopen libhsa-runtime64.so failed on WSL2 but it is harmless",
])
def test_other_lines_are_not_the_thunk_probe(line):
    assert ROW not in _ids(line)


def test_a_missing_runtime_is_still_the_packaging_rows():
    # AMDGPU.jl's load failure (tests/data/real/1484): glibc's dlerror() text on a line of its own
    text = ('ERROR: InitError: could not load library "libhsa-runtime64.so.1"\n'
            "libhsa-runtime64.so.1: cannot open shared object file: No such file or directory\n")
    assert GLIBC_ROW in _ids(text) and ROW not in _ids(text)
