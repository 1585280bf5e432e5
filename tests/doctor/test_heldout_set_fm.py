"""Held-out set FM (tests/data/real/2680-2684, HELDOUT.md): a theme-neutral sample of pytorch/pytorch's ROCm issues of
2021-2024.  Three changes came from the set's misses, each from the printing program's source:

* a new row, fm_torch_extension_hipified_duplicate_definition (framework): GNU ld's "multiple definition of `X'" /
  "first defined here" (binutils ld/ldmain.c multiple_definition) and LLD's "duplicate symbol:" (lld/ELF/Symbols.cpp
  reportDuplicate) where one definition is in a copy PyTorch's hipify wrote (torch/utils/hipify/hipify_python.py
  get_hip_file_path: foo.cpp -> foo_hip.cpp), so the extension's build compiled the source and its copy (2680);
* the catch-all's report of a Python traceback cut before its exception line also in the segments the recogniser
  calls "error-log" (the kind it gives a pasted traceback), where the pasted file shows no known error (2683);
* a torch version a Python prompt echoes (">>> torch.__version__" then "'2.2.1+git9e71c8a'", the REPL's repr of the
  value), whatever its local label -- a source build's "+git<sha>" (tools/generate_torch_version.py) included (2681)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "fm_torch_extension_hipified_duplicate_definition"


@pytest.mark.parametrize("num,layer", [("2680", "framework"), ("2681", "framework"), ("2682", "runtime"),
                                       ("2683", "framework"), ("2684", "framework")])
def test_the_set_fm_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_duplicate_definition_row_names_2680_and_leads():
    assert_named_and_leads("2680", ROW, "framework")


@pytest.mark.parametrize("text", [
    # pytorch/vision#9298 (comment of 2026-07-22, headless Docker builds of torchvision 0.24-main on ROCm 7.2-7.15)
    "vision_hip.cpp:(.text+0x0): multiple definition of `vision::cuda_version()';\n"
    "vision.cpp:(.text+0x0): first defined here\n",
    # pytorch/vision#7513 (2023-04-13, a CMake build with LTO: the objects are '<src>.o' "(symbol from plugin)"), the
    # line in ld's English catalogue
    "/usr/bin/ld: CMakeFiles/torchvision.dir/torchvision/csrc/vision_hip.cpp.o (symbol from plugin): in function "
    "`vision::cuda_version()':\n(.text+0x0): multiple definition of `vision::cuda_version()'; "
    "CMakeFiles/torchvision.dir/torchvision/csrc/vision.cpp.o (symbol from plugin):(.text+0x0): first defined here\n",
    # binutils' form without debug information, the copy named as the first definition (ldmain.c "; %D: first
    # defined here")
    "/usr/bin/ld: build/temp.linux-x86_64-3.10/csrc/vision.o:(.text+0x0): multiple definition of "
    "`vision::cuda_version()'; build/temp.linux-x86_64-3.10/csrc/vision_hip.o:(.text+0x0): first defined here\n",
    # LLD's form (lld/ELF/Symbols.cpp reportDuplicate: the '>>> defined at' lines)
    "ld.lld: error: duplicate symbol: vision::cuda_version()\n>>> defined at vision.cpp\n"
    ">>>            build/vision.o:(vision::cuda_version())\n>>> defined at vision_hip.cpp\n"
    ">>>            build/vision_hip.o:(.text+0x0)\n",
])
def test_the_row_reads_the_linkers_wordings(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # rocm-arch/rocm-arch#165 (2020-05-14): a duplicate between two objects of a C test, no hipified copy
    "/usr/bin/ld: CMakeFiles/icd_loader_test.dir/test_platforms.c.o:(.bss+0x110): multiple definition of `ret_val'; "
    "CMakeFiles/icd_loader_test.dir/test_kernel.c.o:(.bss+0x348): first defined here\n",
    # LLD's duplicate between plain objects
    "ld.lld: error: duplicate symbol: counter\n>>> defined at foo.c\n>>>            foo.o:(counter)\n"
    ">>> defined at main.c\n>>>            main.o:(.bss+0x0)\n",
    # a hipified source's compile error is the compile row's (bm_torch_extension_hipified_source_compile_error)
    "csrc/vision_hip.cpp:12:3: error: use of undeclared identifier 'x'\n",
])
def test_duplicates_without_a_hipified_copy_are_not_the_row(text):
    assert ROW not in _ids(text)


_CUT = (
    "Traceback (most recent call last):\n"
    '  File "tools/amd_build/build_amd.py", line 173, in <module>\n'
    "    hip_clang_launch=is_hip_clang())\n"
    '  File "/home/u/pytorch/torch/utils/hipify/hipify_python.py", line 212, in preprocess\n'
    "    hip_clang_launch, is_pytorch_extension, clean_ctx, show_progress)\n")


def test_a_cut_traceback_in_an_error_log_segment_is_a_framework_failure():
    got = failure_lines.scan([(_CUT, "error-log", "paste:hipify.txt#error-log")])
    assert [(layer, line.startswith("(a Python traceback cut before its exception)")) for line, layer, _ in got] \
        == [("framework", True)]


def test_a_traceback_with_its_exception_line_is_not_reported_cut():
    text = _CUT + "UnicodeDecodeError: 'ascii' codec can't decode byte 0xc3 in position 1681\n"
    got = failure_lines.scan([(text, "error-log", "paste:hipify.txt#error-log")])
    assert not any(line.startswith("(a Python traceback cut") for line, _, _ in got)


def test_a_cut_traceback_beside_a_known_error_of_the_same_file_is_not_reported():
    # fixture 239's shape: the first exception is known, the chained traceback after it is cut
    known = "ImportError: libamdhip64.so.3: cannot open shared object file: No such file or directory"
    first = ("Traceback (most recent call last):\n"
             '  File "/x/site-packages/tensorflow/python/pywrap_tensorflow.py", line 64, in <module>\n'
             "    from tensorflow.python._pywrap_tensorflow_internal import *\n" + known + "\n")
    chained = "Traceback (most recent call last):\n" + '  File "<stdin>", line 1, in <module>\n'
    got = failure_lines.scan([(first, "error-log", "paste:python.txt#error-log"),
                              (chained, "error-log", "paste:python.txt#error-log")], known=[known])
    assert not any(line.startswith("(a Python traceback cut") for line, _, _ in got)


@pytest.mark.parametrize("text,version", [
    # the fixture's session (pytorch/pytorch#123094, comment of 2024-04-01): a source build's '+git<sha>' label
    (">>> torch.__version__\n'2.2.1+git9e71c8a'\n", "2.2.1+git9e71c8a"),
    # IPython's prompts (In [N]: / Out[N]:)
    ("In [2]: torch.__version__\nOut[2]: '2.5.0a0+git32f585d'\n", "2.5.0a0+git32f585d"),
    # a wheel's ROCm label, as before
    (">>> torch.__version__\n'2.4.1+rocm6.1'\n", "2.4.1+rocm6.1"),
])
def test_the_repl_echo_of_torch_version_is_read(text, version):
    assert (version, None) in paste_facts.parse(text).torch


@pytest.mark.parametrize("text", [
    ">>> torchvision.__version__\n'0.17.1+git9e71c8a'\n",   # another package's version
    ">>> torch.__version__\n>>> x = '2.2.1+git9e71c8a'\n",  # not the echo line
    "'2.2.1+git9e71c8a'\n",                                  # a quoted version with no prompt above it
])
def test_other_quoted_versions_are_not_torch(text):
    assert not [v for v, _ in paste_facts.parse(text).torch if "git" in v]
