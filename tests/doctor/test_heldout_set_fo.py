"""Held-out set FO (tests/data/real/2700-2704, HELDOUT.md): a theme-neutral sample of ROCm's tools' trackers
(rocprofiler-compute/omniperf, omnitrace/rocprofiler-systems, ROCgdb, RDC), 2023-2026.  On the unchanged code one of
five led at its layer.  Three rows name the tools' own failure lines from their sources: rocprofiler-compute's roofline
refusal 'Cannot find a valid binary for your operating system' (ROCm/rocprofiler-compute src/utils/utils.py, printed
through src/utils/logger.py console_error), omnitrace's / rocprofiler-systems' 'Finalizing af(t)er signal %i :: %s'
exit action (ROCm/omnitrace source/lib/omnitrace/library.cpp, ROCm/rocprofiler-systems source/lib/rocprof-sys/
library.cpp) with timemory's '### ERROR ### [omnitrace][PID=..][TID=..] signal=N (...)' report, and RDC's optional
module loading ('Failed to insert module: N3amd3rdc...', 'Fail to open librdc_*.so: ...', '... related function will
not work.', 'failed to open ROCP_METRICS: ...'; ROCm/rdc rdc_libs RdcModuleMgrImpl.cc, RdcLibraryLoader.cc,
RdcRVSLib.cc, RdcRocpLib.cc).  bash's locale warning ('setlocale: LC_ALL: cannot change locale', bash locale.c) is no
failure any more, so 2701, whose copy is cut before rocprofv2's failing line, has no line left (MISSES, with 2703's
ROCgdb error told only in prose)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect import failure_lines as fl
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROOFLINE = "fo_rocprof_compute_roofline_no_binary"
SYS_SIGNAL = "fo_rocprof_sys_fatal_signal"
RDC = "fo_rdc_module_load_failed"


@pytest.mark.parametrize("num,layer", [("2700", "libraries"), ("2702", "libraries"), ("2704", "runtime")])
def test_the_set_fo_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("2700", ROOFLINE, "libraries"), ("2702", SYS_SIGNAL, "libraries"),
                                           ("2704", RDC, "runtime")])
def test_the_rows_name_the_fixtures_lines_at_the_labelled_layer(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("line", [
    # rocprofiler-compute#521 (the same run's log, omniperf 2.1.0, colour codes as the copy holds them)
    "  ^[[31mERROR^[[0m [roofline] Cannot find a valid binary for your operating system",
    # logger.py's ROCPROFCOMPUTE_COLOR=3 form ('%(levelname)s: %(message)s')
    "ERROR: [roofline] Cannot find a valid binary for your operating system",
    # omniperf 1.x's own wording (src/utils/utils.py before 2.0)
    "ROOFLINE ERROR: Cannot find a valid binary for your operating system",
])
def test_the_roofline_row_reads_the_tools_wordings(line):
    assert ROOFLINE in _ids(line)


@pytest.mark.parametrize("line", [
    # omnitrace#234 (and #197): timemory's signal report inside omnitrace-avail, ROCm 5.3
    "### ERROR ### [omnitrace][PID=93090][TID=0] signal=6 (SIGABRT) abort program (formerly SIGIOT). code: -6",
    # rocprofiler-systems' exit action in its source form (library.cpp rocprofsys_exit_action), the MPI rank in the prefix
    "[rocprof-sys][2418868][0] Finalizing after signal 11 ::  Signal:   SIGSEGV (signal number:  11)   segmentation violation",
])
def test_the_rocprof_sys_row_reads_other_wordings(line):
    assert SYS_SIGNAL in _ids(line)


@pytest.mark.parametrize("line", [
    # ROCm/ROCm#4003 (the same report filed on the main tracker): the rocprofiler module's path check and exception
    "1730927059.295 ERROR RdcRocpLib.cc(208): failed to open ROCP_METRICS: /opt/rocm/libexec/rocprofiler/counters/derived_counters.xml",
    "rocprofiler path could not be set",
    # RdcLibraryLoader.cc's exception in its source form, for the RAS module (rdc#4 is that module failing to load)
    "Fail to open librdc_ras.so: librdc_ras.so: cannot open shared object file: No such file or directory",
])
def test_the_rdc_row_reads_the_module_loader_lines(line):
    assert RDC in _ids(line)


@pytest.mark.parametrize("line,row", [
    # 1225: rocprofiler-compute's architecture refusal is its own row, not the roofline's
    ("ERROR Cannot find a supported arch in rocminfo", ROOFLINE),
    # #521's roofline INFO lines before the refusal
    ("   ^[[32mINFO^[[0m [roofline] No roofline data found. Generating...", ROOFLINE),
    # 1704: rocprofiler-systems' exit with the program's code, no signal finalizing line
    ("[rocprof-sys][2418868] transpose exiting with non-zero exit code: 6...", SYS_SIGNAL),
    # 911: RDC's metric fetch failing is SMI's metric, not a module load
    ("1773186420.310 ERROR RdcMetricFetcherImpl.cc(1406): Fail to fetch 2:MEM_CLOCK with rsmi error code 43, latency 0", RDC),
])
def test_near_misses_are_not_read_by_the_rows(line, row):
    assert row not in _ids(line)


def test_the_rows_sit_at_their_layers():
    assert [error_signatures.failure_layer(r) for r in (ROOFLINE, SYS_SIGNAL, RDC)] == ["libraries", "libraries", "runtime"]


@pytest.mark.parametrize("line", [
    # 2701 (rocprofiler-compute#347): bash 4.x inside omniperf's rocprofv2 call, en_US not generated in the container
    "   |-> [/opt/rocm-6.2.0-13796/bin/rocprofv2] /bin/bash: warning: setlocale: LC_ALL: cannot change locale (en_US)",
    # bash 5.1 and later add strerror
    "bash: warning: setlocale: LC_ALL: cannot change locale (en_US.UTF-8): No such file or directory",
])
def test_bashs_locale_warning_is_no_failure(line):
    assert fl.classify(line, None) is None


def test_a_failing_line_beside_the_locale_warning_is_still_read():
    line = "/opt/rocm/bin/rocprofv2: line 301: ./app --flag: No such file or directory"
    assert fl.classify(line, "error-log") == fl.SHOWN
