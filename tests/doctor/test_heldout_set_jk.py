"""Held-out set JK (tests/data/real/3660-3663, HELDOUT.md): threads of late 2025 and 2026 on Ryzen AI machines (Strix
Point gfx1150, Krackan gfx1152/gfx1153, Strix Halo gfx1151).  3661 (RAJAPerf's 'HIPassert: invalid device function' on
gfx1150) and 3662 (TheRock's hipInfo 'invalid argument' on a gfx1153 Radeon 840M) led at hip on the unchanged code.
3660 (torch under WSL2 on a Ryzen AI 9 HX 470) dies on rocprofiler-sdk's fatal agent check
(ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/agent.cpp: ROCP_FATAL_IF(...) << "Found " <<
rocp_agents.size() << " rocprofiler agents and " << hsa_agents.size() << " HSA agents. HSA agents contained " ... " internal
node ids not found by rocprofiler: ", and its sibling "rocprofiler was only able to map N rocprofiler agents to HSA
agents, expected M"), which no row read; the new row jk_rocprofiler_sdk_agent_mapping_fatal reads both at libraries.
3660's lead was also taken by the runtime's no_gpu_agent signature on the index's copy of rocminfo, cut after the CPU
agent, while the same paste shows rocminfo's GPU agent lines (gfx1150): known-failure now leaves no_gpu_agent out when
detection read a GPU's target from pasted rocminfo lines.  3663 (VoiceStudio choosing the CPU on Strix Halo, every
pasted output a working torch run) is in MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

ROW = "jk_rocprofiler_sdk_agent_mapping_fatal"


@pytest.mark.parametrize("num,layer", [("3660", "libraries"), ("3661", "hip"), ("3662", "hip")])
def test_the_set_jk_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_rocprofiler_agent_row_names_3660_and_leads_at_libraries():
    assert_named_and_leads("3660", ROW, "libraries")


@pytest.mark.parametrize("text", [
    # the fixture's glog line (ROCm/librocdxg#55, 2026-06-07: WSL2, Ryzen AI 9 HX 470, torch.cuda.is_available())
    "F20260607 07:45:51.358712 124735382591296 agent.cpp:1093] Found 0 rocprofiler agents and 2 HSA agents. HSA agents "
    "contained 2 internal node ids not found by rocprofiler: 0, 1\n",
    # a public WSL2 + RX 7800 XT vLLM write-up in the index (file id 69086806185): glog's short prefix, the message
    # wrapped after 'HSA agents.', the read_topology warning before it
    "W agent.cpp:608] sysfs nodes path '/sys/class/kfd/kfd/topology/nodes' does not exist\n"
    "F agent.cpp:1093] Found 0 rocprofiler agents and 2 HSA agents.\n"
    "                  HSA agents contained 2 internal node ids not found by rocprofiler: 0, 1\n"
    "Aborted (core dumped)\n",
    # a Korean WSL2 setup note in the index (file id 60362449820): the same abort under torch.cuda.device_count()
    "F agent.cpp:1093] Found 0 rocprofiler agents and 2 HSA agents.\n"
    "  HSA agents contained 2 internal node ids not found by rocprofiler: 0, 1\n",
    # constructed from agent.cpp's second fatal check (agent_map.size() != hsa_agents.size()); no real paste was found
    "F20260101 00:00:00.000000 1 agent.cpp:1171] rocprofiler was only able to map 1 rocprofiler agents to HSA agents, "
    "expected 2\n",
])
def test_the_row_reads_rocprofiler_sdks_agent_mismatch(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "libraries"


@pytest.mark.parametrize("text", [
    "W agent.cpp:608] sysfs nodes path '/sys/class/kfd/kfd/topology/nodes' does not exist\n",   # the warning alone
    "Found 2 HSA agents\n",                                                                       # no rocprofiler count
    "rocprofv3: found 2 rocprofiler agents on this node\n",                                       # a count, no mismatch
])
def test_lines_that_are_not_the_fatal_check_are_not_read(text):
    assert ROW not in _ids(text)


_CPU_ONLY = ("==========\nHSA Agents\n==========\n*******\nAgent 1\n*******\n"
             "  Name:                    AMD Ryzen AI 9 HX 470 w/ Radeon 890M\n  Device Type:             CPU\n")
_GPU_GREP = ("  Name:                    gfx1150\n  Marketing Name:          AMD Radeon(TM) 890M Graphics\n"
             "      Name:                    amdgcn-amd-amdhsa--gfx1150\n")


def test_a_cut_cpu_only_agent_list_beside_rocminfos_gpu_agent_is_not_no_gpu(tmp_path):
    found = problems(doctor_files(tmp_path, {"rocminfo.txt": _CPU_ONLY, "grep.txt": _GPU_GREP}))
    assert ("known-failure", "runtime") not in found


def test_a_cpu_only_agent_list_alone_is_still_the_runtime_finding_no_gpu(tmp_path):
    found = problems(doctor_files(tmp_path, {"rocminfo.txt": _CPU_ONLY + "*** Done ***\n"}))
    assert ("known-failure", "runtime") in found
