"""Held-out set HJ (tests/data/real/3170-3174, HELDOUT.md): the SMI tools and GPUs in VMs and containers (GIM's SR-IOV
enable failure in Proxmox, rocminfo's 4104 in a container, rocm-smi missing from an image, rocm-smi's rsmi_init status in
an LXC container, a HIP module load on an MI300X VF).  All five fixtures led at their labelled layer on the unchanged
code; 3173 only through the catch-all, so one row names rocm_smi.py's start-up check (ROCm/rocm_smi_lib
python_smi_tools/rocm_smi.py initializeRsmi: logging.error('ROCm SMI returned %s (the expected value is 0)', ret_init)
after rsmi_init(0)), which tools that copied the check raise with the format unexpanded."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "hj_rocm_smi_py_rsmi_init_returned"


@pytest.mark.parametrize("num,layer", [("3170", "kernel"), ("3171", "runtime"), ("3172", "packaging"),
                                       ("3174", "hip")])
def test_the_set_hj_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_3173_is_named_by_the_rsmi_init_row_and_leads_at_runtime():
    assert_named_and_leads("3173", ROW, "runtime")


@pytest.mark.parametrize("text", [
    # the fixture's line (ROCm/legacy-rocm-build#1274, ROCm 3.9 in an Ubuntu container on Proxmox)
    "ERROR:root:ROCm SMI returned 8 (the expected value is 0)\n",
    # numba/llvmlite#717 (2021, ROCm 4.1): after the library's own 'rsmi_init() failed' lines
    "Failed to get \"domain\" properity from properties files for kfd node 1.\nrsmi_init() failed\n"
    "Exception caught: rsmi_init.\nERROR:root:ROCm SMI returned 8 (the expected value is 0)\n",
    # the traceback's last line as Python prints ROCm/rocprofiler-compute's prof_utils check (ValueError(format, status))
    "ValueError: ('ROCm SMI returned %s (the expected value is 0)', 8)\n",
    # the same for mila-iqia/milabench's ROCm probe (NotAvailable(format, status))
    "NotAvailable: ('ROCm SMI returned %s (the expected value is 0)', 8)\n",
])
def test_the_rsmi_init_row_reads_the_check_s_wordings(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    "ERROR:root:Driver not initialized (amdgpu not found in modules)\n",   # the check's other branch, its own row
    "rocm-smi returned 2 instead of 0 on some nodes\n",                    # a script's note on the exit status
    "ROCm SMI returned 8\n",                                               # no expected-value clause
    "ROCm SMI returned 0 (the expected value is 2)\n",                     # not the check's text
])
def test_lines_that_are_not_the_check_do_not_match(text):
    assert ROW not in _ids(text)


def test_the_row_sits_at_runtime():
    assert error_signatures.failure_layer(ROW) == "runtime"
