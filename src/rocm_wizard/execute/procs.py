"""Processes of a run, told apart from reused pids by their start time (/proc/PID/stat).

The run lock and the journal record the executor's pid with its start time; the journal also
records the process group of every command a step starts (they run in their own session, so a
SIGKILL of the executor leaves them running).  ``resume`` and ``rollback`` find such a survivor
and wait for it, or end it, before they start anything.
"""
from __future__ import annotations

import os
import signal
import time
from typing import Any, Callable, Dict, List, Optional, Tuple


def proc_stat(pid: int) -> Optional[Tuple[int, int]]:
    """(process group, start time in clock ticks since boot) of ``pid`` from /proc/PID/stat; None
    when there is no such process (or only its zombie).  The start time tells a reused pid from the
    process recorded."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
        fields = text[text.rindex(")") + 2:].split()
        if fields[0] in ("Z", "X"):
            return None
        return int(fields[2]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def proc_start(pid: int) -> Optional[int]:
    st = proc_stat(pid)
    return st[1] if st else None


def same_process(pid, start) -> bool:
    """Is ``pid`` (recorded with its start time ``start``) still that very process?  Without a start
    time (an older journal) a live pid counts as the same."""
    try:
        pid = int(pid)
    except (TypeError, ValueError):
        return False
    if pid <= 0:
        return False
    now = proc_start(pid)
    if now is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except (PermissionError, OSError):
            return True
        return start is None  # alive but /proc says nothing (no /proc): only a start-less record trusts it
    return start is None or (isinstance(start, int) and not isinstance(start, bool) and now == start)


def group_members(pgid: Any, start: Any) -> List[int]:
    """Live processes of the process group ``pgid`` recorded with its leader's start time ``start``.
    While any member lives the kernel does not hand the number out again; if a process with that
    pid exists but started at another time, the recorded group is gone."""
    try:
        pgid = int(pgid)
    except (TypeError, ValueError):
        return []
    if pgid <= 1:
        return []
    leader = proc_start(pgid)
    if leader is not None and start is not None and leader != start:
        return []
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        st = proc_stat(int(name))
        if st and st[0] == pgid and (start is None or st[1] >= start):
            out.append(int(name))
    return out


def survivors(children: List[Dict[str, Any]]) -> List[Tuple[Dict[str, Any], List[int]]]:
    """The recorded command process groups that still have live processes."""
    out = []
    for child in children or []:
        if isinstance(child, dict):
            pids = group_members(child.get("pgid"), child.get("start"))
            if pids:
                out.append((child, pids))
    return out


def settle_survivors(children: List[Dict[str, Any]], say: Callable[[str], None], timeout: float,
                     poll: float = 0.5) -> None:
    """Wait up to ``timeout`` seconds for the commands an interrupted run left running (dpkg or pip
    must not be cut off if it can be helped), then end what is left (SIGTERM, then SIGKILL);
    ``say`` tells the person which it was."""
    left = survivors(children)
    if not left:
        return
    for child, pids in left:
        say(f"rocm-wizard: a command of the interrupted run is still running (step {child.get('step')}, "
            f"process group {child['pgid']}: {' '.join(map(str, child.get('argv') or []))}); waiting up to "
            f"{timeout:g}s for it to finish before anything else starts")
    end = time.monotonic() + timeout
    while left and time.monotonic() < end:
        time.sleep(poll)
        left = survivors(children)
    if not left:
        say("rocm-wizard: it finished; going on")
        return
    for child, _pids in left:
        say(f"rocm-wizard: still running after {timeout:g}s: ending process group {child['pgid']} "
            "(SIGTERM, then SIGKILL)")
        _signal_group(child["pgid"], signal.SIGTERM)
    end = time.monotonic() + 10
    while survivors(children) and time.monotonic() < end:
        time.sleep(0.2)
    for child, _pids in survivors(children):
        _signal_group(child["pgid"], signal.SIGKILL)
    end = time.monotonic() + 10
    while survivors(children) and time.monotonic() < end:
        time.sleep(0.2)
    say("rocm-wizard: ended it; what it left half done is repaired by the next steps")


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(int(pgid), sig)
    except (ProcessLookupError, PermissionError):
        pass
