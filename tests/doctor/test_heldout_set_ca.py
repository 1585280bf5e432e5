"""Held-out set CA (tests/data/real/1680-1684, HELDOUT.md): hardware faults on AMD GPUs that users first blame on the
software.  The lines read from the kernel sources that print them, with every variant: the AMD MCE decoder's severity
line (drivers/edac/mce_amd.c decode_error_status) and its detail lines, the x86/amd reset-reason line on the boot after
a reset (arch/x86/kernel/cpu/amd.c print_s5_reset_status_mmio, s5_reset_reason_txt), and the SMU's thermal-throttling
event (swsmu *_log_thermal_throttling_event, both wordings).  All are platform or board faults below the kernel:
firmware, as k12_gpu_sw_ctf."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, doctor_files, ids as _ids, problems

MCE = "ca_mce_amd_uncorrected_error"
MCE_DETAIL = "ca_mce_amd_decoder_detail"
RESET = "ca_x86_amd_reset_reason_hardware_fault"
THROTTLE = "ca_smu_thermal_throttling_event"


@pytest.mark.parametrize("num,row,layer", [
    ("1681", MCE, "firmware"),
    ("1682", RESET, "firmware"),
    ("1683", THROTTLE, "firmware"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("row", [MCE, MCE_DETAIL, RESET, THROTTLE])
def test_the_rows_are_at_firmware(row):
    assert error_signatures.failure_layer(row) == "firmware"


# ---- the AMD MCE decoder

@pytest.mark.parametrize("line", [
    "[Hardware Error]: System Fatal error.",
    # with the journal's prefix and a timestamp (the Arch wiki's example of errata 1109)
    "Oct 31 11:46:23 fire kernel: [    0.677235] [Hardware Error]: System Fatal error.",
    # the decoder's other uncorrected severities
    "[  12.345678] [Hardware Error]: Uncorrected, software restartable error.",
    "[Hardware Error]: Uncorrected, software containable error.",
])
def test_uncorrected_mce_severities_are_named(line):
    assert MCE in _ids(line), line


@pytest.mark.parametrize("line", [
    # corrected and deferred errors need no action (the decoder says so)
    "[  333.239325] [Hardware Error]: Corrected error, no action required.",
    "[10163.739265] [   T9326] [Hardware Error]: Deferred error, no action required.",
    # an application's own words
    "System Fatal Error. Expecting Immediate Restart.",
    "LOG.error(\"Memory could not be allocated. System fatal error.\")",
])
def test_near_misses_are_not_the_uncorrected_mce_row(line):
    assert MCE not in _ids(line), line


def test_a_corrected_mce_report_is_no_problem(tmp_path):
    diag = doctor_files(tmp_path, {"dmesg.txt":
        "[  333.236610] mce: [Hardware Error]: Machine check events logged\n"
        "[  333.239325] [Hardware Error]: Corrected error, no action required.\n"
        "[  333.241526] [Hardware Error]: CPU:0 (17:1:1) MC15_STATUS[Over|CE|MiscV|AddrV|-|-|SyndV|CECC|-|-|-]: "
        "0xdc2040000000011b\n"
        "[  333.243792] [Hardware Error]: Error Addr: 0x0000000065aa27c0\n"})
    assert not [p for p in problems(diag) if p[1] == "firmware"], problems(diag)


@pytest.mark.parametrize("line", [
    "[Hardware Error]: CPU:21 (19:21:0) MC5_STATUS[-|UE|MiscV|AddrV|PCC|TCC|SyndV|-|-|-]: 0xbea0000000000108",
    "[Hardware Error]: Error Addr: 0x01ffffffc080cb3a",
    "[Hardware Error]: IPID: 0x000500b000000000, Syndrome: 0x000000004d000000",
    "[Hardware Error]: Execution Unit Ext. Error Code: 0",
    "Oct 31 11:46:23 fire kernel: [    0.678356] [Hardware Error]: Execution Unit Extended Error Code: 0",
    "[Hardware Error]: cache level: RESV, tx: GEN, mem-tx: GEN",
])
def test_the_decoder_detail_lines_are_information(line):
    assert MCE_DETAIL in _ids(line), line
    assert MCE not in _ids(line), line


def test_the_fatal_report_is_one_problem_at_firmware(tmp_path):
    # 1681's four lines: the severity line is the problem, the detail lines add no catch-all finding
    diag = doctor_files(tmp_path, {"tty.txt":
        "[Hardware Error]: System Fatal error.\n"
        "[Hardware Error]: CPU:4 (19:21:2) MC5_STATUS[-IUE|MiscV|AddrV|PCC|TCC|SyndV]\n"
        "[Hardware Error]: Error Addr: 0x01ffffffc0801e2c\n"
        "[Hardware Error]: cache level: RESV, tx: GEN, mem-tx: GEN\n"})
    assert problems(diag)[0][1] == "firmware", problems(diag)
    assert "unrecognised-failure" not in [p[0] for p in problems(diag)], problems(diag)


# ---- x86/amd's reset reason

@pytest.mark.parametrize("line", [
    "x86/amd: Previous system reset reason [0x08000800]: an uncorrected error caused a data fabric sync flood event",
    "Mar 20 11:33:36 fedora kernel: x86/amd: Previous system reset reason [0x08000800]: an uncorrected error caused "
    "a data fabric sync flood event",
    # 1682's first occurrence, wrapped in backticks as posted
    "`Jul 16 04:38:47.925709: x86/amd: Previous system reset reason [0x08000800]: an uncorrected error caused a data "
    "fabric sync flood event`",
    # the other hardware-fault reasons of s5_reset_reason_txt
    "x86/amd: Previous system reset reason [0x40000000]: a parity error occurred",
    "x86/amd: Previous system reset reason [0x00800800]: internal CPU shutdown event occurred",
    "x86/amd: Previous system reset reason [0x20000000]: FCH and MP1 failed warm reset handshake",
    "x86/amd: Previous system reset reason [0x00000001]: thermal pin BP_THERMTRIP_L was tripped",
    "x86/amd: Previous system reset reason [0x08000a00]: internal CPU thermal limit was tripped",
])
def test_hardware_fault_reset_reasons_are_named(line):
    assert RESET in _ids(line), line


@pytest.mark.parametrize("line", [
    # ordinary reboots and power-offs
    "x86/amd: Previous system reset reason [0x00080800]: software wrote 0x6 to reset control register 0xCF9",
    "Kernel: `Previous system reset reason [0x00200800]: ACPI power state transition occurred`",
    "x86/amd: Previous system reset reason [0x00000002]: power button was pressed for 4 seconds",
    "x86/amd: Previous system reset reason [0x02000800]: hardware watchdog timer expired",
    # prose about it
    "check the previous system reset reason in the kernel log",
])
def test_near_misses_are_not_the_reset_reason_row(line):
    assert RESET not in _ids(line), line


def test_an_ordinary_reboot_reason_is_no_problem(tmp_path):
    diag = doctor_files(tmp_path, {"dmesg.txt":
        "[    0.550695] x86/amd: Previous system reset reason [0x00080800]: software wrote 0x6 to reset control "
        "register 0xCF9\n"})
    assert problems(diag) == [], problems(diag)


# ---- the SMU's thermal-throttling event

@pytest.mark.parametrize("line", [
    "amdgpu 0000:29:00.0: WARN: GPU thermal throttling temperature reached, expect performance decrease. HBM.",
    "[ 1234.5] amdgpu 0000:c1:00.0: amdgpu: WARN: GPU thermal throttling temperature reached, expect performance "
    "decrease. VR of GFX rail and HBM.",
    # smu_v13_0_6's newer wording (MI300)
    "amdgpu 0000:05:00.0: amdgpu: WARN: GPU is throttled, expect performance decrease. PPT.",
])
def test_thermal_throttling_events_are_named(line):
    assert THROTTLE in _ids(line), line


@pytest.mark.parametrize("line", [
    "CPU0: Core temperature above threshold, cpu clock throttled (total events = 1420)",
    "expect performance decrease when the cache is cold",
    "edge:         +53.0°C  (crit = +100.0°C, hyst = -273.1°C)",
])
def test_near_misses_are_not_the_throttling_row(line):
    assert THROTTLE not in _ids(line), line
