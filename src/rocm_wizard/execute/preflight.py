"""Checks before (and during) a run: the dpkg/apt locks, ``dpkg --audit``, root, SSH without a
terminal multiplexer."""
from __future__ import annotations

import fcntl
import os
import shutil
import struct
import subprocess
import time
from typing import Callable, List, Optional, Tuple

# apt and dpkg take fcntl locks on these (unattended-upgrades holds them while it works)
LOCK_FILES = ("/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock", "/var/lib/apt/lists/lock",
              "/var/cache/apt/archives/lock")


def lock_holder(path: str) -> Optional[int]:
    """PID holding an fcntl write lock on ``path`` (0 when held by an unknown process), None when free."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        req = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0) + b"\0" * 4
        try:
            res = fcntl.fcntl(fd, fcntl.F_GETLK, req)
        except OSError:
            return None
        l_type, _whence, _start, _len, pid = struct.unpack("hhqqi", res[:struct.calcsize("hhqqi")])
        if l_type == fcntl.F_UNLCK:
            return None
        return pid
    finally:
        os.close(fd)


def process_name(pid: Optional[int]) -> str:
    if not pid:
        return "another process"
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
            return f"{fh.read().strip()} (pid {pid})"
    except OSError:
        return f"pid {pid}"


def held_locks(root: str = "/") -> List[Tuple[str, Optional[int]]]:
    out = []
    for path in LOCK_FILES:
        real = path if root in ("", "/") else os.path.join(root, path.lstrip("/"))
        holder = lock_holder(real)
        if holder is not None:
            out.append((path, holder))
    return out


def wait_for_locks(say: Callable[[str], None], timeout: float, root: str = "/", interval: float = 1.0,
                   stop: Optional[Callable[[], bool]] = None) -> Optional[str]:
    """Wait (bounded, visibly) until no package manager holds the dpkg/apt locks.  Returns None when
    free, else the reason it gave up."""
    held = held_locks(root)
    if not held:
        return None
    start = time.monotonic()
    path, pid = held[0]
    say(f"    waiting for {process_name(pid)} to release {path} (unattended-upgrades?); "
        f"giving up after {int(timeout)}s")
    next_note = start + 30
    while held:
        now = time.monotonic()
        if now - start >= timeout:
            path, pid = held[0]
            return (f"{process_name(pid)} still holds {path} after {int(timeout)}s; let it finish "
                    "(or stop it) and run again")
        if stop is not None and stop():
            return "stopped while waiting for the package manager lock"
        if now >= next_note:
            say(f"    still waiting for the package manager lock ({int(now - start)}s)")
            next_note = now + 30
        time.sleep(interval)
        held = held_locks(root)
    say(f"    the package manager lock is free (waited {time.monotonic() - start:.0f}s)")
    return None


def dpkg_audit() -> Tuple[Optional[bool], str]:
    """(clean?, output) of ``dpkg --audit``; (None, why) when it cannot run."""
    if shutil.which("dpkg") is None:
        return None, "dpkg is not installed"
    try:
        proc = subprocess.run(["dpkg", "--audit"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=120, env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    return (proc.returncode == 0 and not proc.stdout.strip()), proc.stdout.strip() or proc.stderr.strip()


def passwordless_sudo() -> bool:
    if shutil.which("sudo") is None:
        return False
    try:
        return subprocess.run(["sudo", "-n", "true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def over_ssh_without_multiplexer(env=None) -> bool:
    """Over SSH, not inside tmux or screen (a dropped connection would end the run)."""
    env = os.environ if env is None else env
    if env.get("TMUX") or env.get("STY") or env.get("ROCM_WIZARD_DETACHED"):
        return False
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY") or env.get("SSH_CLIENT"):
        return True
    names = _ancestor_names()  # sudo drops the SSH_* variables: look at the process tree too
    return any(n.startswith("sshd") for n in names) and not any(n.startswith(("tmux", "screen", "SCREEN"))
                                                                   for n in names)


def _ancestor_names(limit: int = 30) -> List[str]:
    names: List[str] = []
    pid = os.getppid()
    while pid > 1 and len(names) < limit:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
            names.append(stat[stat.find("(") + 1: stat.rfind(")")])
            pid = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return names
