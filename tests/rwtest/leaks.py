"""What a test leaves behind: gpg-agent daemons.

gpg starts an agent for every GNUPGHOME it is used with, and the agent outlives the test (with the
directory of secret keys it serves).  An audit hook notes the GNUPGHOME of every gpg tool a test
starts; the root conftest's ``gpg_agents`` fixture stops those agents after the test (gpg starts
one again when a later test needs it).
"""
from __future__ import annotations

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
    del homes[since:]


def agents() -> List[str]:
    """The --homedir of every gpg-agent running on this machine (from /proc)."""
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
                found.append(os.fsdecode(words[i + 1]))
    return found
