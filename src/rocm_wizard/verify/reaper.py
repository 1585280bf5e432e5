"""The smoke test's keeper: ``python -I -S reaper.py CMD ARGS...`` runs CMD as its child and, when
CMD ends or this process gets SIGTERM, kills every process CMD left behind, then exits with CMD's
status.

It marks itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux 3.4+), so a descendant
whose parent dies is re-parented to it, not to init: a grandchild that called ``setsid`` and whose
parent exited (a daemon's double fork) is still found by walking ``/proc`` from this process down,
which a kill of the session or process group does not reach.  A process forked between the walk and
the kill is found by the next walk (its parent's death re-parents it here); walks repeat until none
is left.

Run by root's own interpreter in isolated mode with no site directories (``-I -S``): it imports
only the standard library and nothing a user controls.  Started by :mod:`rocm_wizard.verify.runner`.
"""
from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
ROUNDS = 200  # walks of /proc before giving up (each kills all it finds; a fork bomb outruns nothing here)


def set_subreaper() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict:
    """pid -> parent pid of every live process (zombies left out: they are dead already)."""
    out = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[0] != b"Z":
            out[int(name)] = int(fields[1])
    return out


def descendants(top: int) -> list:
    """Live processes below ``top`` (from /proc)."""
    children: dict = {}
    for pid, ppid in _parents().items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(top, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_all() -> None:
    me = os.getpid()
    for _ in range(ROUNDS):
        pids = descendants(me)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGSTOP)  # stopped first: none forks while the others die
            except OSError:
                pass
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
        _reap()
    _reap()


def main(argv: list) -> int:
    if not argv:
        sys.stderr.write("reaper: no command\n")
        return 64
    set_subreaper()
    try:
        child = os.fork()
    except OSError as exc:
        sys.stderr.write(f"rocm-wizard: cannot start {argv[0]}: {exc.strerror or exc}\n")
        return 127
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            try:
                sys.stderr.write(f"rocm-wizard: cannot start {argv[0]}: {exc.strerror or exc}\n")
                sys.stderr.flush()
            finally:
                os._exit(127)

    def stop(_sig, _frame):
        kill_all()
        os._exit(143)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides; it sends SIGTERM
    status = 0
    while True:
        try:
            pid, st = os.waitpid(-1, 0)  # reaps re-parented orphans too
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == child:
            status = st
            break
    kill_all()
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
