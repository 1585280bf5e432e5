"""Held-out set JL (tests/data/real/3670-3673, HELDOUT.md): threads on AMD Instinct MI300X/MI325X/MI355X machines
(serving, RCCL).  3670, 3671 and 3672 led at their layer on the unchanged code (3670 and 3672 only through the
catch-all at framework).  3672's line is torch.distributed's collective fingerprint check
(torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp, CollectiveFingerPrint::verify: "Detected mismatch between
collectives on ranks. Rank <r> is running collective: CollectiveFingerPrint(...), but Rank <r2> is running collective:
..."; releases of 2021-22 wrote "running inconsistent collective"), which SGLang wraps in "Capture cuda graph failed:":
the new row jl_torch_distributed_collective_mismatch reads it at framework.  3673 (SGLang's ncclAllReduce error over
two MI300X VF nodes, told only in the title, the paste check_env's lines) is in MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids, fixture as _fixture, lead_layer as _lead_layer

ROW = "jl_torch_distributed_collective_mismatch"


@pytest.mark.parametrize("num,layer", [("3670", "framework"), ("3671", "libraries"), ("3672", "framework")])
def test_the_set_jl_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_collective_mismatch_row_names_3672_and_leads_at_framework():
    assert_named_and_leads("3672", ROW, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's line (sgl-project/sglang#16237, MI325X): SGLang's wrapper, the short fingerprint form
    "Exception: Capture cuda graph failed: Detected mismatch between collectives on ranks. Rank 13 is running "
    "collective: CollectiveFingerPrint(SequenceNumber=17OpType=BARRIER), but Rank 0 is running collective: "
    "CollectiveFingerPrint(SequenceNumber=45OpType=BARRIER).Collectives differ in the following aspects:     "
    "Sequence number: 17vs 45\n",
    # pytorch/pytorch#148976 (2025-03): dist.barrier() under TORCH_DISTRIBUTED_DEBUG=DETAIL, torchelastic's indent
    "  RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
    "CollectiveFingerPrint(SequenceNumber=1OpType=BARRIER), but Rank 2 is running collective: "
    "CollectiveFingerPrint(SequenceNumber=0OpType=BARRIER).Collectives differ in the following aspects: \t Sequence "
    "number: 1vs 0\n",
    # modelscope/ms-swift#9443: the long form with shapes, behind torchrun's [rankN]: prefix
    "[rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
    "CollectiveFingerPrint(SequenceNumber=3104, OpType=ALLREDUCE, TensorShape=[195812480], TensorDtypes=BFloat16, "
    "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false "
    "(default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 0 is running collective: "
    "CollectiveFingerPrint(SequenceNumber=3104, OpType=ALLREDUCE, TensorShape=[51123456], TensorDtypes=BFloat16)\n",
    # bghira/SimpleTuner#2712 (2026-05): a trainer's log line quoting the message
    "[RANK 1] 2026-05-19 10:10:29,701 [ERROR] GPU circuit breaker OPEN: cuda_error - Detected mismatch between "
    "collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=101, OpType=ALLGATHER, "
    "TensorShape=[1], TensorDtypes=Long), but Rank 7 is running collective: CollectiveFingerPrint(SequenceNumber=0OpType=REDUCE).\n",
    # pytorch/pytorch#78022 (2022): the older wording, no sequence number
    "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running inconsistent collective: "
    "CollectiveFingerPrint(OpType=BROADCAST, TensorShape=[34112], TensorDtypes=Float)\n",
])
def test_the_row_reads_torch_distributed_fingerprint_mismatches(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text", [
    # a project's notes listing the exception's first words alone (no rank, no fingerprint)
    "- `RuntimeError: Detected mismatch between collectives on ranks`\n",
    # NCCL's own check (NVIDIA/nccl#296), another program's line
    "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.\n",
    # the C++ source line that builds the message (a quoted string, no rank number)
    "ss << \"Detected mismatch between collectives on ranks. Rank \" << backend->getRank() << \" is running collective: \"\n",
    # a person's paraphrase without the message's layout
    "Rank 3 is running BROADCAST, but Rank 1 is running REDUCE\n",
])
def test_the_row_leaves_other_lines(text):
    assert ROW not in _ids(text)
