"""Held-out set BI (tests/data/real/1500-1503, HELDOUT.md): permissions and security around the GPU.  The lines read from
the programs that print them: ls -l's line of /dev/kfd when its mode gives the group no access (the kernel's kfd_chardev.c
creates the node through devtmpfs, 0600 root:root, until a udev rule sets its group and mode), and dpkg's list of the
packages it could not configure (src/main/errors.c, one ' %s' line each) naming a DKMS kernel-module package, whose
postinst (dkms's common.postinst) builds the driver."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

NODE = "s13bi_kfd_node_owner_only"
DKMS = "s13bi_dpkg_dkms_package_not_configured"


@pytest.mark.parametrize("num,row,layer", [
    ("1502", NODE, "runtime"),
    ("1501", DKMS, "packaging"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("line", [
    # the fixture's line: 'ls -la /dev | grep kfd' in a German locale (1502)
    "crw-------   1 root    root    234,   0 Mai 21 05:13 kfd",
    # ls -l /dev/kfd in an English locale, an SELinux context dot, a year instead of the time
    "crw-------. 1 root root 511, 0 Nov  3 09:12 /dev/kfd",
    "crw-------  1 root root 235, 0 Jan 12  2026 /dev/kfd",
    # readable but not writable by the group (0640): the runtime opens it read-write
    "crw-r----- 1 root render 226, 0 Oct 28 10:01 /dev/kfd",
    # ls -l --time-style=long-iso
    "crw------- 1 root root 238, 0 2026-11-02 08:15 /dev/kfd",
])
def test_an_owner_only_kfd_node_is_named(line):
    assert NODE in _ids(line), line


@pytest.mark.parametrize("line", [
    # the node as udev sets it (0660 render, 0666) and an ACL'd one: usable by the group
    "crw-rw---- 1 root render 238, 0 Sep  2 15:45 /dev/kfd",
    "crw-rw-rw- 1 root render 235, 0 Nov 28 09:00 /dev/kfd",
    "crw-rw----+ 1 root render 235, 0 Nov 28 09:00 /dev/kfd",
    # an owner-only render node or another device: not /dev/kfd
    "crw------- 1 root root 226, 0 Nov 28 09:00 /dev/dri/card0",
    "crw------- 1 root root 10, 125 Nov 28 09:00 /dev/kfdx",
    # prose naming the mode
    "the udev rule should set MODE=\"0660\" for kfd",
])
def test_near_misses_are_not_the_owner_only_row(line):
    assert NODE not in _ids(line), line


def test_the_owner_only_row_is_at_runtime():
    assert error_signatures.failure_layer(NODE) == "runtime"


@pytest.mark.parametrize("text", [
    # the fixture (1501): rock-dkms and the meta-package after it
    "Errors were encountered while processing:\n rock-dkms\n rocm-dkms\nE: Sub-process /usr/bin/dpkg returned an error code (1)\n",
    # amdgpu-dkms after other packages, with dpkg's architecture qualifier
    "Errors were encountered while processing:\n linux-headers-6.17.0-5-generic\n amdgpu-dkms:all\n",
    # dpkg in German (po/de.po's msgstr of the same message)
    "Fehler traten auf beim Bearbeiten von:\n amdgpu-dkms\n",
])
def test_a_dkms_package_left_unconfigured_is_named(text):
    assert DKMS in _ids(text), text


@pytest.mark.parametrize("text", [
    # dpkg's list without a DKMS package
    "Errors were encountered while processing:\n rocm-llvm\n rocm-hip-runtime\n",
    # apt's list of new packages names amdgpu-dkms, two spaces in, but nothing failed
    "The following NEW packages will be installed:\n  amdgpu-dkms amdgpu-dkms-firmware\n",
    # a DKMS package named on a later, unrelated line
    "Errors were encountered while processing:\n rocm-llvm\nE: Sub-process /usr/bin/dpkg returned an error code (1)\n"
    "Reading package lists...\n amdgpu-dkms\n",
])
def test_near_misses_are_not_the_dkms_row(text):
    assert DKMS not in _ids(text), text
