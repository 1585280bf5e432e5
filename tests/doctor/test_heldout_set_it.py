"""Held-out set IT (tests/data/real/3490-3492, HELDOUT.md): small or research projects' trackers, 2025-2026, a user
on an AMD GPU pasting a Python traceback or log.  All three fixtures led at their labelled layer on the unchanged code,
two of them only through the catch-all.  Two rows now name those failures from the printing programs' sources:

* ``it_hsa_agent_unrecognized_gpu_id`` (runtime): ROCr's GpuAgent constructor throws
  HSA_STATUS_ERROR_INVALID_ISA with "Agent creation failed.\\nThe GPU node has an unrecognized id.\\n" when its ISA
  registry has no entry for the node's gfx target (ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/
  amd_gpu_agent.cpp), printed as 'Warning: %s' by amd_topology.cpp (rocminfo, clinfo and every HSA client show it);
* ``it_torch_runtimeerror_std_bad_alloc`` (framework): a C++ std::bad_alloc re-raised by a Python extension as
  RuntimeError, as PyTorch's bindings do for every std::exception (pytorch/pytorch torch/csrc/Exceptions.h)."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3490", "framework"), ("3491", "hip"), ("3492", "runtime")])
def test_the_set_it_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("3490", "it_torch_runtimeerror_std_bad_alloc", "framework"),
    ("3492", "it_hsa_agent_unrecognized_gpu_id", "runtime"),
])
def test_the_new_rows_name_the_set_fixtures(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("text", [
    # the fixture's lines (ultralytics/ultralytics#24137, 2026-09, Strix Halo test machine)
    "Warning: Agent creation failed.\nThe GPU node has an unrecognized id.\n",
    # rocminfo with an AOCC environment sourced (ROCm/ROCm#6233, 2026-05)
    "ROCk module version 6.16.13 is loaded\nWarning: Agent creation failed.\nThe GPU node has an unrecognized id.\n\n"
    "hsa api call failure at: /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles"
    "/src/rocm-systems/projects/rocminfo/rocminfo.cc:299\n",
    # clinfo from ROCm's OpenCL runtime on Arch (rocm-arch/rocm-arch#933, 2022-12)
    "[reapertwo@arch ~]$ /opt/rocm/opencl/bin/clinfo\nWarning: Agent creation failed.\n"
    "The GPU node has an unrecognized id.\n\nNumber of platforms:                             1\n",
])
def test_the_unrecognized_gpu_id_row_reads_rocr_s_warning(text):
    assert "it_hsa_agent_unrecognized_gpu_id" in ids(text)


@pytest.mark.parametrize("text", [
    "Warning: Agent creation failed.\nlibdrm query failed.\n",         # ROCr's other agent failure (libdrm)
    "Unrecognized IOLINK type.\n",                                     # ROCr topology, another message
    "HTTPException: Account 42 has an unrecognized id format\n",       # not ROCr
])
def test_other_agent_and_id_messages_are_not_the_unrecognized_gpu_id(text):
    assert "it_hsa_agent_unrecognized_gpu_id" not in ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's traceback tail (AMDResearch/intellikit#1, 2025-04)
    "    torch._C._cuda_init()\nRuntimeError: std::bad_alloc\n",
    # torch on the CPU after numpy in the same process (pytorch/pytorch#73356, 2022-02)
    'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\nRuntimeError: std::bad_alloc\n',
])
def test_the_bad_alloc_row_reads_the_runtimeerror(text):
    assert "it_torch_runtimeerror_std_bad_alloc" in ids(text)


@pytest.mark.parametrize("text", [
    "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n",  # C++ abort
    "torch.FatalError: std::bad_alloc\n",                                 # another exception type
    "RuntimeError: std::bad_alloc_wrapper is not defined\n",              # not the exception's what()
])
def test_other_bad_alloc_lines_are_not_the_runtimeerror_row(text):
    assert "it_torch_runtimeerror_std_bad_alloc" not in ids(text)
