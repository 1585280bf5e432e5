"""Held-out set DU (tests/data/real/2350-2354, HELDOUT.md): AMD's ROCm packages on distributions AMD does not list
(KDE neon, Pop!_OS, an Ubuntu interim release).  One fixture missed its layer on the unchanged code: 2351, whose
paste is apt's problem-resolver trace alone ('Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK >
(= 1.0.0.70001-42~24.04)'), read as a failure told at runtime because it names rocminfo.  The trace's line is
printed by apt's pkgProblemResolver (Debian/apt apt-pkg/algorithms.cc, "Broken " << APT::PrettyDep; the package
form from apt-pkg/prettyprinters.cc, the dependency type translated by pkgCache::DepType); the row
du_apt_problem_resolver_broken_dependency reads it at packaging, in apt's present form and in the form of apt
before 1.3.  2354's second finding read the PCI core's option-ROM note, printed under amdgpu's name while amdgpu
probes the ROM BAR for its VBIOS (torvalds/linux drivers/pci/rom.c pci_get_rom_size; amdgpu_bios.c amdgpu_get_bios
tries several sources), as a failure at packaging for its word 'signature'; under amdgpu it is now benign."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "du_apt_problem_resolver_broken_dependency"


@pytest.mark.parametrize("num,layer", [("2350", "packaging"), ("2351", "packaging"), ("2352", "packaging"),
                                       ("2353", "packaging"), ("2354", "runtime")])
def test_the_set_du_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_resolver_row_names_2351_and_leads_at_packaging():
    assert_named_and_leads("2351", ROW, "packaging")


@pytest.mark.parametrize("line", [
    # ROCm/ROCm#3946 (2024-10, Ubuntu 22.04 runner, apt-get -o Debug::pkgProblemResolver=true): the archive's
    # rocm-device-libs 5.0.0-1 as the only candidate for AMD's exact dependency
    "Broken rocm-hip-runtime-dev:amd64 Depends on rocm-device-libs:amd64 < none | 5.0.0-1 @un uH > "
    "(= 1.0.0.60202-116~22.04)",
    # ROCm/ROCm#1876, comment of 2023-01-09 (Debian testing/unstable): a target with no installable version and no
    # version in the dependency
    "Broken rocm-dkms:amd64 Depends on rock-dkms:amd64 < none @un H >",
    # PackageKit/PackageKit#142 (2016, apt 1.2): the package form of apt before 1.3, '[ arch ]', '->' and '( section )'
    "Broken libenchant1c2a:i386 Depends on libaspell15 [ i386 ] < none -> 0.60.7~20110707-3build1 > ( libs ) "
    "(>= 0.60.7~20110707)",
])
def test_other_resolver_traces_are_read_by_the_row(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("line", [
    # dpkg's own report (src/main/packages.c), another program's words
    " libpam-systemd:amd64 depends on systemd (= 247.3-7+deb11u2); however:",
    # the resolver's 'Investigating' line: the package it looks at, not a broken dependency
    "Investigating (0) rocm:amd64 < none -> 7.0.1.70001-42~24.04 @un puN Ib >",
    # 'Broken' in a script's own words, without apt's '< ... >' package form
    "Broken root:amd64 Depends on dep:amd64 (>= 2)",
])
def test_lines_that_are_not_a_broken_resolver_dependency_are_not_read(line):
    assert ROW not in _ids(line)


@pytest.mark.parametrize("line,failure", [
    # the fixture's dmesg line (2354) and a journal's ('journalctl -b | grep amdgpu' of a failing boot, in German notes
    # the search index holds without naming their repository): one of amdgpu's VBIOS probes, not a failure
    ("[    1.073679] amdgpu 0000:09:00.0: Invalid PCI ROM header signature: expecting 0xaa55, got 0xffff", False),
    ("Apr 23 16:04:35 manul kernel: amdgpu 0000:04:00.0: Invalid PCI ROM header signature: expecting 0xaa55, got 0xffff",
     False),
    # amdgpu's own report that no VBIOS source worked, the next line of that journal, stays a failure
    ("Apr 23 16:04:35 manul kernel: amdgpu 0000:04:00.0: amdgpu: Unable to locate a BIOS ROM", True),
    # under vfio-pci (a passthrough whose guest needs the ROM) the note stays a failure
    ("[  272.710758] vfio-pci 0000:00:02.0: Invalid PCI ROM header signature: expecting 0xaa55, got 0xa1f9", True),
])
def test_the_pci_rom_note_under_amdgpu_is_not_a_failure(line, failure):
    assert failure_lines.looks_like_failure(line) is failure
