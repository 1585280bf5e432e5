"""When the ROCm probe runs ``apt-cache policy`` on a live system.

Without an up-to-date binary cache (container images turn it off) apt-cache rebuilds its cache
from every package list on each run, a second or more.  It must still run whenever its answer
matters (an AMD / ROCm apt source or pin, or one of the packages it asks about installed) or when
it is cheap; snapshots and pastes always use what they hold.  The trees below are real files read
through a re-rooted ``LiveSource``; only the command itself is answered by the test.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rocm_wizard.detect.probes import rocm as p_rocm
from rocm_wizard.detect.sources import KIND_COMMANDS, LiveSource, Raw, RecordingSource
from rocm_wizard.model import System

POLICY_ARGV = tuple(KIND_COMMANDS["apt-policy"][0])
# apt-cache policy as printed on Ubuntu 24.04 without AMD's repository (the universe archive has rocminfo)
POLICY_OUT = ("rocminfo:\n  Installed: (none)\n  Candidate: 5.7.1-3build1\n  Version table:\n"
              "     5.7.1-3build1 500\n        500 http://archive.ubuntu.com/ubuntu noble/universe amd64 Packages\n"
              "rocm-core:\n  Installed: (none)\n  Candidate: (none)\n  Version table:\n")


class Tree:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, path: str, text: str = "", mtime: float = None) -> "Tree":
        f = self.root / path.lstrip("/")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
        if mtime is not None:
            os.utime(f, (mtime, mtime))
        return self


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    t = Tree(tmp_path)
    t.write("/var/lib/dpkg/status", "Package: bash\nStatus: install ok installed\n", mtime=1_000_000)
    # package lists present and no binary cache: apt-cache would be slow here
    t.write("/var/lib/apt/lists/archive.ubuntu.com_ubuntu_dists_noble_universe_binary-amd64_Packages",
            "Package: rocminfo\nVersion: 5.7.1-3build1\n", mtime=1_000_100)
    t.write("/var/lib/apt/lists/lock")
    return t


def live(root: Path, recording: bool = False):
    """A LiveSource on ``root`` that would run commands; the test answers them and records which."""
    src = LiveSource(root=str(root), commands=True, environ={"PATH": "/usr/bin:/bin"})
    ran = []

    def run(argv, timeout=None):
        ran.append(tuple(argv))
        label = "cmd:" + " ".join(argv)
        if tuple(argv) == POLICY_ARGV:
            return Raw(POLICY_OUT, label)
        return Raw(None, label, "%s: not installed" % argv[0])

    src.run = run  # on the instance: the source is still a plain LiveSource
    return (RecordingSource(src) if recording else src), ran


def apt(source) -> System:
    system = System()
    p_rocm._apt(source, system, system.rocm)
    return system


def test_skipped_when_irrelevant_and_slow(tree):
    src, ran = live(tree.root)
    r = apt(src).rocm
    assert POLICY_ARGV not in ran
    assert r.distro_offers_rocm is None and "distro_offers_rocm" not in r.sources
    assert any(n.startswith("apt-cache policy was not run: no ROCm apt source") for n in r.notes)


def test_runs_with_amd_apt_source(tree):
    tree.write("/etc/apt/sources.list.d/rocm.list",
               "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 noble main\n")
    src, ran = live(tree.root)
    r = apt(src).rocm
    assert ran.count(POLICY_ARGV) == 1
    assert r.distro_offers_rocm is True and r.sources["distro_offers_rocm"] == "cmd:" + " ".join(POLICY_ARGV)
    assert any("apt would install rocminfo from the distribution archive" in n for n in r.notes)
    assert not any("was not run" in n for n in r.notes)


def test_runs_with_rocm_pin(tree):
    tree.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    src, ran = live(tree.root)
    assert apt(src).rocm.distro_offers_rocm is True and POLICY_ARGV in ran


@pytest.mark.parametrize("info", ["rocminfo.list", "rocm-core:amd64.list", "amdgpu-dkms.list"])
def test_runs_when_an_asked_package_is_installed(tree, info):
    tree.write("/var/lib/dpkg/info/" + info, "/usr/bin/rocminfo\n")
    src, ran = live(tree.root)
    assert apt(src).rocm.distro_offers_rocm is True and POLICY_ARGV in ran


def test_other_amd_packages_do_not_count(tree):
    tree.write("/var/lib/dpkg/info/libdrm-amdgpu1:amd64.list", "/usr/lib/x\n")  # every Mesa install has it
    src, ran = live(tree.root)
    assert POLICY_ARGV not in ran


def test_runs_when_the_binary_cache_is_fresh_not_when_stale(tree):
    tree.write("/var/cache/apt/pkgcache.bin", "cache", mtime=1_000_200)
    src, ran = live(tree.root)
    assert p_rocm.apt_cache_is_cheap(str(tree.root))
    assert apt(src).rocm.distro_offers_rocm is True and POLICY_ARGV in ran
    # an apt update (new list) or dpkg run after the cache was written makes it stale
    tree.write("/var/lib/dpkg/status", "Package: bash\n", mtime=1_000_300)
    src, ran = live(tree.root)
    assert not p_rocm.apt_cache_is_cheap(str(tree.root))
    assert apt(src).rocm.distro_offers_rocm is None and POLICY_ARGV not in ran


def test_runs_without_package_lists(tmp_path):
    Tree(tmp_path).write("/var/lib/dpkg/status", "Package: bash\n").write("/var/lib/apt/lists/lock")
    assert p_rocm.apt_cache_is_cheap(str(tmp_path))
    src, ran = live(tmp_path)
    apt(src)
    assert POLICY_ARGV in ran


def test_recording_source_is_gated_like_live(tree):
    src, ran = live(tree.root, recording=True)
    assert apt(src).rocm.distro_offers_rocm is None and POLICY_ARGV not in ran
    tree.write("/var/lib/dpkg/info/rocminfo.list")
    src, ran = live(tree.root, recording=True)
    assert apt(src).rocm.distro_offers_rocm is True and POLICY_ARGV in ran
    assert "/var/lib/dpkg/info/rocminfo.list" in src.existed  # the snapshot records why it ran


def test_sources_that_run_no_command_always_ask(tree):
    class TableSource(LiveSource):  # tests' canned answers, bundles: no command cost
        def run(self, argv, timeout=None):
            return Raw(POLICY_OUT if tuple(argv) == POLICY_ARGV else None, "cmd:" + " ".join(argv))

    r = apt(TableSource(root=str(tree.root), commands=False, environ={})).rocm
    assert r.distro_offers_rocm is True
    r = apt(LiveSource(root=str(tree.root), commands=False, environ={})).rocm
    assert r.distro_offers_rocm is None and not any("was not run" in n for n in r.notes)


def test_asked_packages_follow_the_command():
    assert p_rocm.APT_POLICY_PACKAGES == POLICY_ARGV[2:] == ("rocm-core", "rocm", "amdgpu-dkms", "rocminfo")
