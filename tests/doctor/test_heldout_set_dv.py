"""Held-out set DV (tests/data/real/2360-2364, HELDOUT.md): the firmware files amdgpu loads (missing blobs, an
initramfs without them, a firmware package that no longer provides them, the SMU interface notice).  Two fixtures
missed their layer on the unchanged code, both led by amdgpu-init-failed at the kernel layer:

* 2362: the kernel's firmware loader named the missing files ('Direct firmware load for amdgpu/<file> failed with error
  -2', torvalds/linux drivers/base/firmware_loader/main.c) and the failing blocks printed amdgpu's 'early_init of IP
  block <%s> failed %d' (drivers/gpu/drm/amd/amdgpu/amdgpu_device.c, amdgpu_device_ip_early_init: printed for any error
  but -ENOENT, and fatal), which neither the init-failure signature nor the row kernel_ip_block_init_failed knew.
* 2360: the loader's line and the block's '*ERROR* Failed to load gfx firmware!' are wrapped in the paste; only gfx8's
  own 'gfx8: Failed to load firmware' (gfx_v8_0.c gfx_v8_0_init_microcode) stays whole.

The loader's line and the old blocks' '<block>: Failed to load firmware' now have rows at firmware
(dv_amdgpu_firmware_file_missing, dv_amdgpu_ip_block_firmware_load_failed); they are amdgpu-init-failed's signature
lines, so known-failure reports them as the cause beside that rule's kernel finding when an init failure is in the
paste (alone, the rule's own firmware warning reports them).  2364 (an R9700's fan failure told in prose beside the SMU
interface notice) stays a miss (MISSES)."""
from __future__ import annotations

import pytest

from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

ROW = "kernel_ip_block_init_failed"


@pytest.mark.parametrize("num", ["2360", "2361", "2362", "2363"])
def test_the_set_dv_fixtures_lead_at_firmware(num):
    assert _lead_layer(_fixture(num)) == "firmware"


def test_the_smu_notice_alone_stays_without_a_problem_finding():
    # 2364's lines are smu_v14_0_check_fw_version's dev_info (the mismatch 'is not critical'); 508 is labelled none
    assert _lead_layer(_fixture("2364")) is None


@pytest.mark.parametrize("line", [
    # the fixture's journal line (2362, NixOS/nixpkgs#284403, 2024-01)
    "янв 28 04:01:12 localhost kernel: [drm:amdgpu_device_init [amdgpu]] *ERROR* early_init of IP block <psp> "
    "failed -19",
    # an amd-gfx patch by Mario Limonciello quoting a Renoir boot without green_sardine_sdma.bin (lists.freedesktop.org)
    "[drm:amdgpu_device_init [amdgpu]] *ERROR* early_init of IP block <sdma_v4_0> failed -19",
    # an OpenShift node's dmesg with MI300X SR-IOV VFs and no psp_13_0_6 blobs (AMD GPU operator notes, 2025)
    "[  119.553349] [drm:amdgpu_device_ip_early_init [amdgpu]] *ERROR* early_init of IP block <psp> failed -19",
    # a Chinese write-up of a Kaveri APU whose initramfs lacked kaveri_sdma.bin
    "[drm:amdgpu_device_init.cold] *ERROR* early_init of IP block <cik_sdma> failed -19",
])
def test_early_init_failures_are_the_init_row_and_signature(line):
    found = _ids(line)
    assert ROW in found and "amdgpu_init_failed" in found


@pytest.mark.parametrize("line", [
    # the same sequence's healthy and informational lines
    "[    4.1] amdgpu 0000:03:00.0: amdgpu: detected ip block number 3 <psp>",
    "[    4.2] [drm] disabled ip block: 7 <vcn_v4_0>",
    "[    4.3] amdgpu 0000:03:00.0: [drm:jpeg_v4_0_early_init [amdgpu]] JPEG decode is enabled in VM mode",
])
def test_lines_that_are_not_an_init_failure_are_not_read(line):
    found = _ids(line)
    assert ROW not in found and "amdgpu_init_failed" not in found



_LOADER = "dv_amdgpu_firmware_file_missing"
_BLOCK = "dv_amdgpu_ip_block_firmware_load_failed"


@pytest.mark.parametrize("line,row", [
    # the fixtures' lines (2361, NixOS/nixpkgs#122776; 2360, systemd/systemd#15386, whose next line holds the name)
    ("[    2.768311] amdgpu 0000:0b:00.0: Direct firmware load for amdgpu/navy_flounder_sos.bin failed with error -2",
     _LOADER),
    ("[    2.861300] amdgpu 0000:01:00.0: gfx8: Failed to load firmware", _BLOCK),
    # an OpenShift node's MI300X VFs without the psp_13_0_6 blobs (AMD GPU operator notes, 2025)
    ("[  119.553346] amdgpu 0000:1b:00.0: Direct firmware load for amdgpu/psp_13_0_6_sos.bin failed with error -2", _LOADER),
    # the amd-gfx patch quoting a Renoir without green_sardine_sdma.bin (lists.freedesktop.org)
    ("amdgpu 0000:07:00.0: Direct firmware load for amdgpu/green_sardine_sdma.bin failed with error -2", _LOADER),
    # 204 (geerlingguy/raspberry-pi-pcie-devices#331, pr_err with amdgpu's prefix) and 405 (ROCm/ROCm#912, the PSP's)
    ('[    4.825152] amdgpu: mc: Failed to load firmware "amdgpu/polaris12_mc.bin"', _BLOCK),
    ('[    3.353886] amdgpu 0000:19:00.0: psp v11.0: Failed to load firmware "amdgpu/vega20_ta.bin"', _BLOCK),
    # a Chinese write-up of a Kaveri APU whose initramfs lacked the SDMA file
    ('[    1.972421] amdgpu: cik_sdma: Failed to load firmware "amdgpu/kaveri_sdma.bin"', _BLOCK),
])
def test_the_firmware_rows_read_the_loader_and_the_blocks(line, row):
    assert row in _ids(line)


@pytest.mark.parametrize("line", [
    # another driver's file (the loader prints it for every driver)
    "[    5.0] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-86.ucode failed with error -2",
    # the block's DRM_ERROR, the older rows' line (fw_mc_load_failed), not the block's init_microcode
    "[    4.825578] [drm:gmc_v8_0_sw_init [amdgpu]] *ERROR* Failed to load mc firmware!",
    # a firmware the driver did load
    "[    3.56] amdgpu 0000:04:00.0: amdgpu: [drm] Loading DMUB firmware via PSP: version=0x09003500",
])
def test_lines_that_are_not_a_missing_amdgpu_file_are_not_read(line):
    found = _ids(line)
    assert _LOADER not in found and _BLOCK not in found


_MISSING = "[    2.7] amdgpu 0000:0b:00.0: Direct firmware load for amdgpu/navy_flounder_sos.bin failed with error -2\n"
_FATAL = "[    2.8] amdgpu 0000:0b:00.0: amdgpu: Fatal error during GPU init\n"
_RING = "[    5.1] amdgpu 0000:0b:00.0: amdgpu: ring gfx_0.0.0 test failed (-110)\n"


def test_a_missing_file_beside_a_failed_init_leads_at_firmware(tmp_path):
    found = problems(doctor_files(tmp_path, {"dmesg.txt": _MISSING + _FATAL}))
    # (s20: the init failure itself sits at firmware when its named cause is a firmware file not loaded)
    assert found[0][1] == "firmware" and ("amdgpu-init-failed", "firmware") in found, found


def test_a_missing_file_alone_is_the_rules_firmware_warning_only(tmp_path):
    assert problems(doctor_files(tmp_path, {"dmesg.txt": _MISSING})) == [("amdgpu-init-failed", "firmware")]


def test_a_failed_init_without_a_missing_file_stays_at_kernel(tmp_path):
    assert problems(doctor_files(tmp_path, {"dmesg.txt": _RING + _FATAL}))[0] == ("amdgpu-init-failed", "kernel")
