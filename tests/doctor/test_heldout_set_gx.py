"""Held-out set GX (tests/data/real/3050-3054, HELDOUT.md): the compiler-based ML stacks on ROCm (mlc-llm, TVM, IREE,
tilelang under vLLM).  On the unchanged code two of five led at their layer.  The misses came from lines no row read --
LLVM's DataLayout parser meeting a datalayout string of a newer LLVM (llvm/llvm-project llvm/lib/IR/DataLayout.cpp), read
by TVM's LLVM 9 in ROCm's device-library bitcode, and IREE's HIP HAL driver reporting an aborted semaphore at a wait
(iree-org/iree runtime/src/iree/hal/drivers/hip/event_semaphore.c) -- and one detection miss: a chunk of collect_env that
opens inside its library list ('[pip3] torch==...', torch/utils/collect_env.py get_pip_packages, as vLLM's
vllm/collect_env.py prints it above its 'vLLM Info' section) was claimed by no parser.  3054 stays led at hip: its
'invalid configuration argument' is HIP's, the cause (tilelang's load bringing its own hipMalloc) is told only in the
title."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, recognize
from rocm_wizard.detect.parsers import collect_env
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,row", [
    ("3052", "gx_llvm_datalayout_unknown_specifier"),
    ("3053", "gx_iree_hip_semaphore_aborted"),
])
def test_the_fixed_fixtures_are_named_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


@pytest.mark.parametrize("num,layer", [("3050", "framework"), ("3051", "libraries")])
def test_the_fixtures_that_led_keep_their_lead(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line,row", [
    # LLVM <= 9: report_fatal_error (apache/tvm#8286's title); LLVM >= 10 returns the Error to its caller
    # (llvm/test/Assembler's invalid-datalayout tests: 'CHECK: Unknown specifier in datalayout string'; the llvm-as
    # location prefix below is illustrative, in the form its diagnostics take)
    ("TVM on AMD GPU. Errors: LLVM ERROR: Unknown specifier in datalayout string", "gx_llvm_datalayout_unknown_specifier"),
    ("llvm-as: <stdin>:2:19: error: Unknown specifier in datalayout string", "gx_llvm_datalayout_unknown_specifier"),
    # the mangling branch of the same parser (llvm/unittests/IR/DataLayoutTest.cpp)
    ("LLVM ERROR: Unknown mangling in datalayout string", "gx_llvm_datalayout_unknown_specifier"),
    # IREE's HIP driver: iree-org/iree#19623 (the fixture), nod-ai/amd-shark-ai#1751, iree-org/iree#21829, #20412's title
    ("c/runtime/src/iree/hal/drivers/hip/event_semaphore.c:786: ABORTED; the semaphore was aborted; while invoking "
     "native function hal.fence.await; while calling import; ", "gx_iree_hip_semaphore_aborted"),
    ("iree/runtime/src/iree/hal/drivers/hip/event_semaphore.c:787: ABORTED; the semaphore was aborted; while invoking "
     "native function hal.fence.await; while calling import; ", "gx_iree_hip_semaphore_aborted"),
    ("event_semaphore.c:677: ABORTED; the semaphore was aborted; while invoking native function hal.fence.await; "
     "while calling import;", "gx_iree_hip_semaphore_aborted"),
])
def test_the_new_rows_read_their_sources_wordings(line, row):
    assert row in _ids(line)
    assert error_signatures.failure_layer(row) == "framework"


@pytest.mark.parametrize("line", [
    'target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-A5-G1-ni:7"',
    "Invalid address space, must be a 24-bit integer",                          # another DataLayout error
    "*   OS_ERR_PEND_ABORT   The wait on the semaphore was aborted.",            # uC/OS-II's documentation
    "event_semaphore.c:673: DEADLINE_EXCEEDED; timed out waiting on the semaphore",  # another status
])
def test_near_misses_match_none_of_the_rows(line):
    assert not {i for i in _ids(line) if i.startswith("gx_")}


def test_a_collect_env_chunk_opening_in_its_library_list_is_read():
    text = (_fixture("3054") / "collect-env.txt").read_text(encoding="utf-8")
    assert recognize.classify(text)[0] == "collect_env"
    assert collect_env.parse(text).pip["torch"] == "2.11.0+gitd0c8b1f"


@pytest.mark.parametrize("text", [
    "numpy==1.26.4\ntorch==2.6.0+rocm6.2\ntriton==3.1.0\n",                      # pip freeze: no [pip3] prefix
    "[pip3] numpy==1.26.4\n[pip3] torch==2.6.0+rocm6.2\n",                      # two lines only
    "Installed packages:\n[pip3] numpy==1.26.4\n[pip3] torch==2.6.0\n[pip3] triton==3.1.0\n",  # not at the start
])
def test_other_texts_are_not_a_library_list_chunk(text):
    assert collect_env.looks_like(text) == 0.0
