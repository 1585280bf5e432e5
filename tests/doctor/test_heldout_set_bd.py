"""Held-out set BD (tests/data/real/1400-1407, HELDOUT.md): power management and the desktop GPU that drives the display
while it computes, in 2026 (suspend/resume, a compositor's ring hang, power caps and clock tables the driver refuses).
The misses' causes, each from the program that prints the line: amd-smi's power-cap report (ROCm/amdsmi
amdsmi_cli/amdsmi_commands.py and its 2026 form), a write to amdgpu's power-management sysfs files refused as tee or the
shell report it (amdgpu_pm.c's store functions; coreutils tee, bash), the driver's power-cap range of zero width (the
swSMU *_get_power_limit functions: no overdrive percentages without the powerplay table's power-limit OD feature),
LACT/amdgpu-sysfs' table commit, powerplay's 'fw load failed' (amd_powerplay.c pp_dpm_load_fw), the xHCI driver's resume
line (drivers/usb/host/xhci.c) and amdgpu_job.c's 'Ring %s reset failed' as kernels of 2026 print it (no 'amdgpu: ').
Each is tested on the fixture, on other wordings of the same source and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest import realrun
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

AMDSMI_CAP = "s13bd_amdsmi_power_cap_set_failed"
SYSFS_WRITE = "s13bd_amdgpu_pm_sysfs_write_rejected"
ZERO_RANGE = "s13bd_power_cap_range_zero_width"
LACT = "s13bd_lact_od_table_write_failed"
FW_LOAD = "s13bd_powerplay_fw_load_failed"
XHCI = "s13bd_xhci_resume_reinit"
RING_RESET = "kernel_ring_reset_failed"


# -- the fixtures: every one leads at its labelled layer ---------------------------------------------
@pytest.mark.parametrize("num,layer", [("1400", "kernel"), ("1401", "kernel"), ("1402", "kernel"), ("1403", "kernel"),
                                       ("1404", "kernel"), ("1405", "firmware"), ("1406", "kernel"),
                                       ("1407", "kernel")])
def test_the_set_bd_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("1403", RING_RESET, "kernel"),
    ("1404", AMDSMI_CAP, "kernel"),
    ("1405", ZERO_RANGE, "firmware"),
    ("1406", LACT, "kernel"),
    ("1407", FW_LOAD, "kernel"),
])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_refused_write_of_1405_is_named_at_the_kernel_beside_the_firmwares_range():
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture("1405").glob("*.txt")))
    assert SYSFS_WRITE in _ids(text)
    assert error_signatures.failure_layer(SYSFS_WRITE) == "kernel"


@pytest.mark.parametrize("num", ["1401", "1403", "1405"])
def test_no_line_of_the_fixture_is_left_unnamed(num):
    assert not [p for p in problems(realrun.diagnosis(_fixture(num))) if p[0] == "unrecognised-failure"]


# -- amd-smi's power-cap report (1404) ---------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "-  POWERCAP: Unable to set power cap to 389W, current value is 0W",   # the fixture's line (2026 CLI)
    "    POWERCAP: Unable to set power cap to 500W, current value is 750W",
    "ValueError: Unable to set power cap to 200 on GPU 0",                 # amdsmi_commands.py set (older CLI)
    "Unable to reset power cap to 300 on GPU 1",                           # amdsmi_commands.py reset
    "Unable to set power cap to 500000000 on 0000:c1:00.0",
])
def test_amd_smis_power_cap_failures_are_named_at_the_kernel(line):
    assert AMDSMI_CAP in _ids(line), line
    assert error_signatures.failure_layer(AMDSMI_CAP) == "kernel"


@pytest.mark.parametrize("line", [
    "    POWERCAP: Successfully set PPT0 power cap to 211W",               # ROCm/amdsmi#195: success
    "amdsmi_cli_exceptions.AmdSmiInvalidParameterValueException: Value '210W' is not of valid type or format. "
    "Power cap must be between 210W and 300W Error code: -5",            # the user's value out of range
    "Power cap is already set to 300",
    "Unable to get power cap info from GPU 0",
])
def test_other_amd_smi_power_cap_lines_are_not_a_refused_cap(line):
    assert AMDSMI_CAP not in _ids(line), line


# -- a write to amdgpu's power-management files refused (1405) --------------------------------------
@pytest.mark.parametrize("text", [
    "$ echo 120000000 | sudo tee /sys/class/hwmon/hwmon9/power1_cap\nsh: echo: write error: Invalid argument",  # fixture
    "tee: /sys/class/drm/card1/device/pp_od_clk_voltage: Invalid argument",
    "tee: '/sys/class/drm/card0/device/power_dpm_force_performance_level': Operation not permitted",
    "bash: /sys/class/drm/card0/device/hwmon/hwmon3/power1_cap: Permission denied",
    "bash: line 1: /sys/class/drm/card1/device/gpu_od/fan_ctrl/fan_curve: Invalid argument",
    "# echo 'c' > /sys/class/drm/card1/device/pp_od_clk_voltage\nbash: echo: write error: Invalid argument",
    "echo 1 > /sys/class/drm/card0/device/hwmon/hwmon2/pwm1_enable\n-bash: echo: write error: Invalid argument",
])
def test_refused_writes_to_amdgpus_pm_files_are_named_at_the_kernel(text):
    assert SYSFS_WRITE in _ids(text), text
    assert error_signatures.failure_layer(SYSFS_WRITE) == "kernel"


@pytest.mark.parametrize("text", [
    "tee: /sys/class/backlight/amdgpu_bl1/brightness: Invalid argument",          # not a PM file of the GPU
    "bash: /sys/power/state: Device or resource busy",
    "echo 120000000 | sudo tee /sys/class/hwmon/hwmon9/power1_cap\n120000000",   # the write went through
    "cat /sys/class/drm/card0/device/pp_od_clk_voltage\nOD_SCLK:\n0: 500Mhz",
    "echo deep > /sys/power/mem_sleep\nbash: echo: write error: Invalid argument",
])
def test_other_sysfs_writes_are_not_a_refused_pm_setting(text):
    assert SYSFS_WRITE not in _ids(text), text


# -- the power-cap range of zero width (1405) -------------------------------------------------------
@pytest.mark.parametrize("text", [
    "power1_cap:         100000000\npower1_cap_max:     100000000\npower1_cap_min:     100000000",  # the fixture
    "power1_cap_min: 100000000\npower1_cap_max: 100000000",
    "/sys/class/hwmon/hwmon4/power1_cap_max:80000000\n/sys/class/hwmon/hwmon4/power1_cap_min:80000000",  # grep . form
])
def test_a_zero_width_power_cap_range_is_named_at_the_firmware(text):
    assert ZERO_RANGE in _ids(text), text
    assert error_signatures.failure_layer(ZERO_RANGE) == "firmware"


@pytest.mark.parametrize("text", [
    "power1_cap_max:     120000000\npower1_cap_min:     100000000",
    "power1_cap_max: 389000000\npower1_cap_min: 0",
    "power1_cap_max:     100000000\npower1_cap_min:     1000000000",                # a prefix is not the same value
    "power1_cap:         100000000\npower1_cap_default: 100000000",                 # the cap at its default
])
def test_a_real_power_cap_range_is_not_zero_width(text):
    assert ZERO_RANGE not in _ids(text), text


# -- LACT / amdgpu-sysfs' overdrive table (1406) ----------------------------------------------------
@pytest.mark.parametrize("line", [
    'Could not commit values to "pp_od_clk_voltage"',                      # the fixture (amdgpu-sysfs CommitHandle)
    'Could not commit values to "fan_curve"',                              # RDNA3 gpu_od fan file
    "    0: Could not write clocks table",                                 # LACT daemon
    "ERROR lact_daemon::server::handler: could not reset the clocks table: io error: Invalid argument (os error 22)",
    "1: Error when writing clockspeed line `s 0 586`",                     # amdgpu-sysfs table writer
])
def test_lacts_table_writes_are_named_at_the_kernel(line):
    assert LACT in _ids(line), line
    assert error_signatures.failure_layer(LACT) == "kernel"


@pytest.mark.parametrize("line", [
    "Could not commit values to registry`r`nCredential not saved",       # a PowerShell script's message
    "Clocks table commands: Ok([\"s 0 586\"])",
    "writing clocks commands: [\"s 1 2400\"]",
])
def test_other_commit_and_clock_lines_are_not_lacts(line):
    assert LACT not in _ids(line), line


# -- powerplay's SMU start on resume (1407) ---------------------------------------------------------
@pytest.mark.parametrize("line", [
    "kernel: amdgpu 0000:01:00.0: amdgpu: fw load failed",                 # the fixture (dev_err form)
    "[  61.2] amdgpu: fw load failed",                                     # pr_err with amdgpu's pr_fmt
    "Apr 06 10:00:00 host kernel: amdgpu 0000:03:00.0: fw load failed",
])
def test_powerplays_fw_load_failure_is_named_at_the_kernel(line):
    assert FW_LOAD in _ids(line), line
    assert error_signatures.failure_layer(FW_LOAD) == "kernel"


@pytest.mark.parametrize("line", [
    "zl3073x 0000:01:00.0: FW load failed: bad header",
    "iacore: FW load failed. needs power cycle -5",
    "amdgpu 0000:03:00.0: amdgpu: PSP load tmr failed!",
])
def test_other_firmware_load_lines_are_not_powerplays(line):
    assert FW_LOAD not in _ids(line), line


# -- the xHCI resume line is the USB controller's, not the GPU's (1401) -----------------------------
@pytest.mark.parametrize("line", [
    "xhci_hcd 0000:02:00.0: xHC error in resume, USBSTS 0x411, Reinit",   # the fixture
    "[   65.352605] xhci-hcd xhci-hcd.13.auto: xHC error in resume, USBSTS 0x401, Reinit",
])
def test_the_xhci_resume_line_is_known_and_only_information(line):
    assert XHCI in _ids(line), line
    assert error_signatures.failure(XHCI).severity == "info"


def test_another_xhci_failure_is_not_the_resume_line():
    assert XHCI not in _ids("xhci_hcd 0000:02:00.0: xHC died; cleaning up")


# -- amdgpu's per-ring reset failing, with or without the 'amdgpu: ' prefix (1403) -------------------
@pytest.mark.parametrize("line", [
    "amdgpu 0000:03:00.0: Ring gfx_0.0.0 reset failed",                   # the fixture (kernel 7.0)
    "[127035.492298] amdgpu 0000:c5:00.0: amdgpu: Ring gfx_0.0.0 reset failed",
    "amdgpu 0000:0c:00.0: amdgpu: Ring comp_1.2.1 reset failure",          # the wording before 2025
    "[  312.774528] amdgpu 0000:28:00.0: Ring sdma0 reset failed",
])
def test_a_failed_ring_reset_is_named(line):
    assert RING_RESET in _ids(line), line


@pytest.mark.parametrize("line", [
    "amdgpu 0000:03:00.0: Ring gfx_0.0.0 reset succeeded",
    "amdgpu 0000:03:00.0: Starting gfx_0.0.0 ring reset",
])
def test_a_ring_reset_that_worked_is_not_a_failed_one(line):
    assert RING_RESET not in _ids(line), line


# -- a known text that spans lines knows each of them -----------------------------------------------
def test_a_known_text_spanning_lines_leaves_none_of_its_lines_unrecognised():
    text = "$ echo 120000000 | sudo tee /sys/class/hwmon/hwmon9/power1_cap\nsh: echo: write error: Invalid argument\n"
    known = [m for _s, m in error_signatures.scan(text)]
    assert any(" / " in k for k in known)  # a whole-text row: its lines joined
    shown = failure_lines.scan([(text, None, "paste:x.txt")], known)
    assert not [line for line, _layer, _label in shown if "write error" in line]
