"""Held-out set EL (tests/data/real/2510-2513, HELDOUT.md): a theme-neutral sample of ROCm's main tracker in 2023,
issues 1900-2950 of ROCm/legacy-rocm-build (formerly ROCm/ROCm).  All four are crashes in the HIP runtime of ROCm
5.4-5.5.  2510 and 2512 (gdb backtraces in libamdhip64) lead at hip on the unchanged code; 2511 (the segfault told only
in the title, the pasted rocminfo healthy) stays a miss; 2513's backtrace is LLDB's, whose stop line ("* thread #1,
name = 'python', stop reason = signal SIGSEGV") and frames ("  * frame #0: 0x... libamdhip64.so`hip::... + 103")
no row read (llvm/llvm-project lldb/source/Core/CoreProperties.td thread-stop-format and frame-format,
lldb/source/Target/StopInfo.cpp's 'signal <name>'): row el_lldb_crash_innermost_frame_in_hip_runtime (hip)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "el_lldb_crash_innermost_frame_in_hip_runtime"

# ROCm/ROCm#2270 (ROCm 5.4.3, RX 6750 XT, transformers loading chatglm2-6b-int4): the fixture's lines
ISSUE_2270 = ("(lldb) bt\n"
              "* thread #1, name = 'python', stop reason = signal SIGSEGV\n"
              "  * frame #0: 0x00007effdaeb0527 libamdhip64.so`hip::FatBinaryInfo::AddDevProgram(int) + 103\n"
              "    frame #1: 0x00007effdaeb0780 libamdhip64.so`hip::FatBinaryInfo::BuildProgram(int) + 80\n")


@pytest.mark.parametrize("num", ["2510", "2512", "2513"])
def test_the_set_el_fixtures_lead_at_hip(num):
    assert _lead_layer(_fixture(num)) == "hip"


def test_the_row_is_at_hip():
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("text", [
    ISSUE_2270,
    # the same stop without the 'bt' command line, the frame on the next line only
    ISSUE_2270.split("\n", 1)[1],
    # lldb's stop report as vlang/v#16029 shows its form ('Process N stopped', the Linux signal with its reason after a
    # colon, the frame indented without the selection mark), with #2270's HIP frame and a versioned soname
    "Process 183869 stopped\n"
    "* thread #1, name = 'python3', stop reason = signal SIGSEGV: invalid address (fault address: 0x6a6f00)\n"
    "    frame #0: 0x00007effdaeb0527 libamdhip64.so.5`hip::FatBinaryInfo::AddDevProgram(int) + 103\n",
    # an abort whose innermost frames are the C runtime's, the first other frame HIP's
    "* thread #1, name = 'python', stop reason = signal SIGABRT\n"
    "  * frame #0: 0x00007ffff7c969fc libc.so.6`__pthread_kill_implementation + 300\n"
    "    frame #1: 0x00007ffff7c42476 libc.so.6`raise + 22\n"
    "    frame #2: 0x00007effdaeb0527 libamdhip64.so`hip::FatBinaryInfo::AddDevProgram(int) + 103\n",
])
def test_lldb_crashes_in_the_hip_runtime_are_named(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # vlang/v#16029: lldb's real stop report of a crash in the program's own code
    "Process 183869 stopped\n"
    "* thread #1, name = 'hello', stop reason = signal SIGSEGV: invalid address (fault address: 0x6a6f00)\n"
    "    frame #0: 0x0000000000450158 hello`GC_find_limit_with_bound + 197\n",
    # guevara/read-it-later#1395: lldb on macOS (EXC_BAD_ACCESS, not a signal stop)
    "* thread #1: tid = 0x19671, 0x0000000108ff6344 sourceCpp_75751.so`ouch() + 244 at file3ec153baf7b0.cpp:9, "
    "queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x10e111cd8)\n"
    "  * frame #0: 0x0000000108ff6344 sourceCpp_75751.so`ouch() + 244 at file3ec153baf7b0.cpp:9\n",
    # the innermost frame outside the C runtime is the framework's; HIP's frames are deeper
    "* thread #1, name = 'python', stop reason = signal SIGSEGV\n"
    "  * frame #0: 0x00007fff12345678 libtorch_hip.so`at::native::copy_(at::Tensor&) + 40\n"
    "    frame #1: 0x00007effdaeb0527 libamdhip64.so`hipLaunchKernel + 103\n",
    # a breakpoint stop in HIP code is no crash
    "* thread #1, name = 'python', stop reason = breakpoint 1.1\n"
    "  * frame #0: 0x00007effdaeb0527 libamdhip64.so`hipLaunchKernel + 103\n",
])
def test_other_lldb_stops_are_not_named(text):
    assert ROW not in _ids(text)
