"""Where runs keep their logs, journal and backups.

* log root: ``$ROCM_WIZARD_LOG_DIR`` when set; ``/var/log/rocm-wizard`` for root; else the XDG state
  directory, ``${XDG_STATE_HOME:-~/.local/state}/rocm-wizard``;
* one directory per run, ``<log root>/<run id>/`` (``run.log``, ``events.jsonl``, ``journal.json``,
  ``plan.json``, ``answers.toml``, ``console.log`` for detached runs), and a ``latest`` link to the
  newest one, flipped atomically;
* backups of replaced files: ``/var/backups/rocm-wizard/<run id>/<path>`` for root (the plan
  engine's default), ``<log root>/backups/<run id>/<path>`` otherwise.
"""
from __future__ import annotations

import os
import re
import time
from typing import List, Optional

LOG_ENV = "ROCM_WIZARD_LOG_DIR"
SYSTEM_LOG_DIR = "/var/log/rocm-wizard"
SYSTEM_BACKUP_DIR = "/var/backups/rocm-wizard"
LATEST = "latest"
_RUN_ID = re.compile(r"^[0-9]{8}-[0-9]{6}-[0-9]+(-[a-z0-9]+)?$")


def euid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def log_root(env: Optional[dict] = None) -> str:
    env = os.environ if env is None else env
    explicit = env.get(LOG_ENV)
    if explicit:
        return os.path.abspath(explicit)
    if euid() == 0:
        return SYSTEM_LOG_DIR
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "rocm-wizard")


def backup_root(env: Optional[dict] = None) -> str:
    env = os.environ if env is None else env
    if euid() == 0 and not env.get(LOG_ENV):
        return SYSTEM_BACKUP_DIR
    return os.path.join(log_root(env), "backups")


def new_run_id(now: Optional[float] = None) -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"-{os.getpid()}"


def is_run_id(text: str) -> bool:
    return bool(_RUN_ID.match(text or ""))


def run_dir(run_id: str, root: Optional[str] = None) -> str:
    return os.path.join(root or log_root(), run_id)


def make_run_dir(run_id: str, root: Optional[str] = None) -> str:
    base = root or log_root()
    os.makedirs(base, mode=0o750, exist_ok=True)
    path = os.path.join(base, run_id)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def point_latest(run_id: str, root: Optional[str] = None) -> None:
    """Flip ``<root>/latest`` to ``run_id`` (a relative link, replaced atomically)."""
    base = root or log_root()
    link = os.path.join(base, LATEST)
    tmp = link + f".new{os.getpid()}"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.symlink(run_id, tmp)
    os.replace(tmp, link)


def list_runs(root: Optional[str] = None) -> List[str]:
    base = root or log_root()
    try:
        names = os.listdir(base)
    except OSError:
        return []
    return sorted(n for n in names if is_run_id(n) and os.path.isdir(os.path.join(base, n)))


def resolve_run(spec: Optional[str], root: Optional[str] = None) -> Optional[str]:
    """The run directory named by ``spec`` (a run id, a directory, or None/"latest" for the newest)."""
    base = root or log_root()
    if spec and spec != LATEST:
        if os.path.isdir(spec) and os.path.isfile(os.path.join(spec, "journal.json")):
            return os.path.abspath(spec)
        if is_run_id(spec) and os.path.isdir(os.path.join(base, spec)):
            return os.path.join(base, spec)
        return None
    link = os.path.join(base, LATEST)
    target = None
    try:
        target = os.readlink(link)
    except OSError:
        pass
    if target and is_run_id(os.path.basename(target)) and os.path.isdir(os.path.join(base, target)):
        return os.path.join(base, target)
    runs = list_runs(base)
    return os.path.join(base, runs[-1]) if runs else None


_HELD = []


def take_run_lock(root: Optional[str] = None) -> Optional[str]:
    """Hold ``<log root>/run.lock`` for the rest of this process, so two runs never interleave.
    Returns None when taken, else a message for the user (the run that holds it, or why the lock
    file cannot be written)."""
    import fcntl

    base = root or log_root()
    path = os.path.join(base, "run.lock")
    try:
        os.makedirs(base, mode=0o750, exist_ok=True)
        fh = open(path, "a+")
    except OSError as exc:
        return f"cannot write under {base}: {exc.strerror or exc}"
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        who = fh.read().strip() or "another process"
        fh.close()
        return f"another rocm-wizard run is in progress ({who}); wait for it, or follow it: rocm-wizard resume --follow"
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()}")
    fh.flush()
    _HELD.append(fh)
    return None
