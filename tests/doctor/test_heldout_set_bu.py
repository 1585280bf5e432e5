"""Held-out set BU (tests/data/real/1700-1705, HELDOUT.md): ROCm's profilers, debuggers and tracers.  Rows taken from
the programs that print the lines: rocprofv3's signal handler (rocprofiler-sdk tool.cpp), rocprofiler-systems'
ROCPROFILER_CALL check (fwd.hpp), ROCgdb's amd-dbgapi attach warnings (gdb/amd-dbgapi-target.c, the debug agent's
restriction error), rocprof-compute's profiling-data checks (src/utils/utils.py) and a crash stack inside aqlprofile /
rocprofiler-sdk, whose HSA call statuses move to the profiler's layer (matchers._profiler_hsa_status)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, doctor_files, ids as _ids, problems

SIGNAL = "bu_rocprofv3_signal_handler_caught_fatal_signal"
SDK_CALL = "bu_rocprofiler_sdk_call_failed"
DBGAPI = "bu_amd_dbgapi_gpu_debugging_unavailable"
COMPUTE = "bu_rocprof_compute_profiling_data_corrupt"
STACK = "bu_crash_stack_in_rocm_profiler_library"


@pytest.mark.parametrize("num,row,layer", [
    ("1705", SIGNAL, "libraries"),
    ("1704", SDK_CALL, "libraries"),
    ("1701", DBGAPI, "framework"),
    ("1702", COMPUTE, "libraries"),
    ("1703", STACK, "libraries"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("row,layer", [(SIGNAL, "libraries"), (SDK_CALL, "libraries"), (DBGAPI, "framework"),
                                       (COMPUTE, "libraries"), (STACK, "libraries")])
def test_rows_are_at_their_layer(row, layer):
    assert error_signatures.failure_layer(row) == layer


# ---- rocprofv3's signal handler: the fatal signals, not the user's interrupt

@pytest.mark.parametrize("line", [
    # ROCm 6.4's wording (tool.cpp:1902), plain
    "W20250731 08:32:42.634097 139852384890432 tool.cpp:1902] rocprofv3_error_signal_handler caught signal 6...",
    # ROCm 7.x's wording with the process prefix
    "W20260309 04:42:20.026506 123575090542272 tool.cpp:3105] [PPID=3784550][PID=3785253][TID=3785256]"
    "[rocprofv3_error_signal_handler] rocprofv3 caught signal 6...",
    # a segmentation fault, short glog prefix
    "W tool.cpp:3104] [rocprofv3_error_signal_handler] rocprofv3 caught signal 11...",
])
def test_rocprofv3_fatal_signal_is_named(line):
    assert SIGNAL in _ids(line), line


@pytest.mark.parametrize("line", [
    # the user's Ctrl+C (TheRock#1768) and a timeout's SIGTERM are not failures of the profiler
    "W20251011 07:52:54.811031 140579743789312 tool.cpp:3102] [PPID=1][PID=2525][TID=2525][rocprofv3_error_signal_handler]"
    " rocprofv3 caught signal 2...",
    "W [29 minutes later] rocprofv3 caught signal 15...",
    "W tool.cpp:3142] [rocprofv3_error_signal_handler] rocprofv3 finalizing after signal 6...",
])
def test_near_misses_are_not_the_signal_row(line):
    assert SIGNAL not in _ids(line), line


# ---- rocprofiler-systems' check of a rocprofiler-sdk call

@pytest.mark.parametrize("line", [
    "[rocprof-sys][101][0] [rocprofiler_configure_buffer_tracing_service(ctx, kind, nullptr, 0, buf)][/src/fwd.cpp:210] "
    "rocprofiler-sdk call [rocprofiler_configure_buffer_tracing_service(ctx, kind, nullptr, 0, buf)] failed with error "
    "code 27 :: Service not supported",
    "[omnitrace][1][0] [rocprofiler_create_context(&ctx)][/src/rocprofiler-sdk.cpp:88] rocprofiler-sdk call "
    "[rocprofiler_create_context(&ctx)] failed with error code 2 :: Invalid context",
])
def test_rocprofiler_sdk_call_failed_is_named(line):
    assert SDK_CALL in _ids(line), line


@pytest.mark.parametrize("line", [
    "rocprofiler-sdk call succeeded",
    "hipMalloc call failed with error code 2",
])
def test_near_misses_are_not_the_sdk_call_row(line):
    assert SDK_CALL not in _ids(line), line


# ---- ROCgdb / the debug agent cannot enable GPU debugging

@pytest.mark.parametrize("line", [
    "warning: amd-dbgapi: unable to enable GPU debugging due to a restriction error",
    "warning: amd-dbgapi: could not attach to process 4242 (AMD_DBGAPI_STATUS_ERROR), GPU debugging will not be available.",
    # the ROCr Debug Agent's agent_error
    "rocm-debug-agent: error: unable to enable GPU debugging due to a restriction error",
])
def test_gpu_debugging_unavailable_is_named(line):
    assert DBGAPI in _ids(line), line


@pytest.mark.parametrize("line", [
    "warning: Could not attach to process 72409",
    "Warning: precise memory violation signal reporting is not enabled, reported location may not be accurate.",
])
def test_near_misses_are_not_the_dbgapi_row(line):
    assert DBGAPI not in _ids(line), line


def test_a_debugger_that_cannot_debug_the_gpu_leads_at_framework(tmp_path):
    diag = doctor_files(tmp_path, {"rocgdb.txt": "Starting program: /home/u/a.out\n"
                                                 "warning: amd-dbgapi: unable to enable GPU debugging due to a restriction error\n"})
    assert problems(diag)[0] == ("known-failure", "framework"), problems(diag)


# ---- rocprof-compute's profiling-data checks

@pytest.mark.parametrize("text", [
    "  ERROR [profiling] Found empty cells in /home/u/workloads/vcopy/MI300X_A1/pmc_perf.csv.\nProfiling data could be corrupt.",
    "ERROR [profiling] No counter data in workloads/app/MI350/results_0.csv.gz.\nProfiling data could be corrupt.",
    "ERROR [profiling] Could not read workloads/app/MI350/results_1.csv.gz: Compressed file ended before the end-of-stream "
    "marker was reached\nThe file is truncated or corrupt, which a profile run that was killed mid-write leaves behind.\n"
    "Please re-run 'rocprof-compute profile'.",
])
def test_profiling_data_corrupt_is_named(text):
    assert COMPUTE in _ids(text), text


@pytest.mark.parametrize("line", [
    "Found empty cells in the table below (expected for idle CUs)",
    "The file is truncated or corrupt",
])
def test_near_misses_are_not_the_compute_row(line):
    assert COMPUTE not in _ids(line), line


# ---- a crash inside the profiler libraries; the HSA status its own call got moves with it

@pytest.mark.parametrize("text", [
    # gdb's frames
    "#0  0x00007ffff7a9f9fc in pthread_kill () from /lib/x86_64-linux-gnu/libc.so.6\n"
    "#4  0x00007fffe1b2c3d4 in hsa_ven_amd_aqlprofile_start () from /opt/rocm/lib/libhsa-amd-aqlprofile64.so.1\n",
    # glog's failure trace
    "*** Check failure stack trace: ***\n    @     0x7f2453f58333  rocprofiler::aql::set_profiler_active_on_queue()\n",
    # a condensed stack
    "*** SIGABRT received by PID 1 ***\n    rocprofiler::hsa::Queue::Queue(...)\n",
])
def test_crash_stack_in_profiler_library_is_named(text):
    assert STACK in _ids(text), text


@pytest.mark.parametrize("line", [
    "ls /opt/rocm/lib/libhsa-amd-aqlprofile64.so.1",
    "rocprofiler::aql::set_profiler_active_on_queue is called for each queue (see queue.cpp)",
    "hsa_ven_amd_aqlprofile_get_info is exported by aqlprofile",
])
def test_near_misses_are_not_the_stack_row(line):
    assert STACK not in _ids(line), line


def test_an_hsa_status_under_a_profiler_stack_is_the_profilers(tmp_path):
    diag = doctor_files(tmp_path, {"log.txt":
        "Error Calling hsa_amd_agent_iterate_memory_pools: HSA_STATUS_ERROR: A generic error has occurred.\n"
        "Thread 1 \"app\" received signal SIGABRT, Aborted.\n"
        "#3  0x00007fffe1b2c3d4 in hsa_ven_amd_aqlprofile_iterate_data () from /opt/rocm/lib/libhsa-amd-aqlprofile64.so.1\n"})
    assert problems(diag)[0] == ("known-failure", "libraries"), problems(diag)
    assert ("known-failure", "runtime") not in problems(diag)


def test_the_same_hsa_status_without_a_profiler_stack_stays_at_runtime(tmp_path):
    # (s25: 'Error Calling hsa_iterate_agents: ...' is HsaRsrcFactory's own CHECK_STATUS wording, which the profiler
    # libraries print and set IS's row is_profiler_hsa_rsrc_factory_check_failed reads at libraries by itself; the call
    # status the stack moves is another call's)
    diag = doctor_files(tmp_path, {"log.txt": "Error Calling hsa_amd_agent_iterate_memory_pools: HSA_STATUS_ERROR: A "
                                              "generic error has occurred.\n"})
    assert ("known-failure", "runtime") in problems(diag), problems(diag)


def test_a_gpu_fault_under_a_profiler_stack_stays_at_runtime(tmp_path):
    # a queue's fault is the GPU's, not a status the profiler's call got
    diag = doctor_files(tmp_path, {"log.txt":
        "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address.\n"
        "    rocprofiler::hsa::Queue::Queue(...)\n"})
    assert any(layer == "runtime" for _id, layer in problems(diag)), problems(diag)
