"""Held-out set DU (tests/data/real/2350-2354, HELDOUT.md): AMD's ROCm packages on distributions AMD does not list
(KDE neon, Pop!_OS, an Ubuntu interim release).  One fixture missed its layer on the unchanged code: 2351, whose
paste is apt's problem-resolver trace alone ('Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK >
(= 1.0.0.70001-42~24.04)'), read as a failure told at runtime because it names rocminfo.  The trace's line is
printed by apt's pkgProblemResolver (Debian/apt apt-pkg/algorithms.cc, "Broken " << APT::PrettyDep; the package
form from apt-pkg/prettyprinters.cc, the dependency type translated by pkgCache::DepType); the row
du_apt_problem_resolver_broken_dependency reads it at packaging, in apt's present form and in the form of apt
before 1.3."""
from __future__ import annotations

import pytest

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
