"""Held-out set EZ (tests/data/real/2596-2599, HELDOUT.md): a theme-neutral sample of PyTorch's ROCm issues of
2025-2026 (pytorch/pytorch).  2596 (ROCr's 'Memory access fault by GPU node-N ... Reason: Page not present or supervisor
privilege.', printed by ROCm/ROCR-Runtime's memory-fault handler) and 2597 (PyTorch's CI wheel build stopping at ninja's
'FAILED:' on the AOTriton runtime's configure step, then pip's 'Failed building wheel for torch') led at their labelled
layers on the unchanged code, so no row was added; these tests hold those leads.  2598 (a hang in the ROCm thunk's
hsaKmtMemoryVaMap under torch's expandable segments) and 2599 (AOTriton's SDPA returning wrong values for fully masked
rows) are told only in titles and prose, their pastes a collect_env head and a reproducer's input print: misses
(tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2596", "runtime"), ("2597", "packaging")])
def test_the_set_ez_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num", ["2598", "2599"])
def test_the_prose_only_failures_stay_misses(num):
    # no pasted line of 2598 (a collect_env head) or 2599 (the reproducer's mask print) shows the failure
    assert _lead_layer(_fixture(num)) is None


@pytest.mark.parametrize("line,row,layer", [
    # 2596's line (pytorch/pytorch#146809, GPT-2 training on an RX 7900 XTX, torch 2.7 nightly rocm6.3)
    ("Memory access fault by GPU node-1 (Agent handle: 0x5d8b398786a0) on address 0x774546a00000. Reason: Page not "
     "present or supervisor privilege.", "rocr_memory_access_fault_reason", "runtime"),
    # 2597's pip line (pytorch/pytorch#166992, the libtorch-rocm7_1 nightly build in a manylinux container)
    ("  ERROR: Failed building wheel for torch", "pkg_pip_wheel_build_failed", "packaging"),
])
def test_the_existing_rows_name_the_set_ez_lines(line, row, layer):
    assert row in _ids(line)
    assert error_signatures.failure_layer(row) == layer


@pytest.mark.parametrize("line", [
    # 2598's collect_env lines and 2599's mask print: healthy output, no row may read a failure in them
    "ROCM used to build PyTorch: 7.2.53211",
    "OS: Debian GNU/Linux 13 (trixie) (x86_64)",
    "       device='cuda:0', dtype=torch.float16)",
])
def test_the_set_ez_healthy_lines_match_no_row(line):
    assert not _ids(line)
