"""Held-out set EA (tests/data/real/2410-2412, HELDOUT.md): Q&A sites, forums and mailing lists outside GitHub, as
the `pages` corpus stores their text.  The three threads are firmware failures; on the unchanged code all three reached
the firmware layer only through the catch-all, and two led at the kernel ('Fatal error during GPU init'):

* 2410 and 2412 (radeon on a Caicos and an RV635): the corpus read amdgpu's firmware lines only.  radeon's own lines
  are now rows at firmware: the firmware loader's 'Direct firmware load for radeon/<file> failed with error %d'
  (torvalds/linux drivers/base/firmware_loader/main.c), the chip family's microcode loader '<radeon|r600|ni|si|cik>_cp:
  Failed to load firmware "%s"' (drivers/gpu/drm/radeon/r100.c, r600.c, ni.c, si.c, cik.c) and the init's
  DRM_ERROR 'Failed to load firmware!' ('[drm:<asic>_init|startup|r100_cp_init [radeon]] *ERROR* ...').  Forum pages
  render '"' as '“ ”' and drop the markdown '*' around ERROR, so both are optional in the patterns.
* 2411 (linux-libre on a Raven APU): linux-libre's include/linux/firmware.h (report_missing_free_firmware:
  '%s: Missing Free %s (non-Free firmware loading is disabled)') now has a row at firmware.  The quoted gpu_info line
  is rewrapped by the mail's replier, so amdgpu_gpu_info_fw_missing still cannot read it; that is left as it is."""
from __future__ import annotations

import pytest

from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LOADER = "ea_radeon_firmware_file_missing"
CP = "ea_radeon_cp_firmware_load_failed"
INIT = "ea_radeon_init_firmware_error"
LIBRE = "ea_linux_libre_nonfree_firmware_rejected"


@pytest.mark.parametrize("num", ["2410", "2411", "2412"])
def test_the_set_ea_fixtures_lead_at_firmware(num):
    assert _lead_layer(_fixture(num)) == "firmware"


@pytest.mark.parametrize("row,line", [
    # 2410's lines (ubuntu-mate.community '[17.10] [radeon] *ERROR* Failed to load firmware!', curly quotes and the
    # asterisks lost in the page's rendering)
    (LOADER, "[ 0.783037] radeon 0000:01:00.0: Direct firmware load for radeon/CAICOS_pfp.bin failed with error -2"),
    (CP, "[ 0.783038] ni_cp: Failed to load firmware “radeon/CAICOS_pfp.bin”"),
    (INIT, "[ 0.783163] [drm:evergreen_init [radeon]] ERROR Failed to load firmware!"),
    # 2412's quoted lines, joined into one line in the mail archive's page text
    (CP, '>> platform radeon_cp.0: firmware: requesting radeon/RV635_pfp.bin >> r600_cp: Failed to load firmware '
         '"radeon/RV635_pfp.bin" [drm:r600_init] >> *ERROR* Failed to load firmware!'),
    # 2411's quoted line, cut by the replier's rewrapping after 'is'
    (LIBRE, "> 0000:03:00.0: Missing Free firmware (non-Free firmware loading is"),
])
def test_the_fixtures_lines_are_their_rows(row, line):
    assert row in _ids(line)


@pytest.mark.parametrize("row,line", [
    # the commit message of torvalds/linux a44de7497f91 ('MIPS: Loongson: Build ATI Radeon GPU driver as module', RS780)
    (LOADER, "[    1.905077] radeon 0000:01:05.0: Direct firmware load for radeon/RS780_pfp.bin failed with error -2"),
    (CP, '[    1.914140] r600_cp: Failed to load firmware "radeon/RS780_pfp.bin"'),
    (INIT, "[    1.920405] [drm:r600_init] *ERROR* Failed to load firmware!"),
    # bugzilla.kernel.org 36812 (R600, 3.0-rc2)
    (INIT, "[ 61.920370] [drm:r600_startup] *ERROR* Failed to load firmware!"),
    # dri-devel's copy of bugzilla.kernel.org 80331, comment 14 quoting comment 13 (RV730, radeon built into the kernel)
    (CP, '[ 0.263616] r600_cp: Failed to load firmware "radeon/RV730_pfp.bin"'),
    (INIT, "[ 0.263668] [drm:rv770_init] *ERROR* Failed to load firmware!"),
    # a Japanese note of a Mullins APU whose radeon could not read its firmware (journal lines)
    (CP, '10月 06 15:40:50 usehage kernel: cik_cp: Failed to load firmware "radeon/MULLINS_pfp.bin"'),
    (INIT, "10月 06 15:40:50 usehage kernel: [drm:cik_init] *ERROR* Failed to load firmware!"),
    # an R300 boot log in the index (r100.c's loader and r100_cp_init)
    (CP, '[   92.743052] radeon_cp: Failed to load firmware "radeon/R300_cp.bin"'),
    (INIT, "[   92.819159] [drm:r100_cp_init [radeon]] *ERROR* Failed to load firmware!"),
    # a linux-libre boot log in the index (rt2800pci Wi-Fi: the same report_missing_free_firmware)
    (LIBRE, "[   81.849817] 0000:02:00.0: Missing Free firmware (non-Free firmware loading is disabled)"),
])
def test_other_real_wordings_are_the_rows(row, line):
    assert row in _ids(line)


@pytest.mark.parametrize("line", [
    # amdgpu's lines are dv_amdgpu_*'s, not radeon's
    "[    2.768311] amdgpu 0000:0b:00.0: Direct firmware load for amdgpu/navy_flounder_sos.bin failed with error -2",
    '[    4.825152] amdgpu: mc: Failed to load firmware "amdgpu/polaris12_mc.bin"',
    "[    4.825578] [drm:gmc_v8_0_sw_init [amdgpu]] *ERROR* Failed to load mc firmware!",
    # another device's firmware, and prose about linux-libre
    "[    3.1] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-72.ucode failed with error -2",
    "linux-libre says non-Free firmware loading is disabled, so the radeon firmware is missing",
])
def test_lines_that_are_not_radeon_or_linux_libre_firmware_are_not_read(line):
    assert not {LOADER, CP, INIT, LIBRE} & _ids(line)
