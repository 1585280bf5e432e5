"""Held-out set CY (tests/data/real/1980-1984, HELDOUT.md): MI300A/MI325X and MI350X/MI355X -- new targets, firmware
and driver, amd-smi and partition modes (CPX/NPS).
The misses' causes, each from the program that prints the line: amd-smi's AMDSMI_STATUS_AMDGPU_RESTART_ERR (its own
driver-reload step after a partition change) sat at kernel, the layer of its words, while every other AMDSMI_STATUS row
sits at the SMI tools' layer (runtime); amdgpu's 'Fatal error during GPU init' led at kernel although the paste names
its firmware cause, the IP discovery table's bad signature/checksum (amdgpu_discovery.c, the firmware rows), on a
bare-metal GPU; and amd-smi's own argument parser's refusals (amdsmi_cli/amdsmi_cli_exceptions.py) were unknown.
Each is tested on the fixture, on other wordings of the same source and on near-misses that must not match."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

RESTART = "amdsmi_amdgpu_restart_failed"
CLI = "cy_amdsmi_cli_argument_refused"
FAILURES = Path(error_signatures.__file__).with_name("failures.toml")


@pytest.mark.parametrize("num,layer", [("1980", "runtime"), ("1981", "firmware"), ("1982", "runtime"),
                                       ("1983", "framework"), ("1984", None)])
def test_the_set_cy_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("1980", RESTART, "runtime"), ("1982", CLI, "runtime")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_every_amdsmi_status_row_sits_at_the_smi_layer():
    """amd-smi prints every AMDSMI_STATUS_* (the driver-reload one included): the rows share the SMI tools' layer."""
    rows = tomllib.loads(FAILURES.read_text(encoding="utf-8"))["failure"]
    status_rows = [r["id"] for r in rows if "AMDSMI_STATUS_" in r["pattern"]]
    assert RESTART in status_rows
    assert {r: error_signatures.failure_layer(r) for r in status_rows} == {r: "runtime" for r in status_rows}


# -- amd-smi's argument parser: every exception class of amdsmi_cli_exceptions.py that refuses an input -------------
@pytest.mark.parametrize("line", [
    "Parameter '--compute-partition cpx' is invalid. Run '--help' for more info. Error code: -2",  # the fixture
    "Parameter '--memory-partition nps4' is invalid. Run '--help' for more info. Error code: -2",
    "Command 'partitions' is invalid. Run '--help' for more info. Error code: -1",
    "Value 'abc' is not of valid type or format. Run '--help' for more info. Error code: -5",
    "Parameter '--power-cap' requires a value. Run '--help' for more info. Error code: -6",
    "Parameter '--memory-partition' is not supported on the system. Run '--help' for more info. Error code: -8",
    # the json and csv output forms of the same exceptions
    '{"error": "Parameter \'--compute-partition cpx\' is invalid. Run \'--help\' for more info.", "code": -2}',
    "Parameter '--gpu 9' is invalid. Run '--help' for more info.,-2",
])
def test_amdsmi_cli_refusals_are_named(line):
    assert CLI in _ids(line), line


@pytest.mark.parametrize("line", [
    "Parameter 'x' is invalid.",                                        # no amd-smi help pointer
    "error: argument --compute-partition: invalid choice: 'CPX'",       # argparse's own wording
    "GPU Device with GPU_INDEX '9' cannot be found on the system. Error code: -3",
    "AMDSMI has returned error '-1002' - 'Command not supported' Error code: -1002",
    "Run '--help' for more info.",
])
def test_amdsmi_cli_lookalikes_are_not_named(line):
    assert CLI not in _ids(line), line


# -- amdgpu's init failure with a firmware discovery-table cause ------------------------------------------------------
FATAL = "[    5.120000] amdgpu 0000:05:00.0: amdgpu: Fatal error during GPU init\n"


@pytest.mark.parametrize("cause", [
    "[    5.100000] amdgpu 0000:05:00.0: amdgpu: invalid ip discovery binary checksum\n",
    "[    5.100000] amdgpu 0000:05:00.0: amdgpu: get invalid ip discovery binary signature\n",
    "[    5.100000] amdgpu 0000:05:00.0: amdgpu: get invalid ip discovery binary signature from vram\n",
])
def test_init_failure_with_a_firmware_discovery_cause_sits_at_firmware(tmp_path, cause):
    found = problems(doctor_files(tmp_path, {"dmesg.txt": cause + FATAL}))
    assert ("amdgpu-init-failed", "firmware") in found, found
    assert found[0][1] == "firmware", found


def test_init_failure_without_a_discovery_cause_stays_at_kernel(tmp_path):
    text = ("[    5.100000] [drm:amdgpu_device_ip_init [amdgpu]] *ERROR* hw_init of IP block <gfx_v9_4_3> failed -110\n"
            + FATAL)
    found = problems(doctor_files(tmp_path, {"dmesg.txt": text}))
    assert ("amdgpu-init-failed", "kernel") in found, found


def test_init_failure_on_a_vf_is_not_moved_to_firmware(tmp_path):
    text = ("[    4.900000] amdgpu 0000:00:05.0: amdgpu: VF0 entered full access mode\n"
            "[    5.100000] amdgpu 0000:00:05.0: amdgpu: get invalid ip discovery binary signature\n" + FATAL)
    found = problems(doctor_files(tmp_path, {"dmesg.txt": text}))
    assert ("amdgpu-init-failed", "firmware") not in found, found
    assert ("amdgpu-init-failed", "kernel") in found and found[0][0] == "ip-discovery-on-vf", found
