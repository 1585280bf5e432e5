"""What a test leaves behind: gpg-agent daemons.

gpg starts an agent for every GNUPGHOME it is used with, and the agent outlives the test (with the
directory of secret keys it serves).  An audit hook notes the GNUPGHOME of every gpg tool a test
starts; the root conftest's ``gpg_agents`` fixture stops those agents after the test (gpg starts
one again when a later test needs it).
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from typing import List

homes: List[str] = []
_installed = False


def _hook(event: str, args) -> None:
    if event != "subprocess.Popen":
        return
    argv = args[1]
    if isinstance(argv, (str, bytes, os.PathLike)):
        argv = [argv]
    try:
        prog = os.path.basename(os.fsdecode(argv[0]))
    except (TypeError, IndexError):
        return
    if not prog.startswith("gpg") or prog == "gpgconf":
        return
    env = args[3] if args[3] is not None else os.environ
    home = env.get("GNUPGHOME") if hasattr(env, "get") else None
    if isinstance(home, bytes):
        home = os.fsdecode(home)
    if home and home not in homes:
        homes.append(home)


def install() -> None:
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def stop_agents(since: int = 0) -> None:
    """Stop the agents of the homes noted since index ``since`` (and forget those homes)."""
    for home in homes[since:]:
        if os.path.isdir(home):
            subprocess.run(["gpgconf", "--kill", "all"], env={**os.environ, "GNUPGHOME": home},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=False)
            wait_agents_gone(home)
    del homes[since:]


def wait_agents_gone(home: str, timeout: float = 15.0) -> None:
    """Wait until no gpg-agent of ``home`` runs.  ``gpgconf --kill`` asks the agent to stop and returns
    before it has exited (under load an agent was still in /proc when the next line looked: the
    sixteenth session's CI run); one still there when ``timeout`` runs out is sent SIGTERM."""
    import signal
    import time

    deadline = time.monotonic() + timeout
    while True:
        pids = _agent_pids(home)
        if not pids:
            return
        if time.monotonic() >= deadline:
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
            return
        time.sleep(0.05)


def _agent_pids(home: str) -> List[int]:
    return [pid for pid, its_home in _running_agents() if its_home == home]


def _running_agents() -> List[tuple]:
    """(pid, --homedir) of every gpg-agent running on this machine (from /proc)."""
    found = []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                words = fh.read().split(b"\0")
        except OSError:
            continue
        if words and os.path.basename(words[0]) == b"gpg-agent" and b"--homedir" in words:
            i = words.index(b"--homedir")
            if i + 1 < len(words):
                found.append((int(pid), os.fsdecode(words[i + 1])))
    return found


def agents() -> List[str]:
    """The --homedir of every gpg-agent running on this machine (from /proc)."""
    return [home for _pid, home in _running_agents()]
