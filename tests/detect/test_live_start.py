"""A live detection's commands started ahead (``detect/live_start.py``, ``LiveSource.prestart``).

The tools are real processes: scripts on the source's own PATH that print real outputs of the
fixtures (fixture 019's rocminfo and amd-smi, 011's lspci, 102's dmesg, 109's dkms status) and log
each run; files are read from an empty captured tree, never from this machine.  The same source
detected with its commands started ahead and the probes in one thread must give the same System as
the probes in threads asking for each command, with each tool run once."""
from __future__ import annotations

import os
import shlex
import shutil
import sys
import threading
import time
import importlib

import pytest

from rocm_wizard.detect import _jobs, detect, live_start
from rocm_wizard import detect as det
from rocm_wizard.detect.sources import KIND_COMMANDS, LiveSource
from rocm_wizard.model import to_dict
from rwtest import ci


def _tool(bindir, name, body):
    path = bindir / name
    path.write_text("#!/bin/sh\necho \"%s $*\" >> %s\n%s\n" % (name, shlex.quote(str(bindir / "ran.log")), body))
    path.chmod(0o755)


def _cat(path):
    return "exec %s %s" % (shutil.which("cat"), shlex.quote(str(path)))


@pytest.fixture
def tools(tmp_path):
    """(root, environ, log path) of a machine whose GPU tools print fixture outputs."""
    root = tmp_path / "root"
    root.mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    f019, f011 = ci.real_fixture("019"), ci.real_fixture("011")
    _tool(bindir, "rocminfo", _cat(f019 / "rocminfo.txt"))
    _tool(bindir, "amd-smi", 'if [ "$1" = version ]; then %s; else %s; fi' % (
        _cat(f019 / "amd-smi-version.txt"), _cat(f019 / "amd-smi-static.txt")))
    _tool(bindir, "lspci", _cat(f011 / "lspci.txt"))
    _tool(bindir, "dmesg", _cat(ci.real_fixture("102") / "dmesg.txt"))
    _tool(bindir, "dkms", _cat(ci.real_fixture("109") / "dkms.txt"))
    _tool(bindir, "docker", 'if [ "$1" = version ]; then echo "27.3.1 "; exit 1; fi; echo "Docker version 27.3.1, build ce12230"')
    # AMD's apt repository is set up: the rocm probe runs apt-cache policy (not started ahead)
    (root / "etc/apt/sources.list.d").mkdir(parents=True)
    (root / "etc/apt/sources.list.d/rocm.list").write_text(
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 noble main\n")
    (bindir / "policy.txt").write_text(
        "rocm-core:\n  Installed: (none)\n  Candidate: 6.2.4.60204-139~24.04\n  Version table:\n"
        "     6.2.4.60204-139~24.04 600\n        600 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages\n")
    _tool(bindir, "apt-cache", _cat(bindir / "policy.txt"))
    return root, {"PATH": str(bindir)}, bindir / "ran.log"


def _runs(log):
    return sorted(log.read_text().splitlines()) if log.exists() else []


def test_started_ahead_gives_the_same_system_with_each_tool_run_once(tools):
    root, environ, log = tools
    threaded = detect(LiveSource(root=str(root), commands=True, environ=environ))
    first = _runs(log)
    log.unlink()
    source = LiveSource(root=str(root), commands=True, environ=environ)
    source.prestart(live_start.commands_for(environ))
    assert _jobs.in_parallel(source) is False
    try:
        ahead = detect(source)
    finally:
        source.close()
    assert _runs(log) == first
    # what the tools said reached the report (the check can fail: a probe that missed one would differ)
    assert [g.gfx_target for g in ahead.gpus if g.is_amd] and ahead.rocm.hsa_runtime_version
    assert ahead.errors and ahead.docker.client == "27.3.1"
    assert ahead.rocm.apt_sources and ahead.rocm.distro_offers_rocm is not None
    assert any(line.startswith("apt-cache policy") for line in first)
    assert to_dict(ahead) == to_dict(threaded)


def test_probes_run_in_turn_and_docker_aside(tools, monkeypatch):
    root, environ, _log = tools
    seen = {}
    for name in det.PROBES:
        mod = importlib.import_module("rocm_wizard.detect.probes." + name)

        def spy(*args, _real=mod.probe, _name=name, **kwargs):
            seen[_name] = threading.get_ident()
            return _real(*args, **kwargs)

        monkeypatch.setattr(mod, "probe", spy)
    from rocm_wizard.detect.probes import rocm as p_rocm

    def apt_spy(*args, _real=p_rocm._apt):
        seen["rocm:apt"] = threading.get_ident()
        return _real(*args)

    monkeypatch.setattr(p_rocm, "_apt", apt_spy)
    source = LiveSource(root=str(root), commands=True, environ=environ)
    source.prestart(live_start.commands_for(environ))
    try:
        system = detect(source)
    finally:
        source.close()
    me = threading.get_ident()
    assert set(det.PROBES) <= set(seen) and system.rocm.apt_sources
    assert {n for n, t in seen.items() if t == me} == set(det.PROBES) - set(det.WAITS)
    assert all(seen[n] != me for n in det.WAITS + ("rocm:apt",))  # what may wait on a command no one started


def test_a_command_no_probe_asks_for_is_ended(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _tool(bindir, "sleeper", "exec %s 60" % shutil.which("sleep"))
    source = LiveSource(root=str(tmp_path), commands=True, environ={"PATH": str(bindir)})
    source.prestart([("sleeper",)])
    proc = source._started[("sleeper",)].proc
    assert proc.poll() is None
    start = time.monotonic()
    source.close()
    assert proc.poll() is not None and time.monotonic() - start < 5
    assert not source._started


def test_a_hung_tool_started_ahead_times_out_within_the_budget(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name in ("rocminfo", "amd-smi"):
        _tool(bindir, name, "exec %s 60" % shutil.which("sleep"))
    environ = {"PATH": str(bindir)}
    source = LiveSource(root=str(tmp_path), commands=True, environ=environ, budget=1.5)
    source.prestart(live_start.commands_for(environ))
    start = time.monotonic()
    try:
        system = detect(source)
    finally:
        source.close()
    took = time.monotonic() - start
    notes = "\n".join(system.notes)
    assert "rocminfo timed out" in notes and "amd-smi static" in notes and "budget" in notes
    assert took < 8, took  # side by side: the budget once, not a timeout per tool


def test_a_missing_tool_started_ahead_reads_as_before(tmp_path):
    environ = {"PATH": str(tmp_path / "none")}
    plain = LiveSource(root=str(tmp_path), commands=True, environ=environ)
    ahead = LiveSource(root=str(tmp_path), commands=True, environ=environ)
    ahead.prestart(live_start.commands_for(environ))
    for argv in live_start.commands_for(environ):
        assert ahead.run(list(argv)) == plain.run(list(argv))
    assert not ahead._started


def test_started_commands_are_the_probes_command_lines():
    lines = {tuple(argv) for argvs in KIND_COMMANDS.values() for argv in argvs}
    lines.add(("dmesg",))  # the errors probe's own (errors.DMESG_ARGV)
    from rocm_wizard.detect.probes import errors

    assert tuple(errors.DMESG_ARGV) in live_start.ALWAYS
    assert set(live_start.ALWAYS) <= lines
    assert live_start.DOCKER_VERSION in lines
    # docker_api's way: the client's version alone where the CLI would ask the default socket
    assert live_start.docker_argv({"HOME": "/nonexistent"}) == live_start.DOCKER_CLIENT
    assert live_start.docker_argv({"HOME": "/nonexistent", "DOCKER_HOST": "tcp://x:2375"}) == live_start.DOCKER_VERSION


def test_early_start_is_taken_only_with_the_same_environment(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _tool(bindir, "dmesg", "exec %s 60" % shutil.which("sleep"))
    environ = {"PATH": str(bindir)}
    monkeypatch.setattr(live_start, "ALWAYS", (("dmesg",),))
    live_start.start_early(environ)
    procs = [s.proc for s in live_start._early[1].values() if s.proc is not None]
    assert procs and all(p.poll() is None for p in procs)
    assert live_start.take(live_start.command_env(dict(environ, PATH="/elsewhere"))) == {}
    assert all(p.poll() is not None for p in procs) and live_start._early is None
    live_start.start_early(environ)
    got = live_start.take(live_start.command_env(environ))
    assert ("dmesg",) in got and live_start._early is None
    for s in got.values():
        live_start.stop(s)


def test_which_finds_what_shutil_which_finds(tmp_path):
    """``live_start.which`` (no ``shutil`` import on a live detection) answers as ``shutil.which``:
    the first directory holding an executable file of that name, not a directory, not a file
    without the execute bit; each directory once; an empty PATH finds nothing."""
    a, b, c = (tmp_path / n for n in ("a", "b", "c"))
    for d in (a, b, c):
        d.mkdir()
    (a / "tool").write_text("#!/bin/sh\n")  # not executable
    (b / "tool").mkdir()  # a directory of that name
    (c / "tool").write_text("#!/bin/sh\n")
    (c / "tool").chmod(0o755)
    (b / "other").write_text("#!/bin/sh\n")
    (b / "other").chmod(0o755)
    (a / "other").symlink_to(b / "other")
    (a / "dangling").symlink_to(tmp_path / "nowhere")
    paths = [os.pathsep.join(map(str, (a, b, c))), os.pathsep.join(map(str, (c, a, c))), str(a), "",
             os.pathsep.join(("", str(b))), os.pathsep.join((str(tmp_path / "missing"), str(c))), None]
    seen = set()
    for path in paths:
        for name in ("tool", "other", "dangling", "absent", "sh"):
            got = live_start.which(name, path)
            assert got == shutil.which(name, path=path), (name, path)
            seen.add(got is None)
    assert seen == {True, False}  # both answers were given


def test_starting_a_missing_tool_reads_path_as_shutil_would(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    env = {"PATH": str(bindir)}
    assert live_start.start(("no-such-tool-here",), env).error == "no-such-tool-here: not installed"
    _tool(bindir, "present", "true")
    started = live_start.start(("present",), env)
    assert started.error is None and started.proc is not None
    live_start.stop(started)
