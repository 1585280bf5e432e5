"""Held-out set JJ (tests/data/real/3650-3652, HELDOUT.md): threads of 2025-2026 about ROCm on the newest distribution
releases (Debian 13/forky, Ubuntu 26.04).  3651 (an in-tree amdgpu on Ubuntu 26.04's kernel 7.0) stayed without a false
alarm and 3652 (torch's relayed illegal memory access in ComfyUI) was warned at its layer, its lead kept at runtime by
the HSA_OVERRIDE_GFX_VERSION another user's command line sets (left, see HELDOUT.md).  3650 (amdgpu-dkms on Debian
filling /boot) was read only by the catch-all with no layer: its lines are initramfs-tools' (kernel-team/initramfs-tools
mkinitramfs: "E: mkinitramfs failure [find N] [cpio N] <compress> N" when a stage of its find | cpio | compressor
pipeline fails; update-initramfs: "update-initramfs: failed for <initramfs> with N.").  The new row
jj_initramfs_tools_build_failed reads both at packaging."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "jj_initramfs_tools_build_failed"


@pytest.mark.parametrize("num,layer", [("3650", "packaging"), ("3651", None), ("3652", "runtime")])
def test_the_set_jj_fixtures_lead_where_they_do(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_initramfs_row_names_3650_and_leads_at_packaging():
    assert_named_and_leads("3650", ROW, "packaging")
    assert error_signatures.failure_layer(ROW) == "packaging"


@pytest.mark.parametrize("text", [
    # the fixture's joined lines (ROCm/rocm-install-on-linux#629, comment of 2025-12-01, Debian forky)
    "mkinitramfs failure zstd -q -9 -T0 70 update-initramfs: failed for /boot/initrd.img-6.17.8+deb14-amd64 with 1.",
    # a full /boot on Ubuntu with gzip (the common form: cpio killed by SIGPIPE, then gzip's status)
    "gzip: stdout: No space left on device\nE: mkinitramfs failure cpio 141 gzip 1\n",
    "update-initramfs: failed for /boot/initrd.img-4.4.0-64-generic with 1.\n",
    # the compressor killed for memory (Ubuntu 21.10, Raspberry Pi forum)
    "Killed\nE: mkinitramfs failure zstd -q -19 -T0 137\n",
    # zstd writing into a full /boot (Linux Mint 21.1, linuxmint/mintupdate#823)
    "    E: mkinitramfs failure zstd -q -1 -T0 25\n",
    # mkinitramfs's first form, find failing
    "E: mkinitramfs failure find 1 cpio 0 gzip -n -9 0\n",
])
def test_the_row_reads_initramfs_tools_failures(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    "update-initramfs: Generating /boot/initrd.img-6.8.0-45-generic\n",      # the normal start line
    "W: Possible missing firmware /lib/firmware/amdgpu/gc_11_0_3_imu.bin for module amdgpu\n",  # a warning only
    "I: The initramfs will attempt to resume from /dev/nvme0n1p3\n",          # informational
    "mkinitramfs failure handling is described in the manual\n",             # prose without a status
])
def test_lines_that_are_not_initramfs_failures_are_not_read(text):
    assert ROW not in _ids(text)
