"""Held-out set GK (tests/data/real/2920-2923, HELDOUT.md): a theme-neutral sample of Triton's AMD GPU issues
(triton-lang/triton, ROCm/triton, pytorch/pytorch).  All four fixtures led at their labelled layer (framework) on the
unchanged code; two lines were left to the catch-all, read since from their printers' sources:
Triton's pipeliner refusing an op it cannot predicate (triton-lang/triton
lib/Dialect/TritonGPU/Transforms/Pipeliner/PipeliningUtility.cpp, predicateOp: "pipeliner doesn't know how to
predicate this op." then report_fatal_error("Fatal pipeliner error")) and Inductor's compile worker pool relaying a
failed job (pytorch/pytorch torch/_inductor/compile_worker/subproc_pool.py, class SubprocException: "An exception
occurred in a subprocess:")."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2920", "framework"), ("2921", "framework"), ("2922", "framework"),
                                       ("2923", "framework")])
def test_the_set_gk_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_pipeliner_row_names_2923():
    assert_named_and_leads("2923", "gk_triton_pipeliner_cannot_predicate_op", "framework")


def test_the_subproc_row_names_2921():
    assert_named_and_leads("2921", "gk_inductor_subproc_exception", "framework")


@pytest.mark.parametrize("text", [
    # the fixture's line (triton-lang/triton#10649, gfx1250, tt.descriptor_load, num_stages=2)
    "error: 'tt.descriptor_load' op pipeliner doesn't know how to predicate this op.",
    # a vLLM serve log with a LoRA fused-MoE kernel's inline asm (vllm/lora/ops/triton_ops/fused_moe_lora_op.py)
    "/home/ubuntu/meow/.venv/lib/python3.12/site-packages/vllm/lora/ops/triton_ops/fused_moe_lora_op.py:168:12: "
    "error: 'tt.elementwise_inline_asm' op pipeliner doesn't know how to predicate this op.",
    # a TMA grouped-GEMM kernel under Triton 3.5.1 (tensormap_create in a pipelined tile loop)
    "m_grouped_gemm_TMA_triton3_4.py:102:12:\n"
    "error: 'ttng.tensormap_create' op pipeliner doesn't know how to predicate this op.",
    # the source's emitError form (no op name) and report_fatal_error's line alone
    "kernel.py:40:16: error: pipeliner doesn't know how to predicate this op.",
    "LLVM ERROR: Fatal pipeliner error",
])
def test_the_pipeliner_row_reads_its_wordings(text):
    assert "gk_triton_pipeliner_cannot_predicate_op" in _ids(text)


@pytest.mark.parametrize("text", [
    "warning: the pipeliner could not pipeline this loop, falling back to num_stages=1",
    "LLVM ERROR: Fatal error in the scheduler",
    "note: the pipeliner knows how to predicate tt.load and tt.store",
])
def test_lines_that_are_not_the_pipeliner_refusal(text):
    assert "gk_triton_pipeliner_cannot_predicate_op" not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's line (pytorch/pytorch#154242, test_custom_lowering on top-of-tree Triton, ROCm)
    "{'message': 'torch._inductor.exc.InductorError: SubprocException: An exception occurred in a subprocess:"
    "\\n\\nTraceback (most recent call last):\\n",
    # Dynamo's wrapper around it (chengzeyi/Comfy-WaveSpeed#54, SDXL compile on ROCm, make_llir of the AMD backend)
    "backend='inductor' raised:\nSubprocException: An exception occurred in a subprocess:\n\nTraceback (most recent "
    "call last):\n",
    # the BackendCompilerFailed form
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
    "SubprocException: An exception occurred in a subprocess:\n",
])
def test_the_subproc_row_reads_its_wordings(text):
    assert "gk_inductor_subproc_exception" in _ids(text)


@pytest.mark.parametrize("text", [
    "ERROR odoo.addons.sap_import: An exception occurred in a subprocess.",   # a logger's line, no SubprocException
    "concurrent.futures.process.BrokenProcessPool: A process in the process pool was terminated abruptly",
    "subprocess.CalledProcessError: Command '['/usr/bin/gcc', 'main.c']' returned non-zero exit status 1.",
])
def test_lines_that_are_not_the_subproc_exception(text):
    assert "gk_inductor_subproc_exception" not in _ids(text)
