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
from rwtest import ci

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


def test_not_run_without_package_lists_and_the_same_answer(tmp_path):
    """With no package list apt-cache can only repeat dpkg's status file, so it is not run (without
    a binary cache it would build one first: most of a live detection's time); what detection
    records is what apt-cache's own answer gives."""
    Tree(tmp_path).write("/var/lib/dpkg/status", "Package: bash\n").write("/var/lib/apt/lists/lock")
    src, ran = live(tmp_path)
    r = apt(src).rocm
    assert POLICY_ARGV not in ran
    assert r.distro_offers_rocm is None and not any("was not run" in n for n in r.notes)
    # one of the packages it asks about installed: apt-cache would list it from dpkg's status only
    Tree(tmp_path).write("/var/lib/dpkg/info/rocminfo.list", "/usr/bin/rocminfo\n")
    src, ran = live(tmp_path)
    r = apt(src).rocm
    assert POLICY_ARGV not in ran
    assert r.distro_offers_rocm is False and r.sources["distro_offers_rocm"].startswith("dir:/var/lib/apt/lists")
    assert not any("apt would install" in n for n in r.notes)


STATUS_ROCMINFO = ("Package: rocminfo\nStatus: install ok installed\nPriority: optional\nSection: devel\n"
                   "Installed-Size: 100\nMaintainer: x <x@example.org>\nArchitecture: amd64\n"
                   "Version: 6.2.4.60204-139~22.04\nDescription: ROCm info\n\n")


@pytest.mark.parametrize("installed", [False, True])
def test_real_apt_cache_agrees_without_lists(tmp_path, installed):
    """The real apt-cache, on a root with no package list, gives the answer detection records
    without running it (apt reads only the root given: nothing of this machine's apt state)."""
    import shutil
    import subprocess

    from rocm_wizard.detect.parsers import apt_policy

    if shutil.which("apt-cache") is None:
        ci.missing("apt-cache (apt), to compare with the real apt-cache")
    t = Tree(tmp_path)
    t.write("/var/lib/dpkg/status", STATUS_ROCMINFO if installed else "")
    t.write("/var/lib/apt/lists/lock")
    for d in ("etc/apt/apt.conf.d", "etc/apt/preferences.d", "etc/apt/sources.list.d", "var/cache/apt/archives/partial"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    if installed:
        t.write("/var/lib/dpkg/info/rocminfo.list", "/usr/bin/rocminfo\n")
    # APT_CONFIG names the only configuration file apt reads; its Dir moves every other one (the
    # parts directory, sources, preferences, lists, caches) into the root
    conf = tmp_path / "apt.conf"
    conf.write_text('Dir "%s/";\nDir::State::status "%s/var/lib/dpkg/status";\nDebug::NoLocking "1";\n'
                    % (tmp_path, tmp_path))
    out = subprocess.run(["apt-cache"] + list(POLICY_ARGV[1:]), capture_output=True, text=True,
                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
                              "APT_CONFIG": str(conf)})
    assert out.returncode == 0, out.stderr
    real = apt_policy.parse(out.stdout)
    src, ran = live(tmp_path)
    r = apt(src).rocm
    assert POLICY_ARGV not in ran
    assert r.distro_offers_rocm == real.distro_offers_rocm()
    assert not real.candidates_from_other_archive()
