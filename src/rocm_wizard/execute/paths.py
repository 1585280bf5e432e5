"""Where runs keep their logs, journal and backups.

* log root: ``$ROCM_WIZARD_LOG_DIR`` when set; ``/var/log/rocm-wizard`` for root; else the XDG state
  directory, ``${XDG_STATE_HOME:-~/.local/state}/rocm-wizard``;
* run as root, the log root and every run directory must be trusted before anything is read or
  written there (:func:`check_trusted`, :func:`open_trusted`): a real directory (not a link) owned
  by root, not writable by group or others, under directories owned by root that others cannot
  write.  Above it, a sticky directory such as /tmp is fine, and group write is tolerated only for
  a system group (gid up to 999) no person holds (:func:`human_holders`: no account with a uid in
  1000-60000 listed in it or having it as primary group), as on Ubuntu's ``root:syslog 0775``
  /var/log.  The walk opens every component from ``/`` with ``O_NOFOLLOW`` relative to the
  directory fd above it (a link above the root is read where it is and its target walked the same
  way); a missing log root or run directory is made with ``mkdir`` relative to that held fd, then
  opened with ``O_NOFOLLOW`` and set to its mode with ``fchmod`` (the log root and run directories
  are 0700).  Otherwise another user could plant a run that ``resume`` would execute, or a link
  that makes root write anywhere;
* ``run.lock`` in the log root serialises runs, ``resume`` and ``rollback``; it is opened with
  ``O_NOFOLLOW`` and records the holder's pid and process start time;
* one directory per run, ``<log root>/<run id>/`` (``run.log``, ``events.jsonl``, ``journal.json``,
  ``plan.json``, ``answers.toml``, ``console.log`` for detached runs), and a ``latest`` link to the
  newest one, flipped atomically;
* backups of replaced files: ``/var/backups/rocm-wizard/<run id>/<path>`` for root (the plan
  engine's default), ``<log root>/backups/<run id>/<path>`` otherwise.
"""
from __future__ import annotations

import os
import re
import stat
import time
from typing import List, Optional

from .procs import proc_start, same_process

LOG_ENV = "ROCM_WIZARD_LOG_DIR"
SYSTEM_LOG_DIR = "/var/log/rocm-wizard"
SYSTEM_BACKUP_DIR = "/var/backups/rocm-wizard"
LATEST = "latest"
_RUN_ID = re.compile(r"^[0-9]{8}-[0-9]{6}-[0-9]+(-[a-z0-9]+)?$")
SYS_GID_MAX = 999  # Debian/Ubuntu's SYS_GID_MAX (login.defs): groups of system services, not of people
UID_MIN, UID_MAX = 1000, 60000  # Debian/Ubuntu's login.defs: the accounts of people
LOG_ROOT_MODE = 0o700


class UntrustedPath(ValueError):
    """A log root or run directory that root must not use; the message names the path and the fix."""


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


# --------------------------------------------------------------------------- trust
def _fix(path: str) -> str:
    return (f"use a directory only root can change (sudo chown root:root {path} && sudo chmod 0700 {path}), "
            f"or unset {LOG_ENV} to use {SYSTEM_LOG_DIR}")


def human_holders(gid: int) -> Optional[List[str]]:
    """The accounts of people (uid in ``UID_MIN``-``UID_MAX``) that hold the group ``gid``, listed in
    it or having it as their primary group; None when the account databases cannot be read."""
    try:
        import grp
        import pwd

        listed = set(grp.getgrgid(gid).gr_mem)
        accounts = pwd.getpwall()
    except (ImportError, KeyError, OSError):
        return None
    out = set()
    for p in accounts:
        if UID_MIN <= p.pw_uid <= UID_MAX and (p.pw_gid == gid or p.pw_name in listed):
            out.add(p.pw_name)
    for name in listed - {p.pw_name for p in accounts}:
        out.add(name)  # a member with no local account (a network one): counted as a person
    return sorted(out)


def _group_name(gid: int) -> str:
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return f"gid {gid}"


def _check_dir(path: str, st: os.stat_result, final: bool) -> None:
    if not stat.S_ISDIR(st.st_mode):
        raise UntrustedPath(f"{path} is not a directory; refusing to use it for run logs: {_fix(path)}")
    if st.st_uid != 0:
        raise UntrustedPath(f"{path} belongs to uid {st.st_uid}, not root: another user could plant runs or links "
                            f"there that root would follow; refusing it: {_fix(path)}")
    mode = st.st_mode
    if final:
        bad = mode & 0o022
    else:  # above: others may write only into a sticky directory (/tmp); a group only a system one no person holds
        bad = mode & 0o002 and not mode & stat.S_ISVTX
        if not bad and mode & 0o020 and st.st_gid != 0 and not mode & stat.S_ISVTX:
            people = human_holders(st.st_gid) if st.st_gid <= SYS_GID_MAX else None
            if people is None or people:
                group = _group_name(st.st_gid)
                who = (f"{', '.join(people)} (in its group {group})" if people else
                       f"its group {group}, not a system group" if st.st_gid > SYS_GID_MAX else
                       f"its group {group}, whose members cannot be read")
                raise UntrustedPath(f"{path} is writable by {who} (mode {stat.S_IMODE(mode):04o}): they could swap the "
                                    f"run logs below it for their own; refusing it: sudo chmod g-w {path}"
                                    + (f", or take them out of the group (sudo gpasswd -d USER {group})" if people else "")
                                    + f"; or {_fix(path)}")
    if bad:
        raise UntrustedPath(f"{path} is writable by {'others' if mode & 0o002 else 'its group'} (mode "
                            f"{stat.S_IMODE(mode):04o}): another user could plant runs or links there; "
                            f"refusing it: {_fix(path)}")


_O_PATH = getattr(os, "O_PATH", 0)


def open_trusted(path: str, create: Optional[int] = None) -> int:
    """Run as root: an fd (O_RDONLY, O_DIRECTORY) of the directory ``path``, reached from ``/`` one
    component at a time with ``O_NOFOLLOW`` relative to the fd of the directory above, each checked
    (:func:`_check_dir`).  A link above ``path`` is read where it is (``readlinkat``) and its target
    walked the same way (a link in a directory only root can change was put there by root); ``path``
    itself must not be a link.  With ``create`` (a mode), missing directories are made with ``mkdir``
    relative to the held fd of their parent -- ``path`` itself ``create``, those above it 0755 --,
    opened without following links and set to that mode with ``fchmod``.  Raises
    :class:`UntrustedPath` (or OSError for an I/O failure)."""
    path = os.path.abspath(path)
    parts = [p for p in path.split("/") if p]
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    shown = "/"
    links = 0
    try:
        _check_dir("/", os.fstat(fd), final=not parts)
        while parts:
            name = parts.pop(0)
            here = os.path.join(shown, name) if name != ".." else (os.path.dirname(shown) or "/")
            final = not parts
            made = False
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if create is None:
                    raise UntrustedPath(f"{here} does not exist") from None
                try:
                    os.mkdir(name, create if final else 0o755, dir_fd=fd)
                    made = True
                except FileExistsError:
                    pass  # made meanwhile: judged below like any other
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                if final:
                    raise UntrustedPath(f"{here} is a symbolic link; refusing to follow it for run logs: {_fix(here)}")
                links += 1
                if links > 16:
                    raise UntrustedPath(f"{path}: too many symbolic links above it")
                target = os.readlink(name, dir_fd=fd)
                parts = [p for p in target.split("/") if p] + parts
                if target.startswith("/"):
                    nfd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                    os.close(fd)
                    fd, shown = nfd, "/"
                else:
                    pass  # relative to the directory the link is in: fd stays
                continue
            try:
                nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as exc:
                raise UntrustedPath(f"{here} is not a directory root can use for run logs ({exc.strerror}): "
                                    f"{_fix(here)}") from None
            os.close(fd)
            fd = nfd
            if made:
                os.fchmod(fd, create if final else 0o755)
            _check_dir(here, os.fstat(fd), final)
            shown = here
        return fd
    except BaseException:
        os.close(fd)
        raise


def check_trusted(path: str) -> None:
    """Run as root, raise :class:`UntrustedPath` unless ``path`` is a directory only root can change,
    reached through directories that are safe as well (:func:`open_trusted`).  Not run as root
    nothing is checked: the files are the user's own, and root never acts on them (it checks them
    itself when it is run)."""
    if euid() != 0:
        return
    os.close(open_trusted(path))


def ensure_dir(path: str, mode: int) -> str:
    """Create ``path`` (mode ``mode``) when missing, then check it: run as root, made from held
    directory fds and checked on the way (:func:`open_trusted`)."""
    if euid() != 0:
        try:
            os.makedirs(path, mode=mode, exist_ok=True)
        except FileExistsError:
            pass
        return path
    os.close(open_trusted(path, create=mode))
    return path


def make_run_dir(run_id: str, root: Optional[str] = None) -> str:
    base = ensure_dir(root or log_root(), LOG_ROOT_MODE)
    if not is_run_id(run_id):
        raise UntrustedPath(f"{run_id!r} is not a run id")
    return ensure_dir(os.path.join(base, run_id), 0o700)


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


def log_root_of(run_dir: str) -> str:
    """The log root a run directory belongs to (the one whose ``run.lock`` guards it)."""
    return os.path.dirname(os.path.abspath(run_dir))


def list_runs(root: Optional[str] = None) -> List[str]:
    base = root or log_root()
    try:
        names = os.listdir(base)
    except OSError:
        return []
    return sorted(n for n in names if is_run_id(n) and os.path.isdir(os.path.join(base, n)))


def resolve_run(spec: Optional[str], root: Optional[str] = None) -> Optional[str]:
    """The run directory named by ``spec`` (a run id, a directory, or None/"latest" for the newest).
    Run as root, the directory and the log root it lies in are checked first
    (:class:`UntrustedPath` when another user could have planted it)."""
    base = root or log_root()
    if spec and spec != LATEST and not is_run_id(spec):
        if os.path.isdir(spec) and os.path.isfile(os.path.join(spec, "journal.json")):
            found = os.path.abspath(spec)
            check_trusted(found)
            return found
        return None
    if os.path.lexists(base):
        check_trusted(base)
    found = _resolve_in(spec, base)
    if found is not None:
        check_trusted(found)
    return found


def _resolve_in(spec: Optional[str], base: str) -> Optional[str]:
    if spec and spec != LATEST:
        return os.path.join(base, spec) if os.path.isdir(os.path.join(base, spec)) else None
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


def _holder(text: str) -> str:
    m = re.match(r"^pid (\d+)(?: start (\d+))?", text.strip())
    if not m:
        return "another process"
    pid, start = int(m.group(1)), (int(m.group(2)) if m.group(2) else None)
    return f"pid {pid}" if same_process(pid, start) else "another process"


def take_run_lock(root: Optional[str] = None) -> Optional[str]:
    """Hold ``<log root>/run.lock`` for the rest of this process, so two runs (or a run and a
    ``resume`` or ``rollback``) never interleave.  Returns None when taken, else a message for the
    user (the run that holds it, or why the lock cannot be taken).  The lock file is opened with
    O_NOFOLLOW in a checked log root and must be a plain file of ours: a planted link never makes
    root write elsewhere."""
    import fcntl

    base = root or log_root()
    path = os.path.join(base, "run.lock")
    try:
        ensure_dir(base, LOG_ROOT_MODE)
    except UntrustedPath as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot write under {base}: {exc.strerror or exc}"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            return f"{path} is a symbolic link; refusing to open it (remove it: sudo rm {path})"
        return f"cannot write under {base}: {exc.strerror or exc}"
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid not in (0, euid()) or st.st_nlink != 1:
        os.close(fd)
        return f"{path} is not a plain lock file of this user; refusing to use it (remove it: sudo rm {path})"
    fh = os.fdopen(fd, "r+")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        who = _holder(fh.read(200))
        fh.close()
        return f"another rocm-wizard run is in progress ({who}); wait for it, or follow it: rocm-wizard resume --follow"
    try:
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} start {proc_start(os.getpid())}\n")
        fh.flush()
    except OSError as exc:  # a full log disk (ENOSPC), a quota: a clear refusal, not a traceback
        try:
            fh.close()
        except OSError:
            pass
        return f"cannot write under {base}: {exc.strerror or exc} (free some space there and run again)"
    _HELD.append(fh)
    return None
