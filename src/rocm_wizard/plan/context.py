"""Where steps read, write and run: one small object, so that the executor can point them at a
chroot/bwrap root and tests at a temporary directory, with no monkeypatching.

* ``root``: every absolute path a step names (``/etc/apt/sources.list.d/rocm.list``) is resolved
  under it for direct file access.  Commands get the *system* path, unchanged: a runner that
  executes inside the root (chroot, bwrap) sees the same file.
* ``runner``: ``runner(argv, input=None, env=None, timeout=None) -> CommandResult``; the default runs
  the command on this machine.
* ``fetcher``: ``fetcher(url) -> bytes`` (the signing key); default: urllib (http, https, file).
* ``filesystem`` / ``commands``: False for a context that describes a snapshot of another machine:
  nothing can be read there, so checks fall back to what detection recorded or say "unknown".
* ``changed``: ids of the steps that changed something in this run (AptUpdate runs after a source
  changed, ldconfig after its files, the reboot flag after the driver).
"""
from __future__ import annotations

import errno
import os
import shutil
import stat as _stat
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..detect.sources import CommandResult, decode

Runner = Callable[..., CommandResult]
Fetcher = Callable[..., bytes]  # (url) or (url, auth=(login, password))

DEFAULT_TIMEOUT = 3600.0
BACKUP_DIR = "/var/backups/rocm-wizard"


class StepError(Exception):
    """A step could not be applied; the message says why in plain words."""


def run_local(argv: Sequence[str], input: Optional[bytes] = None, env: Optional[Dict[str, str]] = None,
              timeout: Optional[float] = None) -> CommandResult:
    """Run ``argv`` here; never raises (a missing tool gives ``error='... not installed'``)."""
    import subprocess  # lazily: a plan built from a snapshot never runs anything

    start = time.monotonic()
    exe = argv[0]
    if os.sep not in exe and shutil.which(exe, path=(env or os.environ).get("PATH")) is None:
        return CommandResult(tuple(argv), "", "", None, f"{exe}: not installed", 0.0)
    try:
        proc = subprocess.run(list(argv), input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, timeout=timeout or DEFAULT_TIMEOUT, check=False,
                              stdin=None if input is not None else subprocess.DEVNULL,
                              start_new_session=True)  # no controlling terminal for what runs as a user
    except subprocess.TimeoutExpired as exc:
        return CommandResult(tuple(argv), decode(exc.stdout or b""), decode(exc.stderr or b""), None,
                             f"{exe}: timed out after {timeout or DEFAULT_TIMEOUT:g}s", time.monotonic() - start)
    except OSError as exc:
        return CommandResult(tuple(argv), "", "", None, f"{exe}: {exc.strerror or exc}", time.monotonic() - start)
    return CommandResult(tuple(argv), decode(proc.stdout), decode(proc.stderr), proc.returncode, None,
                         time.monotonic() - start)


def fetch_url(url: str, timeout: float = 60.0, auth: Optional[Tuple[str, str]] = None) -> bytes:
    """Download ``url`` (http, https or file), with ``auth`` = (login, password) as HTTP basic
    credentials (sent to that URL only, not along a redirect); raises :class:`StepError` with a
    readable reason."""
    import urllib.error
    import urllib.request

    if not url.startswith(("https://", "http://", "file://")):
        raise StepError(f"refusing to fetch {url!r}: only http, https and file URLs are allowed")
    class _NoDowngrade(urllib.request.HTTPRedirectHandler):
        """Redirects stay on https once the URL was https (as curl's --proto-redir =https)."""

        def redirect_request(self, req, fp, code, msg, headers, newurl):
            if req.full_url.startswith("https://") and not newurl.startswith("https://"):
                raise urllib.error.URLError(f"refusing the redirect from https to {newurl.split('://')[0]}")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    try:
        opener = urllib.request.build_opener(_NoDowngrade)
        req = urllib.request.Request(url)
        if auth is not None:
            import base64

            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
            req.add_unredirected_header("Authorization", "Basic " + token)
        with opener.open(req, timeout=timeout) as resp:  # noqa: S310 - scheme checked above
            return resp.read(4 * 1024 * 1024)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise StepError(f"cannot download {url}: {getattr(exc, 'reason', None) or exc}") from exc


class Context:
    def __init__(self, root: str = "/", runner: Optional[Runner] = None, env: Optional[Dict[str, str]] = None,
                 fetcher: Optional[Fetcher] = None, filesystem: bool = True, commands: bool = True,
                 log: Optional[Callable[[str], None]] = None, backup_dir: str = BACKUP_DIR,
                 run_id: Optional[str] = None, euid: Optional[int] = None, now: Optional[float] = None) -> None:
        self.root = root or "/"
        self.runner: Runner = runner or run_local
        self.env: Dict[str, str] = dict(os.environ if env is None else env)
        self.fetcher: Fetcher = fetcher or fetch_url
        self.filesystem = filesystem
        self.commands = commands
        self.log = log or (lambda _msg: None)
        self.backup_dir = backup_dir
        self.run_id = run_id or time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
        self.euid = os.geteuid() if euid is None else euid
        self.now = time.time() if now is None else now
        self.changed: Set[str] = set()

    @classmethod
    def snapshot(cls) -> "Context":
        """A context for a system known only through a snapshot: no files, no commands."""
        return cls(root="/", filesystem=False, commands=False, env={})

    # ---------------------------------------------------------------- paths and reading
    def p(self, path: str) -> str:
        """``path`` (absolute, on the target system) resolved under ``root``."""
        if not path.startswith("/"):
            raise StepError(f"internal error: step path {path!r} is not absolute")
        if self.root in ("", "/"):
            return path
        return os.path.join(self.root, path.lstrip("/"))

    def read_bytes(self, path: str) -> Optional[bytes]:
        """Content of a regular file, None when it does not exist.  Raises StepError when it
        exists but cannot be read."""
        try:
            with open(self.p(path), "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return None
        except IsADirectoryError as exc:
            raise StepError(f"{path} is a directory, a file was expected") from exc
        except OSError as exc:
            raise StepError(f"cannot read {path}: {exc.strerror or exc}") from exc

    def exists(self, path: str) -> bool:
        return os.path.lexists(self.p(path))

    def isdir(self, path: str) -> bool:
        return os.path.isdir(self.p(path))

    def islink(self, path: str) -> bool:
        return os.path.islink(self.p(path))

    def readlink(self, path: str) -> Optional[str]:
        try:
            return os.readlink(self.p(path))
        except OSError:
            return None

    def listdir(self, path: str) -> List[str]:
        try:
            return sorted(os.listdir(self.p(path)))
        except OSError:
            return []

    def owner(self, path: str) -> Optional[str]:
        """User name owning ``path`` or its nearest existing parent (per the root's /etc/passwd)."""
        probe = path
        while True:
            try:
                uid = os.lstat(self.p(probe)).st_uid
                break
            except OSError:
                parent = os.path.dirname(probe)
                if parent == probe:
                    return None
                probe = parent
        return self.user_name(uid)

    def user_name(self, uid: int) -> Optional[str]:
        """The account name of ``uid`` in the root's /etc/passwd (None when it has none)."""
        for line in (self.read_text("/etc/passwd") or "").splitlines():
            parts = line.split(":")
            if len(parts) > 2 and parts[2] == str(uid):
                return parts[0]
        return "root" if uid == 0 else None

    def venv_user(self, venv: str) -> Optional[str]:
        """The account that runs ``venv``'s interpreter (pip, uv, checks) and writes inside it: its
        owner when this run is root (rules: :mod:`rocm_wizard.runas`), None otherwise (the run's
        own user).  Raises :class:`StepError` for a venv a root run must not run."""
        if self.euid != 0:
            return None
        from ..runas import OwnerError, venv_owner

        try:
            return venv_owner(self.p(venv), self.user_name, shown=venv)
        except OwnerError as exc:
            raise StepError(str(exc)) from None

    def read_as(self, user: Optional[str], path: str) -> Tuple[Optional[bytes], Optional[int]]:
        """Content and mode of the regular file ``path`` read as ``user`` (a venv's owner) when this
        run is root, so that no link they planted shows root's files to them; (None, None) when it
        does not exist.  Raises :class:`StepError` for a link or anything but a regular file."""
        if not user or user == "root" or self.euid != 0:
            data = self.read_bytes(path)
            if data is None:
                return None, None
            try:
                return data, os.stat(self.p(path)).st_mode & 0o7777
            except OSError as exc:
                raise StepError(f"cannot read {path}: {exc.strerror or exc}") from None
        from ..runas import state_as

        try:
            kind, mode, data = state_as(user, self.p(path))
        except OSError as exc:
            raise StepError(f"cannot read {path} as {user}: {exc.strerror or exc}") from None
        if kind == "absent":
            return None, None
        if kind != "file":
            raise StepError(f"{path} is not a regular file (a {kind}); not reading it for {user}")
        return data, mode

    def read_text(self, path: str) -> Optional[str]:
        try:
            data = self.read_bytes(path)
        except StepError:
            return None
        return None if data is None else decode(data)

    # ---------------------------------------------------------------- writing
    def makedirs(self, path: str, mode: int = 0o755) -> None:
        os.makedirs(self.p(path), mode=mode, exist_ok=True)

    def write_atomic(self, path: str, data: bytes, mode: int = 0o644, owner: Optional[str] = None) -> None:
        """Write the whole file through a temporary file in the same directory and a rename, so a
        reader sees the old or the new content, never a half-written one."""
        from ..fsutil import write_atomic

        ids = self.user_ids(owner) if owner and self.euid == 0 else None
        write_atomic(self.p(path), data, mode, chown=ids)

    def write_as(self, user: Optional[str], path: str, data: bytes, mode: int = 0o644, journal: bool = True) -> None:
        """Write a file whole as ``user`` (a venv's owner, see :meth:`venv_user`): a root run does
        not write through paths another user controls, nor leave root's directories there.
        ``journal=False``: a record the run keeps (rollback leaves it in place)."""
        if not user or user == "root" or self.euid != 0:
            from ..fsutil import write_atomic

            write_atomic(self.p(path), data, mode)
            return
        from ..runas import write_as_argv

        self.check_call(write_as_argv(path, mode), input=data, user=user, timeout=120)

    def user_ids(self, user: str) -> Optional[tuple]:
        for line in (self.read_text("/etc/passwd") or "").splitlines():
            parts = line.split(":")
            if len(parts) > 3 and parts[0] == user:
                try:
                    return int(parts[2]), int(parts[3])
                except ValueError:
                    return None
        return None

    def backup(self, path: str) -> Optional[str]:
        """Copy ``path`` into this run's backup directory; returns the backup's system path."""
        if not self.exists(path):
            return None
        dest = f"{self.backup_dir.rstrip('/')}/{self.run_id}{path}"
        os.makedirs(os.path.dirname(self.p(dest)), exist_ok=True)
        shutil.copy2(self.p(path), self.p(dest), follow_symlinks=False)
        return dest

    def remove(self, path: str) -> None:
        try:
            os.unlink(self.p(path))
        except FileNotFoundError:
            pass

    def move_aside(self, path: str, aside: str, user: Optional[str] = None) -> None:
        """Rename the directory ``path`` to ``aside`` (which must not exist), as ``user`` when given
        and this run is root (the owner of the directory it is in)."""
        if os.path.lexists(self.p(aside)):
            raise StepError(f"{aside} exists already; not moving {path} there")
        if user and user != "root" and self.euid == 0:
            from ..runas import MOVE_AS_SH, run_as

            try:
                run_as(user, MOVE_AS_SH, self.p(path), self.p(aside))
            except OSError as exc:
                raise StepError(f"cannot move {path} to {aside}: {exc}") from None
            return
        os.rename(self.p(path), self.p(aside))

    def symlink_flip(self, link: str, target: str, user: Optional[str] = None) -> None:
        """Point ``link`` at ``target`` atomically (new link under a temporary name, then rename),
        as ``user`` when given and this run is root (the owner of the directory it is in).
        Refuses to replace anything but a symlink."""
        real = self.p(link)
        if os.path.lexists(real) and not os.path.islink(real):
            raise StepError(f"{link} exists and is not a symbolic link; not replacing it")
        if user and user != "root" and self.euid == 0:
            self.check_call(["ln", "-sfn", "--", target, f"{link}.rocm-wizard-new"], user=user, timeout=60)
            self.check_call(["mv", "-Tf", "--", f"{link}.rocm-wizard-new", link], user=user, timeout=60)
            return
        tmp = f"{real}.rocm-wizard-new"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.replace(tmp, real)

    # ---------------------------------------------------------------- commands
    def run(self, argv: Sequence[str], input: Optional[bytes] = None, env: Optional[Dict[str, str]] = None,
            timeout: Optional[float] = None, user: Optional[str] = None) -> CommandResult:
        """Run a command (as ``user`` when given and we are root: ``runuser -u user --``)."""
        argv = list(argv)
        full_env = dict(self.env)
        if self.euid == 0:
            from ..runas import as_user, owner_env

            if user and user != "root":  # root's secrets stay root's
                full_env = owner_env(self.env)
            argv = as_user(argv, user)
        full_env.setdefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        full_env["LC_ALL"] = "C"
        full_env.update(env or {})
        self.log("+ " + " ".join(argv))
        return self.runner(argv, input=input, env=full_env, timeout=timeout)

    def check_call(self, argv: Sequence[str], **kw) -> CommandResult:
        """Run and raise :class:`StepError` unless it exits 0."""
        res = self.run(argv, **kw)
        if res.error or res.rc != 0:
            tail = (res.stderr or res.stdout or "").strip().splitlines()[-5:]
            why = res.error or f"exit status {res.rc}"
            raise StepError(f"`{' '.join(argv)}` failed ({why})" + (": " + " | ".join(tail) if tail else ""))
        return res

    def which(self, name: str) -> bool:
        """Whether ``name`` is an executable on the target's PATH (looked up under ``root``)."""
        path = self.env.get("PATH") or "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        for d in path.split(os.pathsep):
            if d.startswith("/") and os.access(self.p(os.path.join(d, name)), os.X_OK):
                return True
        return False

    def fetch(self, url: str, auth: Optional[Tuple[str, str]] = None) -> bytes:
        return self.fetcher(url, auth=auth) if auth is not None else self.fetcher(url)

    def invoking_user(self, fallback: Optional[str] = None) -> Optional[str]:
        """The user a root run acts for: ``SUDO_USER`` under sudo, else ``fallback``."""
        user = self.env.get("SUDO_USER") or ""
        if user and user != "root":
            return user
        return fallback


def file_mode(value: object, default: int = 0o644) -> int:
    if isinstance(value, int):
        return value
    try:
        return int(str(value), 8)
    except (TypeError, ValueError):
        return default


def is_regular(ctx: Context, path: str) -> Optional[bool]:
    try:
        return _stat.S_ISREG(os.lstat(ctx.p(path)).st_mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise


def iter_existing(ctx: Context, paths: Iterable[str]) -> List[str]:
    return [p for p in paths if ctx.exists(p)]
