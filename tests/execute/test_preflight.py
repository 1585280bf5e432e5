"""The disk-space preflight of an apt installation: sizes summed from apt's and dpkg's own fields
(real output formats), compared with the real free space of the filesystems."""
from __future__ import annotations

import os

from rocm_wizard.detect.sources import CommandResult
from rocm_wizard.execute.preflight import apt_space_needed, disk_space_problem

SIMULATION = """NOTE: This is only a simulation!
The following packages will be upgraded:
  rocm rocm-core
The following packages will be REMOVED:
  site-tool
Remv site-tool [1.0]
Inst rocm-core [6.2.4.60204-139~22.04] (6.4.3.60403-128~22.04 repo.radeon.com:repo.radeon.com [amd64])
Inst rocm [6.2.4.60204-139~22.04] (6.4.3.60403-128~22.04 repo.radeon.com:repo.radeon.com [amd64])
Inst rocm-hip-runtime (6.4.3.60403-128~22.04 repo.radeon.com:repo.radeon.com [amd64])
Conf rocm-core (6.4.3.60403-128~22.04 repo.radeon.com:repo.radeon.com [amd64])
"""


def fake_run(installed_kib):
    calls = []

    def run(argv):
        calls.append(list(argv))
        if argv[:2] == ["apt-cache", "show"]:
            out = "".join(f"Package: {a.split('=')[0]}\nVersion: {a.split('=')[1]}\nInstalled-Size: {installed_kib}\n"
                          f"Size: 1000\nDescription: x\n\n" for a in argv[3:])
            return CommandResult(tuple(argv), out, "", 0, None, 0.0)
        if argv[0] == "dpkg-query":
            out = "".join(f"Package: {n}\nInstalled-Size: 10\n\n" for n in argv[3:])
            return CommandResult(tuple(argv), out, "", 0, None, 0.0)
        return CommandResult(tuple(argv), "", "", 1, None, 0.0)
    return run, calls


def test_sizes_are_summed_from_the_packages_fields():
    run, calls = fake_run(100)
    grow, download = apt_space_needed(run, SIMULATION)
    # three new versions of 100 KiB, minus the old rocm-core, rocm and the removed site-tool (10 KiB each)
    assert grow == (300 - 30) * 1024 and download == 3000
    assert calls[0] == ["apt-cache", "show", "--no-all-versions", "rocm-core=6.4.3.60403-128~22.04",
                        "rocm=6.4.3.60403-128~22.04", "rocm-hip-runtime=6.4.3.60403-128~22.04"]
    assert sorted(calls[1][3:]) == ["rocm", "rocm-core", "site-tool"]
    assert apt_space_needed(run, "NOTE: This is only a simulation!\n") == (0, 0)


def test_unreadable_fields_give_no_answer_rather_than_a_guess():
    def broken(argv):
        return CommandResult(tuple(argv), "", "E: no such version", 100, None, 0.0)
    assert apt_space_needed(broken, SIMULATION) is None


def test_too_little_space_is_a_clear_error(tmp_path):
    (tmp_path / "opt").mkdir()
    st = os.statvfs(tmp_path)
    free = st.f_bfree * st.f_frsize
    assert disk_space_problem(1024, 1024, root=str(tmp_path)) is None
    why = disk_space_problem(free + 2 ** 30, 1024, root=str(tmp_path))
    assert why.startswith("not enough disk space: the packages need about") and "MiB free" in why
    # the download alone can be too much
    assert "to download" in disk_space_problem(0, free + 2 ** 30, root=str(tmp_path))


def test_an_install_too_big_for_the_disk_stops_before_apt_runs(tmp_path):
    from rocm_wizard.plan.context import Context
    from rocm_wizard.plan.core import FAILED
    from rocm_wizard.plan.steps import AptInstall

    root = tmp_path / "root"
    (root / "var/lib/dpkg").mkdir(parents=True)
    (root / "var/lib/dpkg/status").write_text("")
    calls = []
    huge = str(2 ** 50)  # KiB: a petabyte and more

    def runner(argv, input=None, env=None, timeout=None):
        argv = list(argv)
        calls.append(argv)
        if argv[:2] == ["apt-get", "-s"]:
            return CommandResult(tuple(argv), "Inst rocm (6.4.3.60403-128~22.04 repo.radeon.com [amd64])\n", "", 0,
                                 None, 0.0)
        if argv[:2] == ["apt-cache", "show"]:
            return CommandResult(tuple(argv), f"Package: rocm\nInstalled-Size: {huge}\nSize: 10\n\n", "", 0, None, 0.0)
        if argv[:2] == ["apt-cache", "madison"]:
            return CommandResult(tuple(argv), "rocm | 6.4.3.60403-128~22.04 | http://x jammy/main amd64 Packages\n",
                                 "", 0, None, 0.0)
        return CommandResult(tuple(argv), "", "", 0, None, 0.0)

    step = AptInstall("rocm-packages", "t", packages=[{"name": "rocm", "version": "6.4.3.60403-*"}])
    res = step.apply(Context(root=str(root), runner=runner, env={}))
    assert res.status == FAILED and "not enough disk space" in res.detail and "nothing was installed" in res.detail
    assert not any(c[:2] == ["apt-get", "install"] for c in calls)
