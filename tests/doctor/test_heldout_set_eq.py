"""Held-out set EQ (tests/data/real/2542-2546, HELDOUT.md): a theme-neutral sample of the ROCm libraries' and
compilers' trackers (ROCm/rocm-libraries, ROCm/rocBLAS, ROCm/hipBLASLt).  Three misses on the unchanged code:

* 2544: rocBLAS 5.6.0's TensileCreateLibrary traceback, pasted as a Markdown quote ('>IndexError: list index out of
  range', rocBLAS#1356), was read at framework (the generic row for a Python exception): the quote marker hid the
  exception line's shape and the wrapped frame line ('", >line 1400'), so the raising package was not looked up.  The
  catch-all now reads both through the quote marker, and Tensile (the kernel generator of rocBLAS' and hipBLASLt's
  builds) is a package of the libraries layer in frame_package_layer.
* 2545: LLVM's Windows crash handler's 'Exception Code: 0x80000003' (llvm/lib/Support/Windows/Signals.inc,
  LLVMUnhandledExceptionFilter) was not read as a failure; it is now a message shape, with no layer of its own (the
  module that crashed is on the stack lines below it, which this paste lacks): warned, and in MISSES.
* 2543: CMake's 'Error copying file (if different)' in a title naming no project: left (MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2542", "hip"), ("2544", "libraries"), ("2546", "runtime")])
def test_the_set_eq_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num", ["2543", "2545"])
def test_the_known_misses_are_warned_without_a_layer(num):
    diag_layer = _lead_layer(_fixture(num))
    assert diag_layer is None


def _layers(text):
    return [(line, layer) for line, layer, _ in failure_lines.scan([(text, None, "paste")])]


@pytest.mark.parametrize("text,exc", [
    # the fixture (ROCm/rocBLAS#1356, 2023-09-14): a quoted paste, the quote marker before the wrapped 'line'
    ('>Traceback (most recent call last):\n'
     '>  File "/home/marco/workspace/rocBLAS/build_local_tensile/virtualenv/lib/python3.8/site-packages/Tensile/'
     'TensileCreateLibrary.py", >line 1400, in TensileCreateLibrary\n'
     '>    theMasterLibrary = list(masterLibraries.values())[0]\n'
     '>IndexError: list index out of range\n', "IndexError"),
    # rocm-arch/rocm-arch#660 (2022-02-14, rocblas' AUR build): Tensile's frame under subprocess' own
    ('Traceback (most recent call last):\n'
     '  File "/home/acxz/.cache/yay/rocblas/src/build/virtualenv/lib/python3.10/site-packages/Tensile/Parallel.py", '
     'line 51, in apply_print_exception\n'
     '    return func(*args)\n'
     '  File "/home/acxz/.cache/yay/rocblas/src/build/virtualenv/lib/python3.10/site-packages/Tensile/'
     'TensileCreateLibrary.py", line 200, in buildSourceCodeObjectFile\n'
     '    subprocess.check_call(compileArgs)\n'
     '  File "/usr/lib/python3.10/subprocess.py", line 369, in check_call\n'
     '    raise CalledProcessError(retcode, cmd)\n'
     "subprocess.CalledProcessError: Command '['/usr/bin/hipcc', '--genco', '-D__HIP_HCC_COMPAT_MODE__=1', '-I', "
     "'/home/acxz/.cache/yay/rocblas/src/build/Tensile', '--offload-arch=gfx803']' returned non-zero exit status 1.\n",
     "CalledProcessError"),
    # lamikr/rocm_sdk_builder#251 (rocBLAS' build in the SDK builder, quoted): Tensile's own import failing
    ('>   File "/home/ruri/rocm_sdk_builder/builddir/023_02_rocBLAS/virtualenv/lib/python3.10/site-packages/Tensile/'
     'bin/TensileCreateLibrary", line 37, in <module>\n'
     '>     from Tensile.TensileCreateLibrary import TensileCreateLibrary\n'
     "> ModuleNotFoundError: No module named 'Tensile.TensileCreateLibrary'\n", "ModuleNotFoundError"),
])
def test_an_exception_raised_in_tensile_is_the_librarys(text, exc):
    rows = [(line, layer) for line, layer in _layers(text) if exc in line]
    assert rows and all(layer == "libraries" for _, layer in rows)


def test_an_exception_raised_in_torch_keeps_the_framework():
    # set AK 1021 (ROCm/TheRock#7687, ComfyUI under TheRock's torch): raised in torch/library.py
    text = next(_fixture("1021").glob("comfyui.txt")).read_text(encoding="utf-8")
    rows = [layer for line, layer in _layers(text) if "torchvision::nms" in line]
    assert rows == ["framework"]


@pytest.mark.parametrize("line", [
    # the fixture (ROCm/rocm-libraries#9967, 2026-07-24): ctest's prefix before it
    "12: Exception Code: 0x80000003",
    # ROCm/rocm-libraries#3956 (2026-01-20) and #3732 (2026-01-09, fixture 1107): the same abort in amd_comgr0702.dll
    "> Exception Code: 0x80000003",
    # set AK 1023 (torch._int_mm on an RX 9060 XT under TheRock 7.12, Windows): an access violation
    "Exception Code: 0xC0000005",
])
def test_llvms_windows_exception_report_is_a_failure_line(line):
    assert failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    # constructed: a field that names an exception code without LLVM's hex form
    "Exception Code: none",
    # constructed: prose about exception codes
    "the exception code table lists 0x80000003 as a breakpoint",
])
def test_near_misses_are_not_the_exception_report(line):
    assert not failure_lines.looks_like_failure(line)
