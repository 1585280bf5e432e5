"""Held-out set IO (tests/data/real/3440-3443, HELDOUT.md): a third theme-neutral sample of threads where a compute
workload on an AMD GPU hangs, resets the GPU or faults and the thread pastes a kernel log, 2025-2026.  All four fixtures
lead at their labelled layer (kernel) on the unchanged code, so no row was added; these tests hold the set's leads and
the amdgpu rows that read each fixture's failing line (amdgpu's MES messaging and suspend path, its VM fault report,
KFD's queue eviction and restore, and the oops RIP inside the amdgpu module)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3440", "kernel"), ("3441", "kernel"), ("3442", "kernel"), ("3443", "kernel")])
def test_the_set_io_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [
    ("3440", "kernel_mes_no_response"),           # MES failed to respond to msg=SUSPEND
    ("3440", "kernel_ip_suspend_failed"),         # suspend of IP block <mes_v11_0> failed -110
    ("3441", "kx_kernel_oops_rip_in_amd_gpu_module"),  # RIP: ...amdgpu_xcp_query_partition_mode [amdgpu]
    ("3442", "kernel_gfxhub_page_fault"),         # [gfxhub] page fault ... in process ollama
    ("3443", "kernel_mes_remove_queue_failed"),   # failed to remove hardware queue from MES
    ("3443", "k12_kfd_queue_ops_failed"),         # Failed to restore queue 2 / process queues
])
def test_the_fixtures_failing_lines_are_read_at_kernel(num, row):
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))
    assert row in _ids(text)
    assert error_signatures.failure_layer(row) == "kernel"


@pytest.mark.parametrize("text", [
    # the NetworkManager warnings 3443 carries beside amdgpu's lines: not a GPU failure
    "Oct 19 23:31:41 Desktop-Mint NetworkManager[1070]: <warn>  [1760913101.4889] platform-linux: do-add-ip6-address"
    "[2: fe80::336e:2cac:5026:dfeb]: failure 13 (Permission denied - ipv6: IPv6 is disabled on this device)\n",
    # a RIP in another module is not amdgpu's
    "[ 2619.906417] RIP: 0010:nvme_poll_cq+0xb6/0x170 [nvme]\n",
])
def test_lines_beside_the_failures_are_not_read_as_amdgpu_rows(text):
    assert not {"kx_kernel_oops_rip_in_amd_gpu_module", "kernel_mes_no_response", "k12_kfd_queue_ops_failed"} & _ids(text)
