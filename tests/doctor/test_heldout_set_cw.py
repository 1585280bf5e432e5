"""Held-out set CW (tests/data/real/1940-1943, HELDOUT.md): after an OS or kernel update, DKMS modules
against the kernel that loads them.  Each miss's cause fixed from the program that prints the line: the
kernel's module loader (kernel/module/main.c: 'Unknown symbol', 'disagrees about version of symbol') is the
kernel's, whatever usually put the module there; kmod's modprobe/insmod and systemd-modules-load report the
kernel's ENOEXEC for a module of another kernel ('could not insert ...: Exec format error').  Tested on the
fixtures and on other wordings of the same sources, with near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import fixture as _fixture
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer

PROBLEM = ("warning", "error", "critical")


# -- the module loader's refusal is the kernel's line (1940) -----------------------------------------
def test_1940_unknown_symbol_is_placed_at_the_kernel_and_leads():
    diag = diagnose(detect_snapshot(str(_fixture("1940"))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("known-failure", "kernel") in found, found
    assert _lead_layer(_fixture("1940")) == "kernel"


@pytest.mark.parametrize("line", [
    "[    2.700394] amdgpu: Unknown symbol amd_iommu_bind_pasid (err 0)",  # the fixture's line
    "[   10.460067] amdgpu: Unknown symbol __devcgroup_check_permission (err 0)",  # ROCm/amdgpu#68
    "[    5.118022] amdkcl: disagrees about version of symbol module_layout",  # check_version's form
    "Mar 15 10:02:11 host kernel: amdttm: Unknown symbol dma_resv_wait_timeout (err -22)",  # journald form
])
def test_the_loaders_lines_for_amd_modules_are_at_the_kernel(line):
    assert "amd_module_symbol_mismatch" in _ids(line), line
    assert error_signatures.failure_layer("amd_module_symbol_mismatch") == "kernel"


def test_another_vendors_module_is_not_amds():
    assert "amd_module_symbol_mismatch" not in _ids("[  498.711274] 8812au: disagrees about version of symbol module_layout")


# -- modprobe / insmod / systemd-modules-load: Exec format error (1942) --------------------------------
def test_1942_exec_format_error_is_a_known_kernel_failure():
    diag = diagnose(detect_snapshot(str(_fixture("1942"))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("known-failure", "kernel") in found, found
    assert _lead_layer(_fixture("1942")) == "kernel"


@pytest.mark.parametrize("line", [
    "_modprobe: ERROR: could not insert 'amdkfd': Exec format error_",  # the fixture's line (markdown italics)
    "modprobe: ERROR: could not insert 'amdgpu': Exec format error",  # kmod tools/modprobe.c
    "insmod: ERROR: could not insert module /lib/modules/6.8.0-45-generic/updates/dkms/amdgpu.ko.zst: Exec format error",
    "insmod: ERROR: could not insert module amdgpu.ko: Exec format error",  # tools/insmod.c, a relative file
    "Jan 15 09:12:03 host systemd-modules-load[412]: Failed to insert module 'amdkfd': Exec format error",
])
def test_the_insert_failure_of_an_amd_module_is_named(line):
    assert "cw_amd_module_insert_exec_format" in _ids(line), line
    assert error_signatures.failure_layer("cw_amd_module_insert_exec_format") == "kernel"


@pytest.mark.parametrize("line", [
    "modprobe: ERROR: could not insert 'r8126': Exec format error",  # another vendor's module
    "bash: ./rocminfo: cannot execute binary file: Exec format error",  # a program of another architecture
    "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service",  # Secure Boot, its own row
])
def test_near_misses_are_not_the_exec_format_row(line):
    assert "cw_amd_module_insert_exec_format" not in _ids(line), line
