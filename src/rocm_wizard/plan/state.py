"""The simulated state a dry run threads through the steps.

A :class:`PlanState` answers "what will this file / package / venv / group look like when this step
runs?": first from what earlier steps of the plan will have done (the overlay), then from the real
machine through the :class:`~rocm_wizard.plan.context.Context` (when it has one), then from what
detection recorded in the :class:`~rocm_wizard.model.System` (a snapshot), and otherwise
:data:`UNKNOWN`.  So a repository registered in step 2 makes its packages resolvable when step 5 is
checked, and a venv created in step 1 exists for step 3.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set, Union

from .context import Context, StepError


class _Unknown:
    _inst = None

    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        raise TypeError("UNKNOWN has no truth value: compare with `is UNKNOWN`")


UNKNOWN = _Unknown()

PRESENT, ABSENT, UNSURE = "present", "absent", "unknown"


def canon_dist(name: str) -> str:
    """PEP 503 normalized distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class FileView:
    state: str  # present | absent | unknown
    data: Optional[bytes] = None
    source: str = ""  # plan:<step> | file | snapshot
    approximate: bool = False  # rebuilt from detected lines, comments and order may differ

    @property
    def text(self) -> Optional[str]:
        return None if self.data is None else self.data.decode("utf-8", errors="replace")


@dataclass
class VenvView:
    exists: Optional[bool]  # None: unknown
    dists: Optional[Dict[str, str]] = None  # canonical name -> version; None: unknown
    python: Optional[str] = None  # interpreter version
    link_target: Optional[str] = None  # when the path is a symlink
    is_dir: Optional[bool] = None  # a real directory (not a symlink)
    source: str = ""
    created: bool = False  # created by an earlier step of the plan (not on disk yet)


@dataclass
class PlannedRepo:
    step: str
    uri: str
    suite: str


UNPACKED_STATES = ("installed", "unpacked", "half-configured", "triggers-awaited", "triggers-pending",
                   "half-installed")


def dpkg_unpacked_version(ctx: Context, name: str) -> Optional[str]:
    """The version of ``name`` whose files are on disk, also when dpkg was cut off before it
    configured it (the script's ``rw_pkg_unpacked``): dpkg's status file with its journal
    (/var/lib/dpkg/updates, records not yet merged) on top, as dpkg-query reads them.  None when
    not installed or not known."""
    texts = []
    journal = sorted((n for n in ctx.listdir("/var/lib/dpkg/updates") if n.isdigit()), key=int)
    for path in ["/var/lib/dpkg/status"] + [f"/var/lib/dpkg/updates/{n}" for n in journal]:
        try:
            data = ctx.read_bytes(path)
        except StepError:
            data = None
        texts.append((data or b"").decode("utf-8", errors="replace"))
    found: Optional[Dict[str, str]] = None
    for text in texts:
        for para in text.split("\n\n"):
            fields = {}
            for line in para.splitlines():
                key, sep, value = line.partition(": ")
                if sep and key in ("Package", "Version", "Status"):
                    fields[key] = value.strip()
            if fields.get("Package") == name:
                found = fields
    if found and found.get("Version"):
        status = found.get("Status", "").split()
        if status and status[-1] in UNPACKED_STATES:
            return found["Version"]
    return None


class PlanState:
    def __init__(self, ctx: Optional[Context] = None, system=None) -> None:
        self.ctx = ctx or Context.snapshot()
        self.system = system
        self.files: Dict[str, Optional[bytes]] = {}
        self.file_by: Dict[str, str] = {}
        self.packages: Dict[str, str] = {}  # name -> version (or "<prefix>*") after the plan
        self.package_by: Dict[str, str] = {}
        self.repos: List[PlannedRepo] = []
        self.venvs: Dict[str, VenvView] = {}
        self.links: Dict[str, str] = {}
        self.groups: Dict[str, Set[str]] = {}
        self.statuses: Dict[str, str] = {}  # step id -> ok | change | unknown
        self.notes: List[str] = []
        self._dpkg: Optional[Dict[str, str]] = None

    # ------------------------------------------------------------------ bookkeeping
    def record(self, step_id: str, status: str) -> None:
        self.statuses[step_id] = status

    def any_changed(self, ids: Iterable[str]) -> Optional[bool]:
        """True when one of ``ids`` will change something; None when one is unknown (and none
        is known to change); False when all are ok or not in the plan."""
        unknown = False
        for i in ids:
            st = self.statuses.get(i)
            if st == "change":
                return True
            if st == "unknown":
                unknown = True
        return None if unknown else False

    # ------------------------------------------------------------------ files
    def set_file(self, path: str, data: Optional[bytes], by: str) -> None:
        self.files[path] = data
        self.file_by[path] = by

    def file(self, path: str) -> FileView:
        if path in self.files:
            data = self.files[path]
            return FileView(PRESENT if data is not None else ABSENT, data, "plan:" + self.file_by[path])
        if self.ctx.filesystem:
            try:
                data = self.ctx.read_bytes(path)
            except StepError:
                return FileView(UNSURE, None, "file")
            return FileView(PRESENT if data is not None else ABSENT, data, "file")
        return self._snapshot_file(path)

    def listdir(self, path: str) -> Optional[List[str]]:
        """Names in a directory after the earlier steps (None: unknown)."""
        prefix = path.rstrip("/") + "/"
        if self.ctx.filesystem:
            names = set(self.ctx.listdir(path))
        else:
            names = self._snapshot_listdir(path)
            if names is None:
                planned = {p[len(prefix):] for p, d in self.files.items()
                           if p.startswith(prefix) and "/" not in p[len(prefix):] and d is not None}
                return sorted(planned) if planned else None
        for p, data in self.files.items():
            if p.startswith(prefix) and "/" not in p[len(prefix):]:
                if data is None:
                    names.discard(p[len(prefix):])
                else:
                    names.add(p[len(prefix):])
        return sorted(names)

    def _apt_sources(self):
        sysm = self.system
        if sysm is None:
            return None
        rocm = getattr(sysm, "rocm", None)
        if rocm is None or ("apt_sources" not in rocm.sources and not rocm.apt_sources):
            return None
        return rocm.apt_sources

    def _snapshot_file(self, path: str) -> FileView:
        srcs = self._apt_sources()
        if srcs is not None and path.startswith("/etc/apt/sources.list"):
            lines = [s.line for s in srcs if s.file == path and s.line]
            if not lines:
                return FileView(ABSENT, None, "snapshot")
            return FileView(PRESENT, ("\n".join(lines) + "\n").encode(), "snapshot", approximate=True)
        sysm = self.system
        if sysm is not None and path.startswith("/etc/apt/preferences"):
            rocm = getattr(sysm, "rocm", None)
            if rocm is not None and ("apt_pins" in rocm.sources or rocm.apt_pins):
                pins = [p for p in rocm.apt_pins if p.file == path]
                if not pins:
                    return FileView(ABSENT, None, "snapshot")
                text = "".join(f"Package: {p.package or '*'}\nPin: {p.pin or ''}\nPin-Priority: {p.priority}\n\n"
                               for p in pins)
                return FileView(PRESENT, text.rstrip("\n").encode() + b"\n", "snapshot", approximate=True)
        return FileView(UNSURE, None, "snapshot")

    def _snapshot_listdir(self, path: str) -> Optional[Set[str]]:
        srcs = self._apt_sources()
        if srcs is not None and path.rstrip("/") == "/etc/apt/sources.list.d":
            return {os.path.basename(s.file) for s in srcs
                    if s.file and s.file.startswith("/etc/apt/sources.list.d/")}
        return None

    # ------------------------------------------------------------------ packages
    def set_package(self, name: str, version: str, by: str) -> None:
        self.packages[name] = version
        self.package_by[name] = by

    def _dpkg_status(self) -> Optional[Dict[str, str]]:
        if self._dpkg is not None:
            return self._dpkg
        try:
            data = self.ctx.read_bytes("/var/lib/dpkg/status")
        except StepError:
            data = None
        if data is None:
            return None
        from ..execute.pkgdb import parse_dpkg_status

        self._dpkg = parse_dpkg_status(data.decode("utf-8", errors="replace"))
        return self._dpkg

    def package(self, name: str) -> Union[str, None, _Unknown]:
        """Installed version after the earlier steps; None when not installed."""
        if name in self.packages:
            return self.packages[name]
        if self.ctx.filesystem:
            status = self._dpkg_status()
            if status is not None:
                return status.get(name)
            return UNKNOWN
        sysm = self.system
        rocm = getattr(sysm, "rocm", None) if sysm is not None else None
        if rocm is not None and ("packages" in rocm.sources or rocm.packages) and _recorded_package(name):
            return rocm.packages.get(name)
        return UNKNOWN

    def apt_candidate(self, name: str) -> Union[str, None, _Unknown]:
        """What ``apt-get install name`` would install now (live only)."""
        if not self.ctx.commands:
            return UNKNOWN
        res = self.ctx.run(["apt-cache", "policy", name], timeout=60)
        if res.error or res.rc != 0:
            return UNKNOWN
        m = re.search(r"^\s*Candidate:\s*(\S+)", res.stdout, re.M)
        if not m:
            return None
        return None if m.group(1) == "(none)" else m.group(1)

    def apt_versions(self, name: str) -> Union[List[str], _Unknown]:
        """Every version apt knows for ``name`` now (live only)."""
        if not self.ctx.commands:
            return UNKNOWN
        res = self.ctx.run(["apt-cache", "madison", name], timeout=60)
        if res.error:
            return UNKNOWN
        out = []
        for line in res.stdout.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) >= 2 and parts[0] == name:
                out.append(parts[1])
        return out

    # ------------------------------------------------------------------ venvs
    def set_venv(self, path: str, view: VenvView) -> None:
        self.venvs[path] = view

    def venv(self, path: str) -> VenvView:
        if path in self.venvs:
            return self.venvs[path]
        if path in self.links:
            return self.venv(self.links[path])
        if self.ctx.filesystem:
            return self._live_venv(path)
        return self._snapshot_venv(path)

    def _live_venv(self, path: str) -> VenvView:
        ctx = self.ctx
        link = ctx.readlink(path) if ctx.islink(path) else None
        if not ctx.exists(path):
            return VenvView(False, {}, source="file")
        real = ctx.p(path)
        if not os.path.exists(os.path.join(real, "bin", "python")):
            return VenvView(False, {}, link_target=link, is_dir=ctx.isdir(path) and link is None, source="file")
        dists: Dict[str, str] = {}
        import glob  # lazily: only a live system's venvs are listed

        for info in glob.glob(os.path.join(glob.escape(real), "lib", "python*", "site-packages", "*.dist-info")):
            base = os.path.basename(info)[: -len(".dist-info")]
            if "-" not in base:
                continue
            name, version = base.split("-", 1)
            dists[canon_dist(name)] = version
        py = None
        cfg = ctx.read_text(path.rstrip("/") + "/pyvenv.cfg") or ""
        m = re.search(r"^\s*version(?:_info)?\s*=\s*(\S+)", cfg, re.M)
        if m:
            py = m.group(1)
        return VenvView(True, dists, py, link_target=link, is_dir=link is None, source="file")

    def _snapshot_venv(self, path: str) -> VenvView:
        env = self.torch_env(path)
        if env is None:
            return VenvView(None, None, source="snapshot")
        dists: Dict[str, str] = {}
        for k, v in (env.packages or {}).items():
            if v:
                dists[canon_dist(k)] = v
        for k, v in (env.triton or {}).items():
            if v:
                dists[canon_dist(k)] = v
        for name in ("torch", "torchvision", "torchaudio"):
            v = env.version if name == "torch" else getattr(env, name)
            if v:
                dists[name] = v
        return VenvView(True, dists, env.python, is_dir=True, source="snapshot")

    def torch_env(self, path: str):
        sysm = self.system
        if sysm is None:
            return None
        norm = path.rstrip("/")
        for env in getattr(sysm, "torch", []) or []:
            if env.path and env.path.rstrip("/") == norm:
                return env
        return None

    # ------------------------------------------------------------------ users and groups
    def set_groups(self, user: str, groups: Set[str]) -> None:
        self.groups[user] = set(groups)

    def groups_of(self, user: str) -> Union[Set[str], _Unknown]:
        if user in self.groups:
            return set(self.groups[user])
        if self.ctx.filesystem:
            got = groups_from_files(self.ctx.read_text("/etc/passwd"), self.ctx.read_text("/etc/group"), user)
            return UNKNOWN if got is None else got
        sysm = self.system
        acc = getattr(sysm, "access", None) if sysm is not None else None
        if acc is not None and acc.user == user and ("groups" in acc.sources or acc.groups):
            return set(acc.groups)
        return UNKNOWN

    def group_exists(self, group: str) -> Optional[bool]:
        if self.ctx.filesystem:
            text = self.ctx.read_text("/etc/group")
            if text is None:
                return None
            return any(line.split(":", 1)[0] == group for line in text.splitlines())
        return None

    def group_gid(self, group: str) -> Optional[int]:
        if not self.ctx.filesystem:
            return None
        for line in (self.ctx.read_text("/etc/group") or "").splitlines():
            parts = line.split(":")
            if len(parts) > 2 and parts[0] == group:
                try:
                    return int(parts[2])
                except ValueError:
                    return None
        return None


def _recorded_package(name: str) -> bool:
    """Whether detection records this package in a snapshot (it keeps ROCm's packages only)."""
    try:
        from ..detect.parsers.packages import is_rocm_package
    except ImportError:  # pragma: no cover - detection not in this build
        return False
    return bool(is_rocm_package(name))


def groups_from_files(passwd: Optional[str], group: Optional[str], user: str) -> Optional[Set[str]]:
    """Groups of ``user`` (primary and supplementary) from passwd/group texts; None if the user is
    unknown or the files are missing."""
    if passwd is None or group is None:
        return None
    gid = None
    for line in passwd.splitlines():
        parts = line.split(":")
        if len(parts) > 3 and parts[0] == user:
            gid = parts[3]
            break
    if gid is None:
        return None
    out: Set[str] = set()
    for line in group.splitlines():
        parts = line.split(":")
        if len(parts) < 4:
            continue
        members = [m for m in parts[3].split(",") if m]
        if parts[2] == gid or user in members:
            out.add(parts[0])
    return out
