"""Held-out set IS (tests/data/real/3480-3483, HELDOUT.md): threads that paste rocminfo, rocm-smi, amd-smi or
rocm_agent_enumerator output, whatever failed.  After the set's fixes:

* 3483: OpenLinkHub's 'Unable to process amd-smi' (jurkovic-nikola/OpenLinkHub src/systeminfo/systeminfo.go, logged
  when the amd-smi it runs exits non-zero or cannot start) is row is_openlinkhub_amd_smi_run_failed at framework; the
  user's hand-masked `amd-smi static --asic --json` (a lost quote makes it unloadable JSON) is read pair by pair, so its
  gfx1100 is detected.
* 3481: aqlprofile's HsaRsrcFactory CHECK_STATUS line ('Error Calling hsa_iterate_agents: <status>' then abort();
  ROCm/rocm-systems projects/aqlprofile/src/util/hsa_rsrc_factory.h/.cpp) is row
  is_profiler_hsa_rsrc_factory_check_failed at libraries, and the HSA status it carries goes with it; no-amd-gpu no
  longer claims "no AMD GPU" from rocminfo's CPU-only list when that CPU is an AMD APU 'w/ Radeon' graphics.  The lead
  stays at runtime: the index's copy of the pasted rocminfo is cut inside its CPU agent, which the corpus reads as
  no_gpu_agent (as 240, 245).
* 3482 (amd-smi's 'static --csv' printing nothing, told only in prose) is a listed miss.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import amd_smi
from rocm_wizard.doctor import matchers
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer, problems
from rwtest import realrun

OLH = "is_openlinkhub_amd_smi_run_failed"
AQL = "is_profiler_hsa_rsrc_factory_check_failed"


@pytest.mark.parametrize("num,layer", [("3480", "runtime"), ("3483", "framework")])
def test_the_set_is_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_openlinkhub_row_names_3483_and_leads():
    assert_named_and_leads("3483", OLH, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's log record (jurkovic-nikola/OpenLinkHub#117, 2025 releases: "msg"/"time" keys)
    '{"error":"exit status 1","level":"error","msg":"Unable to process amd-smi","time":"2025-04-19T20:14:27+10:00"}',
    # the same thread's title, the user's retyped message
    "Unable to process amd-smi",
    # later releases' record keys ("message"/"timestamp", as jurkovic-nikola/OpenLinkHub#407's log prints them) with
    # the exec error Go's os/exec gives when the binary cannot start
    '{"error":"exec: \\"amd-smi\\": executable file not found in $PATH","level":"error",'
    '"message":"Unable to process amd-smi","timestamp":"2026-04-22T12:39:34-04:00"}',
])
def test_openlinkhub_row_reads_its_wordings(text):
    assert OLH in ids(text)
    assert error_signatures.failure_layer(OLH) == "framework"


@pytest.mark.parametrize("text", [
    # OpenLinkHub's start-up warning when amd-smi is absent (jurkovic-nikola/OpenLinkHub#407): a notice, no failed run
    '{"level":"warn","message":"amd-smi not found","timestamp":"2026-04-22T12:39:34-04:00",'
    '"warn":"exec: \\"amd-smi\\": executable file not found in $PATH"}',
    # its JSON-decoding failure is another message
    '{"error":"unexpected end of JSON input","level":"error","msg":"Unable to unmarshal JSON data for AmdSMIModel"}',
    "Unable to process amd-smi-lib's changelog",
])
def test_openlinkhub_row_leaves_other_lines(text):
    assert OLH not in ids(text)


@pytest.mark.parametrize("text", [
    # 3481's line (ROCm/rocprof-trace-decoder#6, rocprofv3 --att on a Radeon 8060S)
    "Error Calling hsa_iterate_agents: HSA_STATUS_ERROR: A generic error has occurred.",
    # the PMC path's abort (fixture 1703, ROCm/rocm-systems#2169)
    "Error Calling hsa_iterate_agents: HSA_STATUS_ERROR: A generic error has occurred.\n*** SIGABRT received by PID 8409 ***",
    # the older rocprofiler's same factory (ROCm/rocprofiler#10, ROCm/roctracer#42)
    "aqlprofile API table load failed: HSA_STATUS_ERROR: A generic error has occurred.",
    # a tool library started before HSA: the HSA_STATUS_ERROR_NOT_INITIALIZED form a rocprofiler-sdk bisect report quotes
    # (MI300A, ROCm 6.2.4), its status string as ROCr's hsa_status_string gives it
    "Error Calling hsa_iterate_agents: HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked "
    "while the reference count of the HSA runtime is 0.",
])
def test_profiler_factory_row_reads_its_wordings(text):
    assert AQL in ids(text)
    assert error_signatures.failure_layer(AQL) == "libraries"


@pytest.mark.parametrize("text", [
    '  CHECK_STATUS("Error Calling hsa_iterate_agents", status);',        # the source line, no status printed
    "hsa api call failure at: /src/rocminfo/rocminfo.cc:1306",            # rocminfo's own check, the runtime's
    "The error in hsa_init was fixed in 6.4: HSA_STATUS_ERROR went away",  # prose, not at a line's start
])
def test_profiler_factory_row_leaves_other_lines(text):
    assert AQL not in ids(text)


def test_3481_names_the_profiler_factory_and_no_longer_claims_no_amd_gpu():
    folder = _fixture("3481")
    text = (folder / "error.txt").read_text(encoding="utf-8")
    assert AQL in ids(text)
    found = problems(realrun.diagnosis(folder))
    assert ("no-amd-gpu", "kernel") not in found
    assert ("known-failure", "libraries") in found


@pytest.mark.parametrize("cpu,apu", [
    ("AMD RYZEN AI MAX+ PRO 395 w/ Radeon 8060S", True),        # 3481's rocminfo CPU agent
    ("AMD Ryzen 5 5600G with Radeon Graphics", True),           # a desktop APU's cpuinfo model name
    ("AMD Ryzen 7 7800X3D 8-Core Processor", False),            # 3480's: no graphics in the name
    ("Intel(R) Core(TM) i7-10700F CPU @ 2.90GHz", False),        # 3482's
])
def test_the_radeon_apu_name_test(cpu, apu):
    assert bool(matchers._RADEON_APU_CPU.search(cpu)) is apu


def test_masked_amd_smi_json_is_read_pair_by_pair():
    text = (_fixture("3483") / "amd-smi-static.txt").read_text(encoding="utf-8")
    gpus = amd_smi.parse(text).gpus
    assert [(g.index, g.market_name, g.gfx_target) for g in gpus] == [(0, "Radeon RX 7900 XTX", "gfx1100")]
    assert gpus[0].subsystem_id is None and gpus[0].device_id is None   # the masked ids are not read as ids


def test_loadable_amd_smi_json_is_unchanged():
    # the maintainer's reply in the same thread (jurkovic-nikola/OpenLinkHub#117): valid JSON, read by the JSON reader
    text = ('[\n    {\n        "gpu": 0,\n        "asic": {\n            "market_name": "Granite Ridge [Radeon Graphics]",\n'
            '            "vendor_id": "0x1002",\n            "device_id": "0x13c0",\n'
            '            "target_graphics_version": "gfx1036"\n        }\n    }\n]\n')
    gpus = amd_smi.parse(text).gpus
    assert [(g.market_name, g.gfx_target, g.device_id) for g in gpus] == [("Granite Ridge [Radeon Graphics]", "gfx1036",
                                                                           "13c0")]


def test_unloadable_json_without_a_gpu_pair_gives_no_gpu():
    assert amd_smi.parse('[\n    {\n        "market_name": "Radeon RX 7900 XTX",\n        "x": "0x----,\n    }\n]\n').gpus == []
