"""Where detection gets its raw text from.

Detection never touches the system directly: probes ask a :class:`Source` for files, directory
listings, command outputs and environment variables.  Three sources exist:

* :class:`LiveSource` reads the running system (optionally under another root directory, which is
  how tests feed a captured sysfs tree) and runs commands with a timeout;
* ``bundle.BundleSource`` reads a snapshot bundle made by ``rocm-wizard snapshot`` (or any directory
  laid out the same way), plus loose pasted files recognised by content;
* :class:`RecordingSource` wraps a live source and keeps everything it returned, which is exactly
  what ``rocm-wizard snapshot`` writes into a bundle.

Every answer is a :class:`Raw`: the text (decoded leniently), a ``source`` label for provenance and,
when something went wrong, an ``error`` in plain words.  Nothing here raises on a missing file,
missing tool, permission problem, non-UTF-8 bytes or a hung command.
"""
from __future__ import annotations

import fnmatch
import os
import threading
import time
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple

from ..model import lean_dataclass

if TYPE_CHECKING:
    import subprocess

DEFAULT_TIMEOUT = 10.0
# A live detection's commands share one time budget: the probes run side by side, but one probe's
# commands run in turn, and a hung driver hangs every tool that talks to it (rocminfo, amd-smi,
# rocm-smi ... each to its own timeout).  Past the budget a command gets what is left of it, at
# least MIN_COMMAND_TIME, and every command that timed out is named in the report.
DETECT_BUDGET = 20.0
MIN_COMMAND_TIME = 1.0

# Environment variables that detection may read.  Nothing else from the environment is ever
# looked at, recorded in a snapshot, or logged.
GPU_ENV_PREFIXES = ("HSA_OVERRIDE_GFX_VERSION",)
GPU_ENV_NAMES = (
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "ROC_ENABLE_PRE_VEGA",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "PYTORCH_ROCM_ARCH",
    "HSA_ENABLE_SDMA",
    "AMD_LOG_LEVEL",
    "ROCM_PATH",
    "HIP_PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYTHONPATH",
    "PATH",
    "SUDO_USER",
    "USER",
    "HOME",
    "WSL_DISTRO_NAME",
    "HSA_ENABLE_DXG_DETECTION",  # librocdxg's switch under WSL (ROCm 7.2-10.0)
    "SSH_CONNECTION",
    "TMUX",
    "STY",
    "PWD",  # a triton/ directory in the working directory shadows the Triton package (python probe)
)


# Tool kinds and the command lines that produce them on a live system.  Probes ask for kinds;
# parsers accept every format a kind comes in (a live command's output or a user's paste).
KIND_COMMANDS: Dict[str, List[List[str]]] = {
    "rocminfo": [["rocminfo"]],
    "rocm-smi": [["rocm-smi", "--showproductname", "--showhw"]],
    "amd-smi": [["amd-smi", "static", "--asic", "--bus", "--vram", "--driver"]],
    "amd-smi-version": [["amd-smi", "version"]],
    "lspci": [["lspci", "-nn", "-D"]],
    "uname": [["uname", "-a"]],
    "mokutil": [["mokutil", "--sb-state"]],
    "lsmod": [],  # live: /proc/modules is read instead
    "dpkg": [["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n"]],
    "dpkg-audit": [["dpkg", "--audit"]],
    "dkms": [["dkms", "status"]],
    "apt-policy": [["apt-cache", "policy", "rocm-core", "rocm", "amdgpu-dkms", "rocminfo"]],
    "docker-version": [["docker", "version", "--format", "{{.Client.Version}} {{.Server.Version}}"]],
    "docker-images": [["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"]],
    # kinds that only come from pastes (or from files read by probes on a live system)
    "collect_env": [],
    "os-release": [],
    "pip-freeze": [],
    "dmesg": [],
    "error-log": [],
    "lshw": [],
    "dnf-list": [],
    "apt-list": [],
    # file contents users paste (``cat /etc/apt/sources.list.d/rocm.list`` ...); live: read as files
    "apt-sources": [],
    "apt-prefs": [],
    "kfd-properties": [],
    "rocm-info-version": [],  # cat /opt/rocm/.info/version
    "hipconfig": [],  # hipconfig [--version], cat share/hip/version; live: the file is read
    "rocm-sdk": [],  # rocm-sdk version / targets (the rocm pip wheels' CLI); live: the venv's files are read
    "opt-listing": [],  # ls /opt, ls -l /opt, update-alternatives --display rocm
    "pacman-list": [],  # pacman -Q (Arch)
}


def is_gpu_env(name: str) -> bool:
    return name in GPU_ENV_NAMES or any(name.startswith(p) for p in GPU_ENV_PREFIXES)


def decode(data: bytes) -> str:
    """Decode bytes as UTF-8, replacing anything that is not (never raises).  A text that starts with a UTF-16 byte
    order mark -- what Windows PowerShell 5's '>' writes, an output a user saved on the Windows side -- is decoded as
    UTF-16, and a UTF-8 byte order mark is dropped."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if data[:3] == b"\xef\xbb\xbf":
        return data[3:].decode("utf-8", errors="replace")
    return data.decode("utf-8", errors="replace")


@lean_dataclass
class Raw:
    """Text detection got (a file, a command's output or a paste), where from, and what went wrong."""

    text: Optional[str]
    source: str
    error: Optional[str] = None
    rc: Optional[int] = None
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return self.text is not None and self.error is None


@lean_dataclass
class CommandResult:
    """What running one command gave."""

    argv: Tuple[str, ...]
    stdout: str
    stderr: str
    rc: Optional[int]
    error: Optional[str]
    duration: float


def run_command(argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT, env: Optional[Dict[str, str]] = None,
                max_bytes: int = 8 * 1024 * 1024) -> CommandResult:
    """Run ``argv`` with a timeout; never raises.  A missing tool gives ``error='not installed'``."""
    from . import live_start  # (the one way a command is started: live_start.start, then collect)

    return CommandResult(tuple(argv), *live_start.collect(live_start.start(argv, env), timeout, max_bytes))


def kill_group(proc: subprocess.Popen) -> None:
    from .live_start import kill_group as kill

    kill(proc)


def command_key(argv: Sequence[str]) -> str:
    """File-name-safe key for a command line, used in bundles: ``rocm-smi --showproductname``
    -> ``rocm-smi__--showproductname``."""
    out = []
    for part in argv:
        part = os.path.basename(part) if part is argv[0] else part
        out.append("".join(c if (c.isalnum() or c in "-_.=") else "_" for c in part))
    return "__".join(out)


class Source:
    """Interface every probe uses.  Paths are absolute paths of the system being described."""

    kind = "abstract"

    def read(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> Raw:
        raise NotImplementedError

    def listdir(self, path: str) -> List[str]:
        """Names in a directory, sorted; empty when missing or unreadable."""
        raise NotImplementedError

    def exists(self, path: str) -> bool:
        raise NotImplementedError

    def readlink(self, path: str) -> Optional[str]:
        raise NotImplementedError

    def stat(self, path: str) -> Optional[Dict[str, object]]:
        """``{"mode": int, "uid": int, "gid": int, "is_dir": bool}`` or None."""
        raise NotImplementedError

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> Raw:
        raise NotImplementedError

    def env(self) -> Dict[str, str]:
        """The GPU-related environment (see :data:`GPU_ENV_NAMES`) only."""
        raise NotImplementedError

    def outputs(self, kind: str) -> List[Raw]:
        """Every output of a tool *kind* (see :data:`KIND_COMMANDS`) this source can give.

        Live: runs the kind's canonical command lines.  Bundles: the recorded outputs of those
        command lines plus every pasted text recognised as that kind.  Successful outputs only
        are useful to parsers, but failures are returned too so probes can note why.
        """
        return [self.run(argv) for argv in KIND_COMMANDS.get(kind, [])]

    def pastes(self) -> List[Tuple[str, str]]:
        """Loose texts (name, content) whose kind is decided by content; live sources have none."""
        return []

    def glob(self, pattern: str) -> List[str]:
        """Very small glob over :meth:`listdir` (``*`` in any path component)."""
        parts = pattern.strip("/").split("/")
        paths = ["/"]
        for part in parts:
            nxt = []
            for base in paths:
                if any(c in part for c in "*?["):
                    for name in self.listdir(base):
                        if fnmatch.fnmatchcase(name, part):
                            nxt.append(os.path.join(base, name))
                else:
                    candidate = os.path.join(base, part)
                    nxt.append(candidate)
            paths = nxt
        return sorted(p for p in paths if self.exists(p))


class LiveSource(Source):
    """The running system.  ``root`` re-bases file access (tests use a captured tree); commands run
    only when ``commands`` is true (a re-rooted source usually turns them off)."""

    kind = "live"

    def __init__(self, root: str = "/", commands: bool = True, environ: Optional[Dict[str, str]] = None,
                 timeout: float = DEFAULT_TIMEOUT, guard_venvs: Sequence[str] = (),
                 budget: float = DETECT_BUDGET) -> None:
        self.root = root
        self.commands = commands
        self._environ = dict(os.environ if environ is None else environ)
        self.timeout = timeout
        self.deadline = time.monotonic() + budget
        self.budget = budget
        self.notes: List[str] = []  # what the report must say about this source (commands that timed out)
        self._notes_lock = threading.Lock()
        self._started: Dict[Tuple[str, ...], object] = {}  # commands started ahead (prestart), not yet collected
        self.prestarted = False
        # venvs of other users (read by root): (real path of the venv, its owner's uid).  A file
        # read under one of them must be in the venv itself or belong to its owner: a link the
        # owner planted does not show them root's files (in a snapshot bundle, say)
        self._guards: List[Tuple[str, int]] = []
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            for venv in guard_venvs:
                try:
                    host = self._p(venv)
                    uid = os.stat(host).st_uid
                except (OSError, ValueError):
                    continue
                if uid != 0:
                    self._guards.append((os.path.realpath(host), uid))

    def _guarded_ok(self, path: str, fd: int) -> bool:
        host = os.path.abspath(self._p(path))
        for top, uid in self._guards:
            lexical = os.path.realpath(os.path.dirname(host))
            if not (host.startswith(top + os.sep) or lexical == top or lexical.startswith(top + os.sep)
                    or os.path.normpath(host) == top):
                continue
            try:
                opened = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                opened = ""
            if opened == top or opened.startswith(top + os.sep):
                return True
            return os.fstat(fd).st_uid == uid
        return True

    def _p(self, path: str) -> str:
        if self.root in ("", "/"):
            return path
        return os.path.join(self.root, path.lstrip("/"))

    def read(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> Raw:
        label = f"file:{path}"
        try:
            with open(self._p(path), "rb") as fh:
                if self._guards and not self._guarded_ok(path, fh.fileno()):
                    return Raw(None, label, "a link out of a user's venv to a file not theirs: not read")
                data = fh.read(max_bytes)
        except FileNotFoundError:
            return Raw(None, label, "not found")
        except PermissionError:
            return Raw(None, label, "permission denied")
        except IsADirectoryError:
            return Raw(None, label, "is a directory")
        except OSError as exc:
            return Raw(None, label, exc.strerror or str(exc))
        return Raw(decode(data), label)

    def listdir(self, path: str) -> List[str]:
        try:
            return sorted(os.listdir(self._p(path)))
        except OSError:
            return []

    def exists(self, path: str) -> bool:
        return os.path.lexists(self._p(path))

    def readlink(self, path: str) -> Optional[str]:
        try:
            return os.readlink(self._p(path))
        except OSError:
            return None

    def stat(self, path: str) -> Optional[Dict[str, object]]:
        import stat as st

        try:
            s = os.stat(self._p(path))
        except OSError:
            return None
        return {"mode": s.st_mode, "uid": s.st_uid, "gid": s.st_gid, "is_dir": st.S_ISDIR(s.st_mode),
                "access_rw": os.access(self._p(path), os.R_OK | os.W_OK), "mtime": s.st_mtime}

    def prestart(self, argvs: Iterable[Sequence[str]]) -> None:
        """Start ``argvs`` now, side by side, for :meth:`run` to collect when a probe asks (with the
        same timeout, counted from their start); those ``live_start.start_early`` started for this
        environment are taken as they are.  Detection then runs its probes in one thread
        (``_jobs.in_parallel``); :meth:`close` ends what no probe asked for."""
        if not self.commands:
            return
        from . import live_start

        env = live_start.command_env(self._environ)
        started = live_start.take(env) if self.root in ("", "/") else {}
        for argv in argvs:
            if tuple(argv) not in started:
                started[tuple(argv)] = live_start.start(argv, env)
        self._started.update(started)
        self.prestarted = True

    def close(self) -> None:
        """End the started commands that no probe collected (and their process groups)."""
        from . import live_start

        while self._started:
            live_start.stop(self._started.popitem()[1])

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> Raw:
        label = "cmd:" + " ".join(argv)
        if not self.commands:
            return Raw(None, label, "commands disabled for this source")
        env = dict(self._environ)
        env["LC_ALL"] = "C"
        wanted = timeout or self.timeout
        started = self._started.pop(tuple(argv), None) if self._started else None
        if started is not None:  # already running (prestart): its time counts from its start
            from . import live_start

            left = self.deadline - started.start
            res = CommandResult(tuple(argv), *live_start.collect(started, max(MIN_COMMAND_TIME, min(wanted, left)),
                                                                 8 * 1024 * 1024))
        else:
            left = self.deadline - time.monotonic()
            res = run_command(argv, timeout=max(MIN_COMMAND_TIME, min(wanted, left)), env=env)
        if res.error and res.rc is None and "timed out" in res.error:
            why = "" if left >= wanted else " (detection's %gs budget for commands was nearly spent)" % self.budget
            with self._notes_lock:
                self.notes.append("%s timed out%s: what it would have told is missing from this report (a hung "
                                  "GPU driver makes ROCm's tools hang; see dmesg)" % (" ".join(argv), why))
        if res.error:
            return Raw(res.stdout or None, label, res.error, res.rc, res.duration)
        text = res.stdout
        if res.rc != 0 and not text.strip():
            return Raw(None, label, f"exit status {res.rc}: {res.stderr.strip()[:200]}", res.rc, res.duration)
        return Raw(text, label, None, res.rc, res.duration)

    def env(self) -> Dict[str, str]:
        return {k: v for k, v in self._environ.items() if is_gpu_env(k)}

    # dpkg's database, read from its files for the two dpkg kinds (detect/dpkg_db.py): the same
    # text as the command where the files are certain to give it, else the command runs
    _DPKG_FILE_KINDS = ("dpkg", "dpkg-audit")
    _DPKG_MAX_BYTES = 64 * 1024 * 1024

    def outputs(self, kind: str) -> List[Raw]:
        if kind in self._DPKG_FILE_KINDS and self.commands:
            raw = self._dpkg_from_files(kind)
            if raw is not None:
                return [raw]
        if kind == "docker-version" and self.commands and self.root in ("", "/"):
            raw = self._docker_version()
            if raw is not None:
                return [raw]
        return super().outputs(kind)

    def _docker_version(self) -> Optional[Raw]:
        """``docker version``'s two versions from ``docker --version`` and the daemon's socket, without
        the CLI's round trip to the daemon (detect/docker_api.py); None: the command runs instead."""
        from . import docker_api

        if not docker_api.same_daemon(self._environ, docker_api.read_small_file):
            return None
        client = self.run(["docker", "--version"])
        if not client.ok:
            return None
        answer = docker_api.version_text(client.text, docker_api.DEFAULT_SOCKET,
                                         min(docker_api.TIMEOUT, max(0.1, self.deadline - time.monotonic())))
        if answer is None:
            return None
        text, rc = answer
        return Raw(text, "cmd:docker --version + %s GET /version" % docker_api.DEFAULT_SOCKET, None, rc, client.duration)

    def _dpkg_entries(self):
        """The status file's stanzas, read once (None: the files cannot answer for the tools)."""
        with self._notes_lock:
            if not hasattr(self, "_dpkg_cache"):
                self._dpkg_cache = self._read_dpkg_entries()
            return self._dpkg_cache

    def _read_dpkg_entries(self):
        from . import dpkg_db

        try:
            if os.listdir(self._p(dpkg_db.UPDATES)):
                return None  # a journal dpkg folds in before it answers
            path = self._p(dpkg_db.STATUS)
            if os.stat(path).st_size > self._DPKG_MAX_BYTES:
                return None
            # (line by line: the whole file's text is never held at once)
            with open(path, "r", encoding="utf-8", errors="replace", newline="\n") as fh:
                return dpkg_db.stanzas(fh)
        except (OSError, ValueError):
            return None

    def _dpkg_info_files(self):
        from . import dpkg_db

        try:
            with open(self._p(dpkg_db.INFO + "/format"), "rb") as fh:
                if fh.read(16).strip() != b"1":
                    return None  # the old layout names every info file without an architecture
            return set(os.listdir(self._p(dpkg_db.INFO)))
        except OSError:
            return None

    def _dpkg_from_files(self, kind: str) -> Optional[Raw]:
        from . import dpkg_db

        entries = self._dpkg_entries()
        if entries is None:
            return None
        label = "file:" + dpkg_db.STATUS
        if kind == "dpkg":
            rows = dpkg_db.query_rows(entries)
            if rows is None:
                return None
            raw = Raw("".join("%s\t%s\t%s\n" % row for row in rows), label, None, 0)
            # the lines as data too: the rocm probe takes them without parsing the text again
            # (parsers/packages.py from_query_rows); the text is what a snapshot keeps
            raw.dpkg_rows = rows  # type: ignore[attr-defined]
            return raw
        try:
            with open(self._p(dpkg_db.ADMIN + "/arch"), "rb") as fh:
                foreign = decode(fh.read(64 * 1024)).split()
        except FileNotFoundError:
            foreign = []
        except OSError:
            return None
        if dpkg_db.audit_clean(entries, self._dpkg_info_files, foreign):
            return Raw("", label, None, 0)
        return None


class RecordingSource(Source):
    """Wraps a source and remembers every answer, for ``rocm-wizard snapshot``."""

    kind = "live"

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.files: Dict[str, Raw] = {}
        self.dirs: Dict[str, List[str]] = {}
        self.links: Dict[str, Optional[str]] = {}
        self.stats: Dict[str, Optional[Dict[str, object]]] = {}
        self.commands: Dict[str, Tuple[Tuple[str, ...], Raw]] = {}
        self.existed: Dict[str, bool] = {}  # exists() answers (a bundle replays them through stats.json)
        self._lock = threading.Lock()

    def read(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> Raw:
        raw = self.inner.read(path, max_bytes)
        with self._lock:
            self.files[path] = raw
        return raw

    def listdir(self, path: str) -> List[str]:
        names = self.inner.listdir(path)
        with self._lock:
            self.dirs[path] = names
        return names

    def exists(self, path: str) -> bool:
        found = self.inner.exists(path)
        with self._lock:
            self.existed[path] = found
        return found

    def readlink(self, path: str) -> Optional[str]:
        target = self.inner.readlink(path)
        with self._lock:
            self.links[path] = target
        return target

    def stat(self, path: str) -> Optional[Dict[str, object]]:
        s = self.inner.stat(path)
        with self._lock:
            self.stats[path] = s
        return s

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> Raw:
        raw = self.inner.run(argv, timeout) if timeout else self.inner.run(argv)
        with self._lock:
            self.commands[command_key(argv)] = (tuple(argv), raw)
        return raw

    def env(self) -> Dict[str, str]:
        return self.inner.env()

    @property
    def notes(self) -> List[str]:
        return list(getattr(self.inner, "notes", []) or [])


def iter_text_files(root: str) -> Iterable[str]:
    for dirpath, _dirs, files in os.walk(root):
        for name in sorted(files):
            yield os.path.join(dirpath, name)
