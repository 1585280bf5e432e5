"""Held-out set AU (tests/data/real/1220-1227, HELDOUT.md): HIP programming and ROCm's developer tools.
The misses had five causes, fixed generally and tested on the fixtures, other wordings and near-misses:
* clang's complex-math header failing inside ROCm 7.2's amd_hip_runtime.h ('use of undeclared identifier max') was
  unknown (1220, 1221): row ``s12au_hip_header_complex_builtins_max``;
* no row knew a ROCm developer tool's own failure: rocprofv3's report of the profiled program killed by a signal (1223,
  ``s12au_rocprofv3_target_killed_by_signal``), rocprofiler-sdk's thread-trace errors (1224,
  ``s12au_rocprofiler_thread_trace_failed``), ROCgdb's fatal signal (1227, ``s12au_rocgdb_fatal_signal``);
* rocprofiler-compute's refusal of an architecture it has no tables for was unknown (1225):
  ``s12au_rocprof_compute_unsupported_arch``;
* CLR's 'Pcie atomics not enabled, hostcall not supported' was not the PCIe-atomics rule's (1226): signature
  ``hostcall_no_pcie_atomics``."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, ids as _ids, lead_layer as _lead_layer, problems
from rwtest.heldout import fixture as _fixture

HEADER = "s12au_hip_header_complex_builtins_max"
ROCPROFV3 = "s12au_rocprofv3_target_killed_by_signal"
ATT = "s12au_rocprofiler_thread_trace_failed"
COMPUTE = "s12au_rocprof_compute_unsupported_arch"
ROCGDB = "s12au_rocgdb_fatal_signal"


@pytest.mark.parametrize("num,layer", [("1220", "packaging"), ("1221", "packaging"), ("1223", "libraries"),
                                       ("1224", "libraries"), ("1225", "framework"), ("1226", "firmware"),
                                       ("1227", "libraries")])
def test_the_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("row,layer", [(HEADER, "packaging"), (ROCPROFV3, "libraries"), (ATT, "libraries"),
                                       (COMPUTE, "framework"), (ROCGDB, "libraries")])
def test_the_rows_layers(row, layer):
    assert error_signatures.failure_layer(row) == layer


# -- ROCm 7.2's HIP header and clang's complex builtins (1220, 1221) -------------------------------------------------
CARET = ("error: use of undeclared identifier 'max'; did you mean 'fmax'?\n"
         "  194 |   double __logbw = _LOGBd(_fmaxd(_ABSd(__c), _ABSd(__d)));\n"
         "      |                           ^~~~~~\n"
         "note: expanded from macro '_fmaxd'\n"
         "   45 | #define _fmaxd max\n")


@pytest.mark.parametrize("text", [
    CARET,  # 1220 (clang's caret output with the macro note)
    "/usr/include/hip/amd_detail/amd_hip_runtime.h:374:\n"
    "__clang_cuda_complex_builtins.h:194:27: error: use of undeclared identifier 'max'; did you mean 'fmax'?\n",  # 1221
    # ROCm/clr#82's form: the full path of the header of a distribution's clang 18
    "/usr/lib/llvm/18/bin/../../../../lib/clang/18/include/__clang_cuda_complex_builtins.h:227:29: error: use of "
    "undeclared identifier 'max'; did you mean 'fmax'?\n",
    # the float variant of the macro, through In file included from lines
    "In file included from /opt/rocm-7.2.2/include/hip/hip_runtime.h:62:\n"
    "error: use of undeclared identifier 'max'\n"
    "note: expanded from macro '_fmaxf'\n",
])
def test_the_complex_builtins_failure_is_named(text):
    assert HEADER in _ids(text), text


@pytest.mark.parametrize("text", [
    "kernel.hip:12:9: error: use of undeclared identifier 'max'; did you mean 'fmax'?\n",  # the user's own code
    "error: use of undeclared identifier 'maxval'\nnote: expanded from macro 'MAXV'\n",  # another identifier and macro
    "#include <__clang_cuda_complex_builtins.h>\n",  # the header named, no error
])
def test_near_misses_are_not_the_header_row(text):
    assert HEADER not in _ids(text), text


# -- rocprofv3 reporting the profiled program killed by a signal (1223) ---------------------------------------------
@pytest.mark.parametrize("line", [
    "[rocprofv3] Fatal error: Command '['python', 'tests/kernels/test_pa.py']' died with <Signals.SIGSEGV: 11>.",
    "[rocprofv3] Fatal error: Command '['./bin/mi250_reduce_sum']' died with <Signals.SIGABRT: 6>.",
    "[rocprofv3] Fatal error: Command '['vllm', 'serve', 'Qwen/Qwen3-8B', '--port', '8000']' died with "
    "<Signals.SIGBUS: 7>.",
])
def test_rocprofv3s_killed_program_is_named(line):
    assert ROCPROFV3 in _ids(line), line


@pytest.mark.parametrize("line", [
    # the program's own non-zero exit: not a crash under the profiler
    "[rocprofv3] Fatal error: Command '['python', 'train.py']' returned non-zero exit status 1.",
    # another tool's CalledProcessError (rocminfo's crash has its own row)
    "subprocess.CalledProcessError: Command '['/opt/rocm/bin/rocminfo']' died with <Signals.SIGSEGV: 11>.",
    "rocprofv3 --kernel-trace -- python tests/kernels/test_pa.py",  # the command line
])
def test_near_misses_are_not_the_rocprofv3_row(line):
    assert ROCPROFV3 not in _ids(line), line


# -- rocprofiler-sdk's thread trace (1224) -------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "E20260518 17:33:08.853232 131185880735552 aql_packet.cpp:203] failed to create ATT packet",  # 1224
    "Thread trace context not present for agent!",  # 1224
    "W20250821 10:01:02.000000 140000000000000 core.cpp:412] Thread trace context not present for agent!",
    "F20260402 09:00:00.000000 140000000000000 core.cpp:260] ATT tracing could not be initialized for 1 agent(s): "
    "failed to create ATT packet",  # rocm-systems PR 4640's message
])
def test_a_thread_trace_failure_is_named(line):
    assert ATT in _ids(line), line


@pytest.mark.parametrize("line", [
    "Configuring Device ATT for agent 42996",  # the set-up line before it
    "rocprofv3 --att --att-buffer-size 1073741824 -- ./att_tiny_kernel",  # the command line
    "Thread tracer being destroyed with thread trace active",  # a teardown warning alone
])
def test_near_misses_are_not_the_att_row(line):
    assert ATT not in _ids(line), line


# -- rocprofiler-compute without the GPU's architecture (1225) ------------------------------------------------------
@pytest.mark.parametrize("line", [
    "ERROR Cannot find a supported arch in rocminfo",  # 1225
    "[profiling] Cannot find a supported arch in rocminfo",  # omniperf's older error()
    "Cannot find a supported arch in rocminfo: gfx1100",  # specs.py's console_error with the arch
])
def test_rocprof_computes_unsupported_arch_is_named(line):
    assert COMPUTE in _ids(line), line


@pytest.mark.parametrize("line", [
    "Detected GPU architecture: gfx942",  # a supported GPU's line
    "Cannot find rocminfo in PATH",  # another failure
])
def test_near_misses_are_not_the_rocprof_compute_row(line):
    assert COMPUTE not in _ids(line), line


# -- ROCgdb's own fatal signal (1227) ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "[AMDGPU Wave 4:2:1:1 (0,0,0)/0 exited]\n[Thread 0x7fffe736f6c0 (LWP 35608) exited]\n"
    "malloc(): unsorted double linked list corrupted\n\n\nFatal signal: Aborted\n----- Backtrace -----\n",  # 1227
    "$ rocgdb ./vectoradd\n(gdb) run\n[New Thread 0x7ffff5e00640 (LWP 4242)]\n"
    "Fatal signal: Segmentation fault\n----- Backtrace -----\n",
    "amd-dbgapi: warning: wave_id 3 already exists\nFatal signal: Aborted\n",
])
def test_rocgdbs_fatal_signal_is_named(text):
    assert ROCGDB in _ids(text), text


@pytest.mark.parametrize("text", [
    "Fatal signal: Aborted\n----- Backtrace -----\n",  # plain GDB, no ROCm debugger in sight
    "[AMDGPU Wave 1:4:1:1 (0,0,0)/0 exited]\n[Inferior 1 (process 4242) exited normally]\n",  # a clean exit
    "Thread 3 \"vectoradd\" received signal SIGSEGV, Segmentation fault.\n[Switching to AMDGPU Wave 1:1:1:1]\n",
])
def test_near_misses_are_not_the_rocgdb_row(text):
    assert ROCGDB not in _ids(text), text


# -- CLR refusing a hostcall kernel without PCIe atomics (1226) ------------------------------------------------------
def _atomics(diag):
    return next((f for f in diag.findings if f.id == "pcie-atomics-missing"), None)


@pytest.mark.parametrize("text", [
    # ROCm/ROCm's WSL2 report (rocm-examples' hip_saxpy at AMD_LOG_LEVEL 3)
    ":3:rocvirtual.cpp           :3056: 0368660738d us:  ShaderName : _Z12saxpy_kernelfPKfPfj\n"
    ":1:rocvirtual.cpp           :3103: 0368660788d us:  Pcie atomics not enabled, hostcall not supported\n"
    ":1:rocvirtual.cpp           :3465: 0368660830d us:  AQL dispatch failed!\n",
    # RCCL's collective kernel on a chipset slot (AMD_LOG_LEVEL 4, the log prefix trimmed)
    "rocvirtual.cpp:4208  Pcie atomics not enabled, hostcall not supported\nrocvirtual.cpp:4636  AQL dispatch failed!\n",
])
def test_clrs_hostcall_refusal_is_the_pcie_atomics_rule(tmp_path, text):
    diag = doctor_files(tmp_path, {"error.txt": text})
    f = _atomics(diag)
    assert f is not None and f.layer == "firmware", problems(diag)
    assert any("hostcall" in e for e in f.evidence)


@pytest.mark.parametrize("text", [
    "AQL dispatch failed!\nhipLaunchKernel: Returned hipErrorIllegalState\n",  # no reason given
    "HIP 5.7 adds printf without hostcall (-mprintf-kind=buffered) for systems without PCIe atomics\n",  # prose
])
def test_near_misses_are_not_the_pcie_atomics_rule(tmp_path, text):
    assert _atomics(doctor_files(tmp_path, {"error.txt": text})) is None
