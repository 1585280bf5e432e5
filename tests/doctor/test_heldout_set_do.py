"""Held-out set DO (tests/data/real/2290-2293, HELDOUT.md): multi-GPU training and work on one machine with AMD GPUs
(torchrun DDP on two RX 7900 XTX, a gfx942 torchrun job's GPU hang, a second Navi 21 card in the rocm/pytorch
container, a two-card llama-server).  Every fixture led at its layer before the fixes; the fixes are for the lines
and the count read beside the lead, each from the program that prints them:
* torchrun's elastic agent's report of the first failed worker (pytorch/pytorch torch/distributed/elastic/
  multiprocessing/api.py: 'failed (exitcode: %s) local_rank: %s (pid: %s) of binary: %s' / '... of fn: %s', and
  errors/__init__.py: 'Signal %d (%s) received by PID %d') was unknown (2291): a header row that yields to the
  worker's own abort line and is reported when alone;
* the column header of rccl-tests' / nccl-tests' result table (src/common.cu, '#  size  count  type  redop ...
  algbw  busbw  #wrong', 'error' in older releases) was read as an unrecognised failure (2290);
* rocm-smi's concise table rows (no bus address) and lspci's addressed lines were counted as four GPUs for two (2292).
Tested on the fixtures, on other real wordings of the same sources, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems as _problems)

ROW = "do_torch_elastic_worker_failed"
HW_HANG = "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang"
ELASTIC = ("E0902 15:10:49.013000 819010 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
           "local_rank: 0 (pid: 819025) of binary: <masked_by_issue_reporter>/bin/python")


@pytest.mark.parametrize("num,layer", [("2290", "kernel"), ("2291", "runtime"), ("2292", "hip"), ("2293", "runtime")])
def test_the_set_do_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


# -- rccl-tests' / nccl-tests' result table header is not a failure; its FAILED footer still is ---------------
@pytest.mark.parametrize("line", [
    # older rccl-tests (the fixture 2290): an 'error' column
    "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
    # current rccl-tests / nccl-tests: '#wrong'
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
])
def test_the_collective_test_table_header_is_not_a_failure(tmp_path, line):
    assert _problems(doctor_files(tmp_path, {"rccl-tests.txt": line + "\n"})) == []


def test_the_collective_test_failed_footer_stays_a_failure(tmp_path):
    assert _problems(doctor_files(tmp_path, {"rccl-tests.txt": "# Out of bounds values : 3 FAILED\n"}))


# -- rocm-smi's concise rows (no address) and lspci's lines are the same GPUs ----------------------------------
SMI = ("========================= ROCm System Management Interface =========================\n"
       "=================================== Concise Info ===================================\n"
       "GPU  Temp (DieEdge)  AvgPwr  SCLK  MCLK   Fan  Perf  PwrCap  VRAM%  GPU%  \n"
       "{rows}"
       "====================================================================================\n"
       "=============================== End of ROCm SMI Log ================================\n")
ROW0 = "0    31.0c           5.0W    0Mhz  96Mhz  0%   auto  289.0W    0%   0%    \n"
ROW1 = "1    43.0c           5.0W    0Mhz  96Mhz  0%   auto  289.0W    0%   0%    \n"
NAVI21 = ("{bus} VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 21 "
          "[Radeon RX 6800/6800 XT / 6900 XT] (rev c0)\n")
NVIDIA = "01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)\n"


@pytest.mark.parametrize("rows,lspci,want", [
    (ROW0 + ROW1, NAVI21.format(bus="03:00.0") + NAVI21.format(bus="07:00.0"), 2),   # the fixture 2292's two cards
    (ROW0, NVIDIA + NAVI21.format(bus="03:00.0"), 1),                               # an NVIDIA card is not merged
    (ROW0, NAVI21.format(bus="03:00.0") + NAVI21.format(bus="07:00.0"), 2),         # lspci sees one more: kept
])
def test_rocm_smi_concise_rows_and_lspci_count_each_gpu_once(tmp_path, rows, lspci, want):
    (tmp_path / "rocm-smi.txt").write_text(SMI.format(rows=rows), encoding="utf-8")
    (tmp_path / "lspci.txt").write_text("$ lspci|grep VGA\n" + lspci, encoding="utf-8")
    assert len(detect_snapshot(str(tmp_path)).amd_gpus) == want
