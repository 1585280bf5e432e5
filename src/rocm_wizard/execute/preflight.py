"""Checks before (and during) a run: the dpkg/apt locks, ``dpkg --audit``, root, SSH without a
terminal multiplexer, the disk space an apt installation needs."""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import struct
import subprocess
import time
from typing import Callable, Dict, List, Optional, Tuple

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


# ---- disk space for an apt installation ------------------------------------------------------
# `apt-get -s` prints what it would do ("Inst NAME [OLD] (NEW ORIGIN [ARCH])", "Remv NAME [OLD]") but
# not apt's "After this operation, X will be used" line (only a real, prompting install prints it):
# the space is summed from the packages' own fields instead, Installed-Size (KiB, `apt-cache show`
# for the new versions, dpkg's status for the old ones) and Size (bytes of the .deb to download).
_INST = re.compile(r"^Inst (\S+?)(?::\S+)? (?:\[(\S+)\] )?\((\S+) ")
_REMV = re.compile(r"^Remv (\S+?)(?::\S+)?(?: |$)")


def _fields(text: str, names: Tuple[str, ...]) -> List[Dict[str, str]]:
    out: List[Dict[str, str]] = []
    cur: Dict[str, str] = {}
    for line in (text or "").splitlines() + [""]:
        if not line.strip():
            if cur:
                out.append(cur)
            cur = {}
            continue
        key, sep, value = line.partition(":")
        if sep and key in names:
            cur[key] = value.strip()
    return out


def apt_space_needed(run: Callable[..., object], simulation: str) -> Optional[Tuple[int, int]]:
    """(bytes the installed packages grow by, bytes to download) for the ``apt-get -s`` output
    ``simulation``; None when apt's or dpkg's fields cannot be read.  ``run(argv)`` returns an object
    with ``rc`` and ``stdout`` (the step context's runner)."""
    new: Dict[str, str] = {}
    gone: List[str] = []
    for line in (simulation or "").splitlines():
        m = _INST.match(line)
        if m:
            new[m.group(1)] = m.group(3)
            if m.group(2):
                gone.append(m.group(1))
            continue
        m = _REMV.match(line)
        if m:
            gone.append(m.group(1))
    if not new and not gone:
        return 0, 0
    grow = download = 0
    if new:
        res = run(["apt-cache", "show", "--no-all-versions"] + [f"{n}={v}" for n, v in new.items()])
        if getattr(res, "rc", 1) != 0:
            return None
        stanzas = _fields(getattr(res, "stdout", ""), ("Package", "Installed-Size", "Size"))
        try:
            grow += sum(int(s.get("Installed-Size", "0")) for s in stanzas) * 1024
            download += sum(int(s.get("Size", "0")) for s in stanzas)
        except ValueError:
            return None
    if gone:
        res = run(["dpkg-query", "-W", "-f=Package: ${Package}\nInstalled-Size: ${Installed-Size}\n\n"] + gone)
        stanzas = _fields(getattr(res, "stdout", ""), ("Package", "Installed-Size"))
        try:
            grow -= sum(int(s.get("Installed-Size") or "0") for s in stanzas) * 1024
        except ValueError:
            return None
    return grow, download


def _free(path: str) -> Optional[Tuple[int, int]]:
    """(device, bytes free to root) of the filesystem holding ``path`` (its nearest existing parent)."""
    p = path
    while not os.path.exists(p) and p not in ("", "/"):
        p = os.path.dirname(p.rstrip("/")) or "/"
    try:
        st = os.statvfs(p)
        return os.stat(p).st_dev, st.f_bfree * st.f_frsize
    except OSError:
        return None


def _mib(n: int) -> str:
    return f"{max(n, 0) / 1048576:.0f} MiB"


def disk_space_problem(grow: int, download: int, root: str = "/",
                       install_dir: str = "/opt", cache_dir: str = "/var/cache/apt/archives") -> Optional[str]:
    """Why the filesystems cannot hold an installation growing by ``grow`` bytes (ROCm goes to
    ``install_dir``) after downloading ``download`` bytes to apt's cache; None when they can (or
    their free space cannot be read)."""
    def real(p: str) -> str:
        return p if root in ("", "/") else os.path.join(root, p.lstrip("/"))

    inst, cache = _free(real(install_dir)), _free(real(cache_dir))
    if inst is None or cache is None:
        return None
    if inst[0] == cache[0]:
        need = max(grow, 0) + download
        if need > inst[1]:
            return (f"not enough disk space: the packages need about {_mib(need)} ({_mib(download)} to download to "
                    f"{cache_dir}, {_mib(grow)} more once installed, mostly under {install_dir}), and that "
                    f"filesystem has {_mib(inst[1])} free. Free some space (apt-get clean, old /opt/rocm-* "
                    "releases you no longer use) and run again")
        return None
    if download > cache[1]:
        return (f"not enough disk space: the packages' {_mib(download)} download does not fit in {cache_dir} "
                f"({_mib(cache[1])} free). Free some space (apt-get clean) and run again")
    if grow > inst[1]:
        return (f"not enough disk space: the packages need about {_mib(grow)} more once installed, mostly under "
                f"{install_dir}, which has {_mib(inst[1])} free. Free some space (old /opt/rocm-* releases you no "
                "longer use) and run again")
    return None
