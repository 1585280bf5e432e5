"""Held-out set HE (tests/data/real/3120-3124, HELDOUT.md): a third theme-neutral sample of ROCm's new trackers
(ROCm/TheRock, ROCm/rocm-systems, ROCm/rocm-libraries, 2025-2026).  On the unchanged code four of five led at their
layer (3121 the loader's missing libhipblaslt.so.0 in TheRock's artifacts, 3122 a gfx1153 sanity test's hang through
the catch-all, 3123 ROCr's HSA_STATUS_ERROR_OUT_OF_RESOURCES in the title, 3124 a hip-tests ctest timeout through the
catch-all); 3120, rocprofv3's signal handler catching SIGTERM, had no finding.  Two catalogue rows were added:
rocprofv3's handler catching a stop signal (SIGINT/SIGTERM) and finalizing the profile early (ROCm/rocm-systems
projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp, rocprofv3_error_signal_handler), and CTest's timeout
of a hip-tests case (Unit_hip*/Stress_hip*/Perf_hip*; Kitware/CMake cmCTestRunTest.cxx '***Timeout')."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

STOP = "he_rocprofv3_signal_handler_caught_stop_signal"
FATAL = "bu_rocprofv3_signal_handler_caught_fatal_signal"
HANG = "he_hip_tests_ctest_timeout"


@pytest.mark.parametrize("num,layer", [("3121", "packaging"), ("3122", "hip"), ("3123", "runtime")])
def test_the_set_he_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_rocprofv3_fixture_is_named_and_leads_at_libraries():
    assert_named_and_leads("3120", STOP, "libraries")


def test_the_hip_tests_fixture_is_named_and_leads_at_hip():
    assert_named_and_leads("3124", HANG, "hip")


@pytest.mark.parametrize("line", [
    # the fixture's lines (ROCm/rocm-systems#1072, rocprofv3 of ROCm 7.0.0 tracing an IREE MLPerf harness on MI350)
    "W20250919 21:55:21.036105 140675557010176 tool.cpp:2784] [PPID=68][PID=188][TID=188][rocprofv3_error_signal_handler]"
    " rocprofv3 caught signal 15...",
    "W20250919 21:55:21.036261 140675557010176 tool.cpp:2822] [PPID=68][PID=188][TID=188][rocprofv3_error_signal_handler]"
    " rocprofv3 finalizing after signal 15...",
    # ROCm 6.4's wording of the same handler (tool.cpp: 'rocprofv3_error_signal_handler caught signal %d...', as in
    # ROCm/rocprofiler-compute#757's log), here for Ctrl+C
    "INFO    |-> [rocprofv3] W20250616 14:24:55.973751 123488037766848 tool.cpp:1902] rocprofv3_error_signal_handler "
    "caught signal 2...",
    # the 7.x wording without glog's thread prefix (tool.cpp's format string)
    "[rocprofv3_error_signal_handler] rocprofv3 caught signal 15...",
])
def test_the_stop_row_reads_rocprofv3s_handler_on_sigterm_and_sigint(line):
    assert STOP in _ids(line)
    assert FATAL not in _ids(line)
    assert error_signatures.failure_layer(STOP) == "libraries"


@pytest.mark.parametrize("line", [
    # a fatal signal: the other row's (fixture 1705, rocprofiler-compute#757)
    "INFO    |-> [rocprofv3] W20250616 14:24:55.973751 123488037766848 tool.cpp:1902] rocprofv3_error_signal_handler "
    "caught signal 6...",
    # the handler's wait line says no signal
    "W20250919 21:55:21.036254 140675557010176 tool.cpp:2807] [PPID=68][PID=188][TID=188][rocprofv3_error_signal_handler]"
    " rocprofv3 will wait for 0 children to exit",
    # another program's handler on SIGTERM
    "Caught signal 15 (Terminated), shutting down",
    # signal 150 is no stop signal
    "[rocprofv3_error_signal_handler] rocprofv3 caught signal 150...",
])
def test_near_misses_do_not_match_the_stop_row(line):
    assert STOP not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's two lines (ROCm/rocm-systems#10627, the rockrel nightly's hip-tests on gfx1151)
    " 122/1273 Test  #488: Unit_hipGraphDebugDotPrint_Functional " + "." * 79 + "***Timeout 600.12 sec",
    "\t488 - Unit_hipGraphDebugDotPrint_Functional (Timeout)",
    # hip-tests run on chipStar's HIP (CHIP-SPV/chipStar#736), CTest's list of timed-out tests
    "\t422 - Unit_hipGraphAddEventRecordNode_Functional_Simple (Timeout)",
    "\t717 - Unit_hipMemcpy_HalfMemCopy (Timeout)",
])
def test_the_hang_row_reads_ctests_timeout_of_a_hip_tests_case(line):
    assert HANG in _ids(line)
    assert error_signatures.failure_layer(HANG) == "hip"


@pytest.mark.parametrize("line", [
    # a hip-tests case that failed, not one that hung (fixture 2453, rocm-systems#11685)
    "3077/4200 Test #3077: Unit_hipMemGetHandleForAddressRange_VM_PcieFlag ..........................***Failed    0.31 sec",
    # a library's test timing out: not HIP's own suite
    " 12/40 Test #12: rocprim.device_radix_sort ........................***Timeout 1500.05 sec",
    # TheRock's build-tree test (fp_therock_ctest_test_failed's)
    "\t 24 - therock-validate-shared-lib-libamdhip64.so (Timeout)",
])
def test_near_misses_do_not_match_the_hang_row(line):
    assert HANG not in _ids(line)


def _sanity_gfx(text):
    from rocm_wizard.detect.parsers import paste_facts
    return {g.gfx_target for g in paste_facts.parse(text).gpus if g.gfx_target}


def test_therocks_sanity_log_names_the_gpu_offload_arch_found():
    # fixtures 3122 (gfx1153, TheRock#2682) and 3123 (gfx1150, TheRock#4738): offload-arch ran, its answer compiled for
    assert _sanity_gfx((_fixture("3122") / "ci.txt").read_text()) == {"gfx1153"}
    assert _sanity_gfx((_fixture("3123") / "ci.txt").read_text()) == {"gfx1150"}


def test_a_build_commands_offload_arch_alone_names_no_gpu():
    # a build's own target list (no offload-arch probe before it): the build's choice, not the device's
    assert _sanity_gfx("INFO     test_rocm_sanity:test_rocm_sanity.py:33 ++ Run [/w/build/bin]$ /w/build/bin/hipcc "
                       "/w/tests/hipcc_check.cpp --offload-arch=gfx1100 -o hipcc_check\n"
                       "/opt/rocm/bin/hipcc --offload-arch=gfx906 -O3 main.hip -o main\n") == set()
