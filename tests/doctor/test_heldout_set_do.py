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


def test_the_elastic_row_is_named_on_the_fixture_and_yields_to_the_hang():
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture("2291").glob("*.txt")))
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "framework"
    assert_named_and_leads("2291", "rocr_hw_exception", "runtime")


# -- torchrun's elastic agent: which worker failed first, and by which signal -----------------------------------
@pytest.mark.parametrize("line", [
    ELASTIC,                                                             # the fixture's line (ROCm/ROCm#5259)
    # torch 1.x/2.0 logging without glog's prefix (Facico/Chinese-Vicuna#113, Vision-CAIR/MiniGPT-4#237)
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 1622990) of binary: "
    "/home/changquan/anaconda3/envs/lang/bin/python",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 16) of binary: "
    "/opt/conda/bin/python",
    # MultiprocessContext (torch.distributed.launcher with a function entrypoint)
    "failed (exitcode: -11) local_rank: 1 (pid: 4242) of fn: main (start_method: spawn)",
    # ChildFailedError's summary of a worker ended by a signal (errors/__init__.py's own form; then
    # ZhehengJiangLancaster/AMVUR#2's wording)
    "  traceback : Signal 6 (SIGABRT) received by PID 819025",
    "traceback : signal 9 (SIGKILL) received by PID 36071",
])
def test_elastic_worker_failed_wordings_are_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    "*** SIGABRT received by PID 8409 ***",                               # glog's failure signal handler
    "W0902 15:10:48.626000 819010 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 819027 "
    "closing signal SIGTERM",                                             # the agent stopping the other workers
    "  exitcode  : -6 (pid: 819025)",                                     # the summary's exit-code field alone
    "the worker failed (exit code 1) after an hour",                      # prose
])
def test_elastic_lookalikes_are_not_named(line):
    assert ROW not in _ids(line), line


def test_the_elastic_line_alone_is_still_reported(tmp_path):
    assert ("known-failure", "framework") in _problems(doctor_files(tmp_path, {"out.txt": ELASTIC + "\n"}))


def test_the_elastic_line_yields_to_the_workers_abort(tmp_path):
    found = _problems(doctor_files(tmp_path, {"out.txt": HW_HANG + "\n" + ELASTIC + "\n"}))
    assert found[0] == ("known-failure", "runtime")
    assert all(layer != "framework" for _id, layer in found), found


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
