"""Held-out set IE (tests/data/real/3340-3342, HELDOUT.md): a fourth theme-neutral sample of vLLM's and SGLang's AMD GPU
issues (2026, late 2025).  Two rows and one benign line were added: PyTorch's process-group watchdog stopping on an
exception (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp: c10::str(logPrefix(), "Process group
watchdog thread terminated with exception: ", e.what()); "[Rank N] NCCL watchdog thread terminated with exception: "
before 2.2), which the catch-all read as an unrecognised failure beside HIP's capture error (3340, and 914); SGLang's
GSM8K benchmark finding no answer in every reply (sgl-project/sglang benchmark/gsm8k/bench_sglang.py: "Accuracy:
{acc:.3f}" and "Invalid: {invalid:.3f}"), where doctor said nothing (3342: warned at framework, the thread's cause, the
image's AITER release, being at libraries -- a documented miss); and pip's note of the yanked versions it ignored (pypa/pip
resolution/resolvelib/factory.py, logged at CRITICAL, shown as 'ERROR: '), context for the failure under it (3341)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems as _problems

WATCHDOG = "ie_torch_pg_watchdog_terminated"
GSM8K = "ie_sglang_gsm8k_all_answers_invalid"


@pytest.mark.parametrize("num,layer", [("3340", "hip"), ("3341", "packaging")])
def test_the_set_ie_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_gsm8k_fixture_is_warned_at_framework_not_silent():
    # the miss: the row reads SGLang's benchmark (framework); the thread's cause, AITER in the image, is prose only
    assert _problems(realrun.diagnosis(_fixture("3342"))) == [("known-failure", "framework")]


@pytest.mark.parametrize("num", ["3340", "3341", "914"])
def test_no_unrecognised_failure_is_left_on_the_watchdog_and_yanked_lines(num):
    diag = realrun.diagnosis(_fixture(num))
    problems = _problems(diag)
    lines = [e for f in diag.findings if f.id == "unrecognised-failure" for e in f.evidence]
    assert not any("watchdog thread terminated" in e or "yanked versions" in e for e in lines), lines
    if num != "914":  # 914 keeps its 'Fatal Python error: Aborted' and scheduler lines
        assert "unrecognised-failure" not in [i for i, _ in problems]


@pytest.mark.parametrize("text", [
    # 3340 (sgl-project/sglang#24011): the line broken before its exception
    "Process group watchdog thread terminated with exception:",
    # 914 (sgl-project/sglang#29235): the reporter's elided summary
    "... Process group watchdog thread terminated with exception ...",
    # vllm-project/vllm#41622 (ROCm, LoRA, graph capture): the DistBackendError's what() line
    "  what():  [PG ID 2 PG GUID 3 Rank 5] Process group watchdog thread terminated with exception: CUDA error: "
    "operation not permitted on an event last recorded in a capturing stream",
    # vllm-project/vllm#31259 (ROCm CI, ROCm/hip#3876)
    "Process group watchdog thread terminated with exception: HIP error: operation not permitted when stream is capturing",
    # the form before PyTorch 2.2 (pytorch/pytorch#113128's title, its logs' line)
    "[rank17]:[E ProcessGroupNCCL.cpp:1182] [Rank 2] NCCL watchdog thread terminated with exception: [Rank 2] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=ALLREDUCE, NumelIn=9437184, NumelOut=9437184, "
    "Timeout(ms)=600000) ran for 600070 milliseconds before timing out.",
])
def test_the_watchdog_row_reads_torch_relay(text):
    assert WATCHDOG in _ids(text)
    assert error_signatures.failure_layer(WATCHDOG) == "framework"


@pytest.mark.parametrize("text", [
    "[Rank 0] NCCL watchdog thread terminated normally",                  # the clean exit, VLOG(2)
    "[Rank 7] HCCL watchdog thread terminated with exception: ",           # torch_npu's Ascend back-end, not ROCm's
    "[Rank 0] NCCL watchdog thread started!",                              # its LOG(INFO) at start
])
def test_near_misses_do_not_match_the_watchdog_row(text):
    assert WATCHDOG not in _ids(text)


@pytest.mark.parametrize("text", [
    # 3342 (sgl-project/sglang#12819): Grok-2.5 in the rocm630 image
    "Accuracy: 0.000\nInvalid: 1.000\nLatency: 80.200 s\nOutput throughput: 8420.568 token/s",
    # DeepSeek-V3 on MI300X (sgl-project/sglang PR #2601, 2024-12-27, the comment's block)
    "Accuracy: 0.000\nInvalid: 1.000\nLatency: 597.800 s\nOutput throughput: 1129.690 token/s",
    # the siblings' order (benchmark/tree_of_thought_v0 and multi_chain_reasoning: Latency, Invalid, Accuracy)
    "Latency: 41.001\nInvalid: 0.998\nAccuracy: 0.000",
])
def test_the_gsm8k_row_reads_a_benchmark_with_no_answers(text):
    assert GSM8K in _ids(text)
    assert error_signatures.failure_layer(GSM8K) == "framework"


@pytest.mark.parametrize("text", [
    "Accuracy: 0.951\nInvalid: 0.000\nLatency: 35.402 s",                 # a working model
    "Accuracy: 0.000\nInvalid: 0.120",                                     # wrong answers, not no answers
    "Total latency: 41.001\nAverage accuracy: 0.000",                      # MMLU's summary, another benchmark's words
    "- Accuracy by report class:\n  - invalid: 1.000\n  - valid: 1.000",   # a report's per-class list
])
def test_near_misses_do_not_match_the_gsm8k_row(text):
    assert GSM8K not in _ids(text)


def test_pip_yanked_note_is_context_and_the_requires_python_note_stays_read():
    from rocm_wizard.detect import failure_lines
    assert not failure_lines.looks_like_failure("ERROR: Ignored the following yanked versions: 0.2.1")
    assert failure_lines.looks_like_failure(
        "ERROR: Ignored the following versions that require a different python version: 5.0 Requires-Python >=3.10")
