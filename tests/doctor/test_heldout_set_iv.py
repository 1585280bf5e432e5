"""Held-out set IV (tests/data/real/3510-3513, HELDOUT.md): a theme-neutral sample of threads outside pytorch/pytorch
that paste an environment report (torch's or vLLM's collect_env) from an AMD GPU system: vLLM's V1 benchmark on
MI300X aborting with HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, the gfx906 fork of vLLM failing at
'from vllm import LLM', vLLM's gfx1151 tuned configs unreachable (told only in prose) and a vLLM gfx906 image's
'hip error' (told only in a title that quotes no line).  On the unchanged code 3510 led at runtime by CLR's queue-abort
row but without the memory-access-fault rule its class wants, 3511 led at framework by the catch-all, 3512 and 3513
had no finding (MISSES).  The fix:

* 3510: ROCr's hsa_status_string gives HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION the description 'The agent attempted
  to access memory beyond the largest legal address.' (ROCm/rocm-systems
  projects/rocr-runtime/runtime/hsa-runtime/core/runtime/hsa.cpp), a sentence no other status uses; the paste's
  terminal split the status name off its line.  Row hsa_memory_aperture_violation now also reads the sentence, so
  the memory-access-fault rule (whose signatures name the row) reports the fault at runtime."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import PROBLEM, assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

APERTURE = "hsa_memory_aperture_violation"


@pytest.mark.parametrize("num,layer", [("3510", "runtime"), ("3511", "framework")])
def test_the_set_iv_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_aperture_row_names_its_fixture_and_leads_at_runtime():
    assert_named_and_leads("3510", APERTURE, "runtime")


def test_the_memory_access_fault_rule_reports_the_split_status():
    diag = realrun.diagnosis(_fixture("3510"))
    first = [f for f in diag.findings if f.severity in PROBLEM][0]
    assert (first.id, first.layer) == ("memory-access-fault", "runtime")


@pytest.mark.parametrize("line", [
    # the fixture's line (vllm-project/vllm#13674): the status name split off by a terminal's status text
    "RROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29      ",
    # CLR's older callback wording (ROCm/legacy-rocm-build#2153, Radeon VII Pro)
    ":0:rocdevice.cpp :2672: 0696142325 us: 5999 : [tid:0x7f676e4c7640] Device::callbackQueue aborting with error : "
    "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. "
    "code: 0x29",
    # whisper.cpp on Strix Halo (ggml-org/whisper.cpp#3576)
    "rocdevice.cpp Callback: Queue 0x7fc220400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The "
    "agent attempted to access memory beyond the largest legal address. code: 0x29",
    # llama.cpp's gfx906 fork on two MI50 (iacopPBK/llama.cpp-gfx906#17)
    ":0:rocdevice.cpp            :2992: 4026031038 us:  Callback: Queue 0x7d8018200000 aborting with error : "
    "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. "
    "code: 0x29",
    # constructed: a wrapped callback line whose second line starts with the status's description
    "The agent attempted to access memory beyond the largest legal address. code: 0x29",
])
def test_the_aperture_row_reads_the_status_and_its_description(line):
    assert APERTURE in ids(line)
    assert error_signatures.failure_layer(APERTURE) == "runtime"


@pytest.mark.parametrize("line", [
    # ROCr's descriptions of the neighbouring statuses (hsa.cpp hsa_status_string), other rows' lines
    "HSA_STATUS_ERROR_MEMORY_FAULT: The agent attempted to access an inaccessible address. code: 0x2b",
    "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction. code: 0x2a",
    # constructed: the same verb phrase about something else
    "error: kernel attempted to access memory beyond the end of the buffer",
])
def test_other_statuses_are_not_the_aperture_row(line):
    assert APERTURE not in ids(line)
