"""Held-out set AC (tests/data/real/910-919, HELDOUT.md): Instinct datacenter nodes in 2026.
Each miss's cause fixed from the program that prints its line: RDC's metric fetcher (ROCm/rocm-systems
projects/rdc/rdc_libs/rdc/src/RdcMetricFetcherImpl.cc, 'Fail to fetch <gpu>:<FIELD> with rsmi error code <n>'),
rocm-smi's ID view of a partitioned MI300 (N/A identity for every partition after the first) and amd-smi's
partition table with the accelerator partition unread; tested on the fixtures, on other wordings of the same
sources and on near-misses that must stay unmatched."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

PROBLEM = ("warning", "error", "critical")


@pytest.mark.parametrize("num", ["910", "911", "917", "919"])
def test_the_fixture_leads_at_runtime_with_a_known_failure(num):
    diag = diagnose(detect_snapshot(str(_fixture(num))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert found and found[0] == ("known-failure", "runtime"), found
    assert not any(i == "unrecognised-failure" for i, _ in found), found


def test_918_the_healthy_hops_table_stays_quiet():
    diag = diagnose(detect_snapshot(str(_fixture("918"))))
    assert not [f for f in diag.findings if f.severity in PROBLEM]


# -- RDC: a field AMD SMI cannot serve (910, 911) ---------------------------------------------------
@pytest.mark.parametrize("line", [
    # 911: librdc embedded in LDMS's ldmsd, under journald
    "Mar 10 16:47:00 hetchy1018 ldmsd[203712]: 1773186420.310 ERROR RdcMetricFetcherImpl.cc(1406): "
    "Fail to fetch 2:MEM_CLOCK with rsmi error code 43, latency 0",
    # 910: rdcd's own stdout
    "ERROR RdcMetricFetcherImpl.cc(1817): Fail to fetch 0:EEPROM_CONFIG_VALID with rsmi error code 1",
    # the other health fields the RDC fix (rocm-systems PR #11415) lists, as rdcd prints them
    "Fail to fetch 7:XGMI_ERROR with rsmi error code 5, latency 1",
    "Fail to fetch 3:PENDING_PAGE_NUM with rsmi error code 2",
    "Fail to fetch 0:RETIRED_PAGE_LIMIT with rsmi error code 4294967295, latency 12",
])
def test_rdcs_failed_field_read_is_named(line):
    assert "s10ac_rdc_fetch_field_failed" in _ids(line), line


@pytest.mark.parametrize("line", [
    # apt's download failure is another program's 'failed to fetch'
    "W: Failed to fetch http://repo.radeon.com/rocm/apt/6.4.1/dists/noble/InRelease  404  Not Found [IP: 1.2.3.4 80]",
    "E: Failed to fetch https://repo.radeon.com/amdgpu/6.4.1/ubuntu/pool/main/a/amdgpu-dkms/x.deb  404  Not Found",
    # RDC's successful read (debug level) names the field and its value, not a status
    "DEBUG RdcMetricFetcherImpl.cc(1823): Fetch 0:GPU_CLOCK:2100000000, latency 0",
])
def test_other_fetch_lines_are_not_rdcs_failure(line):
    assert "s10ac_rdc_fetch_field_failed" not in _ids(line), line


def test_rdcs_generic_status_line_is_information_at_runtime():
    line = "ERROR RdcMetricFetcherImpl.cc(1398): Fetch status is not ok error: 4294967295"
    assert "s10ac_rdc_fetch_status_not_ok" in _ids(line)
    assert "s10ac_rdc_fetch_field_failed" not in _ids(line)
    assert error_signatures.failure_layer("s10ac_rdc_fetch_status_not_ok") == "runtime"
    assert error_signatures.failure_layer("s10ac_rdc_fetch_field_failed") == "runtime"


# -- rocm-smi: a partition whose identity the ROCm SMI library cannot read (917) ---------------------
@pytest.mark.parametrize("line", [
    "GPU[1]\t\t: Device ID: \t\tN/A",                 # 917, tab-separated as rocm_smi.py prints it
    "GPU[13]          : Device ID:         N/A",        # the same view with spaces (a copy from a terminal)
])
def test_rocm_smis_unreadable_partition_id_is_named(line):
    assert "s10ac_rocm_smi_partition_id_unreadable" in _ids(line), line


@pytest.mark.parametrize("line", [
    "GPU[0]\t\t: Device ID: \t\t0x74a0",              # the first partition, read fine
    "GPU[1]\t\t: Subsystem ID: \tN/A",                # not the device ID line
    "        DEVICE_ID: 0x74a1",                        # amd-smi static's field
])
def test_a_readable_device_id_is_not_it(line):
    assert "s10ac_rocm_smi_partition_id_unreadable" not in _ids(line), line


# -- amd-smi partition: the accelerator partition unread (919) --------------------------------------
_HEAD = "GPU_ID       MEMORY  ACCELERATOR_TYPE  ACCELERATOR_PROFILE_INDEX  PARTITION_ID  \n"


@pytest.mark.parametrize("table", [
    _HEAD + "0            NPS1    N/A               N/A                        N/A\n",   # 919
    _HEAD + "3            NPS4    N/A               N/A                        N/A\n",   # an NPS4 node
])
def test_amd_smis_unread_accelerator_partition_is_named(table):
    assert "s10ac_amd_smi_partition_accelerator_unknown" in _ids(table)


def test_a_read_accelerator_partition_is_not_it():
    # the same table once amd-smi and the driver agree (AMD's answer in legacy-rocm-build#4477)
    table = ("GPU_ID  MEMORY  ACCELERATOR_TYPE  ACCELERATOR_PROFILE_INDEX  PARTITION_ID\n"
             "0       NPS1    SPX               0                          0\n")
    assert "s10ac_amd_smi_partition_accelerator_unknown" not in _ids(table)
