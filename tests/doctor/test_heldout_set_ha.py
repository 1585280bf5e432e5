"""Held-out set HA (tests/data/real/3080-3084, HELDOUT.md): a third theme-neutral sample of ROCm's main tracker
(ROCm/ROCm, now ROCm/legacy-rocm-build) in 2024.  Four fixtures led at their layer on the unchanged code; one row was
added for the fifth:

* ha_x86_mce_uncorrected_bank_status (firmware): the kernel's x86 machine-check core prints each logged bank record as
  "CPU %d: Machine Check%s: %Lx Bank %d: %016Lx" (arch/x86/kernel/cpu/mce/core.c __print_mce), the last number being
  MCi_STATUS.  Its first hex digit holds VAL (bit 63), OVER, UC (bit 61) and EN, so a record with VAL and UC set starts
  with a, b, e or f; one starting 8, 9, c or d is a corrected error and not the row's (3083, whose journal holds only
  these generic lines, not the AMD decoder's 'System Fatal error.' that ca_mce_amd_uncorrected_error reads)."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, ids as _ids, fixture as _fixture, lead_layer as _lead_layer

ROW = "ha_x86_mce_uncorrected_bank_status"


@pytest.mark.parametrize("num,layer", [("3080", "hip"), ("3081", "packaging"), ("3082", "kernel"),
                                       ("3084", "kernel")])
def test_the_set_ha_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_3083_is_named_by_the_machine_check_row_and_leads_at_firmware():
    assert_named_and_leads("3083", ROW, "firmware")


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/ROCm#2935, 2024-02-28, NixOS journal; the same in pytorch/pytorch#120775)
    "Feb 27 15:09:35 nixos kernel: mce: [Hardware Error]: CPU 9: Machine Check: 0 Bank 5: bea0000000000108",
    # an Intel NUC's uncorrected record at boot (andikleen/mcelog#70, 2018-06-29)
    "[    0.060932] mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 4: a600000000020408",
    # the exception form of a fatal machine check before 'Kernel panic - not syncing: Fatal machine check' (the
    # dri-devel thread of torvalds/linux 833cd3e9ad83, drm/fb-helper: Don't schedule_work() ... during panic())
    "[  133.900042] mce: [Hardware Error]: CPU 0: Machine Check Exception: 5 Bank 4: ba00000000000e0b",
    # the status of microsoft/WSL#41649's fatal record (its title), written in capitals as some copies do
    "mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 0: B200000080060001",
])
def test_the_row_reads_an_uncorrected_bank_record(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("line", [
    # a corrected record: first digit c (VAL and OVER, no UC) (home-assistant/operating-system#2989, 2023-12-13)
    "Dec 13 13:46:08 homeassistant kernel: mce: [Hardware Error]: CPU 2: Machine Check: 0 Bank 6: cc59dec000041152",
    # EDAC sb_edac's own corrected-memory report, 'Machine Check Event' (radiasoft/devops#134, 2018-02-23)
    "Feb 23 03:28:16 kernel: EDAC sbridge MC1: CPU 1: Machine Check Event: 0 Bank 11: 8c00004f000800c2",
    # the notice logged for any record, corrected or not (mce_log)
    "[  316.956399] mce: [Hardware Error]: Machine check events logged",
    # a record shortened by its reporter, no status (ublue-os/bazzite#5546): the row reads the status only
    "mce: [Hardware Error]: CPU 7: Machine Check Exception: 5 Bank 0",
])
def test_the_row_leaves_corrected_and_statusless_lines(line):
    assert ROW not in _ids(line)
