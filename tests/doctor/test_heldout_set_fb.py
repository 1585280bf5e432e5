"""Held-out set FB (tests/data/real/2608-2613, HELDOUT.md): a theme-neutral sample of ROCm's main tracker before 2023
(RadeonOpenCompute/ROCm, indexed as ROCm/legacy-rocm-build, issues numbered below 1900).  All six led at their layer on
the unchanged code.  Three rows name lines the catch-all only read as unrecognised: amdkfd's 'DQM create queue type %d
failed. ret %d' (torvalds/linux drivers/gpu/drm/amd/amdkfd/kfd_process_queue_manager.c, pqm_create_queue), ROCm clinfo's
'ERROR: clGetDeviceIDs(-1)' (ROCm/ROCm-OpenCL-Runtime tools/clinfo/clinfo.cpp: "ERROR: " << err.what() << "(" <<
err.err() << ")") and an uncaught cl::Error's 'what():  clGetPlatformIDs' (KhronosGroup/OpenCL-CLHPP cl2.hpp's
errHandler names the call)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

DQM = "fb_kfd_dqm_create_queue_failed"
NO_DEVICE = "fb_opencl_no_device"
NO_PLATFORM = "fb_opencl_uncaught_get_platform_ids"


@pytest.mark.parametrize("num,layer", [("2608", "runtime"), ("2609", "runtime"), ("2610", "kernel"),
                                       ("2611", "firmware"), ("2612", "kernel"), ("2613", "packaging")])
def test_the_set_fb_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("2610", DQM, "kernel"), ("2608", NO_DEVICE, "runtime")])
def test_the_rows_name_the_fixtures_lines_at_the_labelled_layer(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_uncaught_platform_row_names_2612s_clinfo_at_runtime():
    text = (next(_fixture("2612").glob("clinfo.txt"))).read_text(encoding="utf-8")
    assert NO_PLATFORM in _ids(text)
    assert error_signatures.failure_layer(NO_PLATFORM) == "runtime"


@pytest.mark.parametrize("line", [
    # the fixture's line (RadeonOpenCompute/ROCm#1624, Hawaii under kernel 5.13)
    "[109138.492687] amdgpu: Pasid 0x8069 DQM create queue type 0 failed. ret -1",
    # the hardware scheduler's preemption timing out (ollama/ollama#738)
    "[81773.995558] amdgpu: Pasid 0x8011 DQM create queue type 0 failed. ret -62",
    # MES not answering on an RX 7900 XTX (RadeonOpenCompute/ROCm#2820)
    "[284169.428845] amdgpu: Pasid 0x800d DQM create queue type 0 failed. ret -110",
    # the source's wording since the pasid-to-pid change (kfd_process_queue_manager.c, pr_err/pr_warn)
    "amdgpu: process pid 14368 DQM create queue type 2 failed. ret -12",
])
def test_the_dqm_row_reads_amdkfds_wordings(line):
    assert DQM in _ids(line)
    assert error_signatures.failure_layer(DQM) == "kernel"


@pytest.mark.parametrize("text", [
    # the fixture's clinfo (RadeonOpenCompute/ROCm#1064, ROCm 3.1)
    "  Platform Name:                                 AMD Accelerated Parallel Processing\nERROR: clGetDeviceIDs(-1)\n",
    # rocminfo working, clinfo not (RadeonOpenCompute/ROCm#1063; #1040 is the same line)
    "/opt/rocm/opencl/bin/x86_64/clinfo \nNumber of platforms:                             1\nERROR: clGetDeviceIDs(-1)\n",
])
def test_the_no_device_row_reads_clinfos_line(text):
    assert NO_DEVICE in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's (RadeonOpenCompute/ROCm#519, ROCm 1.8)
    "terminate called after throwing an instance of 'cl::Error'\n  what():  clGetPlatformIDs\nAborted (core dumped)\n",
    # RadeonOpenCompute/ROCm#415 (fixture 444)
    "root@z820:/opt/rocm/opencl/bin/x86_64# ./clinfo\nterminate called after throwing an instance of 'cl::Error'\n"
    "  what():  clGetPlatformIDs\nAborted\n",
])
def test_the_uncaught_platform_row_reads_the_what_line(text):
    assert NO_PLATFORM in _ids(text)


@pytest.mark.parametrize("line,row", [
    # the queue-limit line before it is another row's (k12_kfd_queue_limit)
    ("[109138.492681] amdgpu: Can't create new usermode queue because -1 queues were already created", DQM),
    # prose quoting the message without its pasid and ret (RadeonOpenCompute/ROCm#506's title)
    ('The dmesg Trigger "DQM create queue failed" on rocm-smi by ROCm 1.8.192', DQM),
    # no platform at all is the catalogue's opencl_no_platform, not a missing device
    ("ERROR: clGetPlatformIDs(-1001)", NO_DEVICE),
    # another call's exception, not the platform query
    ("terminate called after throwing an instance of 'cl::Error'\n  what():  clBuildProgram\n", NO_PLATFORM),
])
def test_lines_that_are_not_the_rows_do_not_match(line, row):
    assert row not in _ids(line)
