"""Held-out set FZ (tests/data/real/2810-2813, HELDOUT.md): a theme-neutral sample of vLLM's AMD GPU issues of 2024.
All four fixtures lead at their labelled layer on the unchanged code; these tests hold those leads.  One row was added
for a line the catch-all read at the wrong layer: the HIP runtime's device layer (ROCm/clr rocclr/device/rocm/
rocdevice.cpp, Device::globalFreeMemory: LogError("HSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed.") when ROCr's
agent query fails, after which hipMemGetInfo returns hipErrorInvalidValue) -- 2812's trace, read at runtime for its
'HSA_' word although HIP prints it."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import PROBLEM, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "fz_rocclr_memory_avail_query_failed"


@pytest.mark.parametrize("num,layer", [("2810", "runtime"), ("2811", "packaging"), ("2812", "hip"),
                                       ("2813", "packaging")])
def test_the_set_fz_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_row_sits_at_hip():
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("line", [
    # the fixture's line (vllm-project/vllm#3122, a comment of 2024, vLLM 0.3.2+rocm603 on a RHEL 8.7 host)
    ":1:rocdevice.cpp            :1824: 3852921762 us: [pid:9     tid:0x7fcd5fa0c4c0] HSA_AMD_AGENT_INFO_MEMORY_AVAIL "
    "query failed.",
    # ROCm/ROCm#3246 (2024-06, MI210, vLLM's example under ROCm 6.0): another clr release, another line number
    ":1:rocdevice.cpp            :1885: 1131970533709 us: [pid:1318  tid:0x7fe57f9fc4c0] HSA_AMD_AGENT_INFO_MEMORY_AVAIL "
    "query failed.",
    # the message alone, as a log collector that strips ClPrint's prefix keeps it (the source's LogError text)
    "HSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed.",
])
def test_the_row_reads_the_hip_runtime_line(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("line", [
    "    case HSA_AMD_AGENT_INFO_MEMORY_AVAIL: {",                               # ROCr's source, not a log
    ":1:rocdevice.cpp :1200: 1 us: [pid:1 tid:0x1] HSA_AMD_AGENT_INFO_UUID query failed.",  # another attribute
    "hsa_agent_get_info(HSA_AMD_AGENT_INFO_MEMORY_AVAIL) returned 0x1001",      # a program's own report
])
def test_other_lines_are_not_the_row(line):
    assert ROW not in _ids(line)


def test_2812_is_read_at_hip_only():
    diag = realrun.diagnosis(_fixture("2812"))
    layers = {f.layer for f in diag.findings if f.severity in PROBLEM}
    assert layers == {"hip"}
