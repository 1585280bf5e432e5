"""Held-out set FU (tests/data/real/2760-2763, HELDOUT.md): a theme-neutral sample of 2026 threads about the newest AMD
hardware (RX 9060/9070 on Windows ComfyUI, Strix Halo with llama.cpp's Vulkan back-end, RX 9070 XT with rocBLAS's
Tensile kernels).  Two of four led at their layer on the unchanged code; 2762 stays a miss (a llama.cpp regression told
only in prose, in MISSES).  The fixes: PyTorch's terminate handler line 'Unhandled exception caught in
c10/util/AbortHandler.h' (pytorch/pytorch c10/util/AbortHandler.h, on by default on Windows) and CPython faulthandler's
'Windows fatal exception: <name>' (python/cpython Modules/faulthandler.c, faulthandler_exc_handler) are catalogue rows
at framework; a frame of c10's Windows backtrace ('<address><address> module.dll!symbol [file @ line]',
c10/util/Backtrace.cpp) is a native-Windows sign for detection."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

C10 = "fu_c10_abort_handler_unhandled_exception"
FAULTHANDLER = "fu_faulthandler_windows_fatal_exception"


@pytest.mark.parametrize("num,layer", [("2760", "framework"), ("2761", "framework"), ("2763", "runtime")])
def test_the_set_fu_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_terminate_handler_row_names_2761s_line_and_the_fixture_leads_at_framework():
    assert_named_and_leads("2761", C10, "framework")


def test_the_faulthandler_row_names_2760s_line_and_the_fixture_leads_at_framework():
    assert_named_and_leads("2760", FAULTHANDLER, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's line with c10's first frame (patientx-cfz/comfyui-rocm#38, RX 9060 XT, Windows)
    "Unhandled exception caught in c10/util/AbortHandler.h\n"
    "00007FFA79B2A9BC00007FFA79B19EB0 torch_python.dll!initModule [<unknown file> @ <unknown line number>]",
    # a pybullet training run on Windows (a public log quoted in a repository the code index holds)
    "argv[2]=--background_color_blue=0.1764705926179886\nUnhandled exception caught in c10/util/AbortHandler.h\n"
    "00007FFDC72C901600007FFDC72BF3B0 torch_python.dll!torch::autograd::THPCppFunction_requires_grad "
    "[<unknown file> @ <unknown line number>]",
    # after torch's pinned-memory allocator warning (a training log quoted in a repository's notes)
    "[W CachingHostAllocator.cpp:26] Warning: Exception in pinned allocator free(), rethrowing\n"
    "Unhandled exception caught in c10/util/AbortHandler.h",
    # the source's line alone (c10/util/AbortHandler.h, std::cout << ... << '\\n')
    "Unhandled exception caught in c10/util/AbortHandler.h",
])
def test_the_terminate_handler_row_reads_real_wordings(text):
    assert C10 in _ids(text)


@pytest.mark.parametrize("text", [
    "terminate called after throwing an instance of 'c10::Error'",        # libstdc++'s own handler on Linux
    "See c10/util/AbortHandler.h for the terminate handler",              # prose naming the file
    "Exception raised from c10_cuda_check_implementation at C:/actions-runner/_work/pytorch/c10/cuda/CUDAException.cpp:44",
])
def test_lines_that_are_not_the_terminate_handler_are_not_read_by_it(text):
    assert C10 not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's header (patientx-cfz/comfyui-rocm#83, RX 9070 XT, ComfyUI's faulthandler)
    "[INFO] loaded completely; 24055.92 MB usable, 235.84 MB loaded, full load: True\n"
    "Windows fatal exception: access violation\n\nStack (most recent call first):",
    # torch.cuda's initialisation on an RX 6800 (corpus 1086's thread, patientx-cfz/comfyui-rocm#21's form)
    "Windows fatal exception: access violation\n\nStack (most recent call first):\n"
    "  File \"C:\\Users\\User\\Desktop\\comfyui-rocm-040726\\python_env\\Lib\\site-packages\\torch\\cuda\\__init__.py\", "
    "line 180 in is_available",
    # the source's other names and its default (Modules/faulthandler.c; test_faulthandler.check_windows_exception)
    "Windows fatal exception: stack overflow",
    "Windows fatal exception: code 0xc0000409",
])
def test_the_faulthandler_row_reads_real_wordings(text):
    assert FAULTHANDLER in _ids(text)


@pytest.mark.parametrize("text", [
    "Fatal Python error: Segmentation fault",                              # faulthandler on Linux (its own rows)
    "If you see 'Windows fatal exception: access violation', update the driver",   # prose quoting the line
    "Windows fatal exception: access violation in module foo",            # not the source's line
])
def test_lines_that_are_not_faulthandlers_header_are_not_read_by_it(text):
    assert FAULTHANDLER not in _ids(text)


def test_the_new_rows_sit_at_framework():
    assert error_signatures.failure_layer(C10) == "framework"
    assert error_signatures.failure_layer(FAULTHANDLER) == "framework"


@pytest.mark.parametrize("text", [
    # 2761's frames (python312.dll) and a pybullet run's (python.exe, a .pyd) -- c10's Windows backtrace
    "00007FFB018DEBBF00007FFB018DEB50 python312.dll!PyObject_Call [<unknown file> @ <unknown line number>]",
    "00007FF799AF1C1600007FF799AF1110 python.exe!OPENSSL_Applink [<unknown file> @ <unknown line number>]",
    "00007FFD95683ECF00007FFD9567DE70 pybullet.cp310-win_amd64.pyd!b3ConnectPhysicsDirect [<unknown file> @ "
    "<unknown line number>]",
])
def test_c10s_windows_frames_are_a_native_windows_sign(text):
    assert windows_sign(text)[0] == "c10_frame"


@pytest.mark.parametrize("text", [
    "#5    Object \"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.28\", at 0x7faf2b077698, in __cxa_throw",  # Linux
    "frame #3: 0x00007f00deadbeef libc10.so`c10::detail::torchCheckFail + 120",                         # lldb
    "00007FFB018DEBBF python312.dll!PyObject_Call",                       # one address, no [file @ line]
])
def test_other_frames_are_no_windows_sign(text):
    assert windows_sign(text) is None
