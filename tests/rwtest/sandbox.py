"""Where commands that could change a machine run in the fast tiers: a read-only root.

:func:`argv` wraps a command in bwrap with the host's ``/`` mounted read-only, a private ``/tmp``,
no network (unless asked for) and its own PID namespace; only the directories the test names are writable.  Nothing
the command does can reach the host's files, packages or users -- root or not.  Real apt/dpkg/pip
runs belong to the integration tier (a Debian root made by mmdebstrap).

:func:`recorders` makes a directory of stand-ins for the commands that change a system (apt-get,
dpkg, usermod, docker, ldconfig...): each appends its argv to a log and exits 0, so a script run
against a fake root (``RW_ROOT``) with that directory first on PATH cannot reach the real tools
even if a guard in it is wrong.
"""
from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Iterable, List, Optional, Sequence

from . import ci, hoststate

# Commands that change a system, replaced by recorders in a fake root (queries such as dpkg-query,
# dpkg --compare-versions, curl or sudo stay real: the read-only root keeps them harmless).
CHANGING = ("apt-get", "apt", "apt-key", "usermod", "gpasswd", "groupadd", "useradd", "docker", "ldconfig",
            "modprobe", "systemctl", "update-initramfs", "dkms", "reboot", "shutdown")

_wrappers: set = set()

# What a sandboxed command must still read although ``/tmp`` is a fresh tmpfs inside: the checkout
# and its venv (a clone may live under /tmp) and pytest's base temporary directory (the root
# conftest adds it).  Each is bound read-only at its own path; the writable paths are bound after.
readable: List[str] = [str(ci.REPO), sys.prefix, os.path.dirname(os.path.abspath(sys.executable))]


def is_wrapper(path: str) -> bool:
    return path in _wrappers


def argv(command: Sequence[str], writable: Iterable = (), network: bool = False,
         chdir: Optional[str] = None, host_pids: bool = False) -> List[str]:
    """``command`` run in the read-only root (see the module's doc).  ``host_pids``: keep the
    host's PID namespace (for commands that must see processes the test started outside)."""
    bwrap = ci.tool("bwrap")
    out = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
    if not host_pids:
        out.append("--unshare-pid")
    if not network:
        out.append("--unshare-net")
    for path in dict.fromkeys(os.path.realpath(p) for p in readable):
        if _under_tmp(path) and os.path.exists(path):
            out += ["--ro-bind", path, path]
    for path in hoststate.MASKED:  # rocm-wizard's state on the host: an empty tmpfs inside
        if os.path.isdir(path):
            out += ["--tmpfs", path]
    for path in writable:
        p = os.path.realpath(str(path))
        out += ["--bind", p, p]
    if chdir:
        out += ["--chdir", chdir]
    return out + ["--", *[str(a) for a in command]]


def _under_tmp(path: str) -> bool:
    return path.startswith("/tmp/")  # /tmp itself stays the fresh tmpfs


def executable(directory, program: str = sys.executable, writable: Iterable = ()) -> str:
    """An executable file in ``directory`` that runs ``program ARGS...`` in the read-only root: for
    code that takes the path of an interpreter to start (the TUI's child run, for instance)."""
    path = Path(directory) / ("sandboxed-" + os.path.basename(program))
    wrapped = argv([program], writable=[directory, *writable])
    path.write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(a) for a in wrapped) + ' "$@"\n')
    path.chmod(0o755)
    _wrappers.add(str(path))
    return str(path)


def recorders(directory, names: Sequence[str] = CHANGING) -> Path:
    """A directory of recorders (see the module's doc); their calls go to ``directory/calls.log``."""
    bin_dir = Path(directory) / "recorders"
    bin_dir.mkdir(parents=True, exist_ok=True)
    log = Path(directory) / "calls.log"
    for name in names:
        p = bin_dir / name
        p.write_text(f"#!/bin/sh\nprintf '%s\\n' \"{name} $*\" >> {shlex.quote(str(log))}\n"
                     f"echo 'rwtest recorder: {name} does not run in a fake root' >&2\nexit 1\n")
        p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


def recorded(directory) -> List[str]:
    """The calls the recorders in ``directory`` saw, one line each (``name args...``)."""
    log = Path(directory) / "calls.log"
    return log.read_text().splitlines() if log.exists() else []
