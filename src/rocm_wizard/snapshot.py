"""``rocm-wizard snapshot``: record exactly what detection reads, scrub it, write a bundle.

Live detection runs through a :class:`~rocm_wizard.detect.sources.RecordingSource`; every file,
listing, link, stat and command output it answered is written into a ``.tar.gz`` in the layout that
:mod:`rocm_wizard.detect.bundle` reads (``manifest.json``, ``files/<abs path>``, ``dirs.json``,
``links.json``, ``stats.json``, ``commands/<command_key>.txt``, ``env.json``), inside one top-level
folder ``rocm-wizard-snapshot/``.  ``rocm-wizard detect --snapshot bundle.tar.gz`` on any machine
then gives the same System the live run gave (with the home directory shown as ``~``).

What is removed or masked before anything is written (:class:`Scrubber`):

* the environment: only the GPU-related names of ``sources.GPU_ENV_NAMES``; the values of
  ``SSH_CONNECTION``, ``TMUX`` and ``STY`` (addresses, socket paths, host names) are masked;
* the home directory (``$HOME`` and ``/home/$SUDO_USER``) becomes ``~`` in every path and text;
  the listing of the home directory keeps only the entries detection found something under;
* the host name (unless ``--include-hostname``): in ``uname -a`` and wherever it appears as a word
  in recorded text (names too generic to replace safely are only removed from ``uname``);
* user:password in URLs (private mirrors in apt sources);
* the kernel log keeps only GPU-related lines and lines with a known error signature;
  ``docker images`` keeps only ``rocm/*`` images; ``/etc/group`` keeps only the groups detection
  looked up, with other users removed; ``/proc/self/status`` keeps only its Uid/Gid/Groups lines;
  serial-number files are masked.

The bundle is written to a temporary file next to the target and renamed into place, so a reader
never sees half a bundle.
"""
from __future__ import annotations

import io
import json
import os
import posixpath
import re
import tarfile
import time
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence

from . import __version__
from .fsutil import write_atomic as _write_atomic
from .detect.sources import LiveSource, RecordingSource, Source, command_key, is_gpu_env
from .termsafe import json_c1

TOP = "rocm-wizard-snapshot"
FORMAT = "rocm-wizard-snapshot"
FORMAT_VERSION = 1
MASK = "<redacted>"
HOST_MASK = "HOSTNAME"
MASKED_ENV = ("SSH_CONNECTION", "TMUX", "STY")
# host names that are also ordinary words in tool output: only scrubbed from uname
_GENERIC_HOSTS = {"localhost", "ubuntu", "debian", "arch", "archlinux", "fedora", "linux", "rocm", "gpu", "amd",
                  "docker", "computer", "server", "desktop", "workstation", "pc", "host", "node", "kernel", "root",
                  "user", "home", "radeon", "instinct", "container", "none", "unknown"}
_SERIAL_FILES = ("serial_number", "unique_id", "product_serial", "board_serial", "chassis_serial", "product_uuid")
_URL_CREDS = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.I)
_DMESG_KEEP = re.compile(r"amdgpu|amdkfd|\bkfd\b|\bdrm\b|\[drm|\bttm\b|radeon|amdxcp|amdkcl|\bgpu\b|iommu|Linux version",
                         re.I)
DMESG_KEYS = ("dmesg",)


class SnapshotWriteError(Exception):
    """The bundle could not be written (the message is for the user)."""


# -- scrubbing ---------------------------------------------------------------------------------------

@dataclass
class Scrubber:
    homes: List[str] = field(default_factory=list)
    hostname: Optional[str] = None  # None: keep host names
    user: Optional[str] = None

    def __post_init__(self) -> None:
        self.homes = sorted({h.rstrip("/") for h in self.homes if h and h.rstrip("/") not in ("", "/")},
                            key=len, reverse=True)
        self._home_rx = [re.compile(re.escape(h) + r"(?=/|$|[^\w.-])") for h in self.homes]
        host = self.hostname or ""
        self._host_rx = None
        if host and len(host) >= 3 and host.lower() not in _GENERIC_HOSTS:
            self._host_rx = re.compile(r"(?<![\w.-])" + re.escape(host) + r"(?![\w-])")

    def path(self, path: str) -> str:
        for rx in self._home_rx:
            if rx.match(path):
                return rx.sub("~", path, count=1)
        return path

    def text(self, text: Optional[str]) -> Optional[str]:
        if text is None:
            return None
        for rx in self._home_rx:
            text = rx.sub("~", text)
        text = _URL_CREDS.sub(lambda m: m.group(1) + MASK + "@", text)
        if self._host_rx is not None:
            text = self._host_rx.sub(HOST_MASK, text)
        return text

    def uname(self, text: Optional[str]) -> Optional[str]:
        """``Linux myhost 6.8.0 ...`` -> ``Linux HOSTNAME 6.8.0 ...`` (even for generic names)."""
        if text is None or self.hostname is None:
            return text
        return re.sub(r"^(\s*Linux\s+)(\S+)(\s+\d)", lambda m: m.group(1) + HOST_MASK + m.group(3), text, flags=re.M)


def _filter_lines(text: Optional[str], keep) -> Optional[str]:
    if text is None:
        return None
    kept = [l for l in text.splitlines() if keep(l)]
    return "\n".join(kept) + ("\n" if kept else "")


def _dmesg_keep(line: str) -> bool:
    from .detect import error_signatures

    if _DMESG_KEEP.search(line):
        return True
    return bool(error_signatures.scan(line, limit=1))


def _group_file(text: Optional[str], gids: Iterable[int], user: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    wanted = set(gids)
    out = []
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) < 3:
            continue
        if (parts[2].isdigit() and int(parts[2]) in wanted) or parts[0] in ("render", "video", "docker"):
            members = parts[3].split(",") if len(parts) > 3 else []
            parts = parts[:3] + [",".join(m for m in members if user and m == user)]
            parts[1] = "x"
            out.append(":".join(parts))
    return "\n".join(out) + ("\n" if out else "")


def _proc_status(text: Optional[str]) -> Optional[str]:
    return _filter_lines(text, lambda l: l.startswith(("Uid:", "Gid:", "Groups:")))


# -- building -----------------------------------------------------------------------------------------

@dataclass
class Bundle:
    members: Dict[str, bytes]
    manifest: Dict[str, object]


def _hit_paths(rec: RecordingSource) -> List[str]:
    hits = [p for p, r in rec.files.items() if r.text is not None]
    hits += [p for p, names in rec.dirs.items() if names]
    hits += [p for p, s in rec.stats.items() if s is not None]
    hits += [p for p, t in rec.links.items() if t is not None]
    hits += [p for p, found in getattr(rec, "existed", {}).items() if found]
    return hits


def build(rec: RecordingSource, *, venvs: Sequence[str] = (), include_hostname: bool = False,
          hostname: Optional[str] = None, homes: Sequence[str] = (), created: Optional[float] = None) -> Bundle:
    """Turn what ``rec`` recorded into bundle members (scrubbed); nothing is written."""
    env = {k: v for k, v in rec.env().items() if is_gpu_env(k)}
    user = env.get("SUDO_USER") or env.get("USER")
    home_list = list(homes) or [h for h in (env.get("HOME"),) if h]
    if env.get("SUDO_USER"):
        home_list.append("/home/" + env["SUDO_USER"])
    scrub = Scrubber(homes=home_list, hostname=None if include_hostname else hostname, user=user)

    members: Dict[str, bytes] = {}
    file_errors: Dict[str, Dict[str, str]] = {}
    gids = set()
    for st in rec.stats.values():
        if isinstance(st, dict) and isinstance(st.get("gid"), int):
            gids.add(st["gid"])
    status = rec.files.get("/proc/self/status")
    if status is not None and status.text:
        for line in status.text.splitlines():
            if line.startswith(("Groups:", "Gid:")):
                gids.update(int(x) for x in line.split(":", 1)[1].split() if x.isdigit())
    for _key, (argv, raw) in rec.commands.items():
        if argv and os.path.basename(argv[0]) == "id" and raw.text:
            gids.update(int(g) for g in re.findall(r"(\d+)\(", raw.text.split("groups=", 1)[-1]))

    for path, raw in sorted(rec.files.items()):
        spath = scrub.path(path)
        if raw.text is None:
            file_errors[spath] = {"error": raw.error or "unreadable"}
            continue
        text = raw.text
        base = posixpath.basename(path)
        if path == "/etc/group":
            text = _group_file(text, gids, user)
        elif path == "/proc/self/status":
            text = _proc_status(text)
        elif base in _SERIAL_FILES:
            text = MASK + "\n"
        elif path in ("/proc/sys/kernel/hostname", "/etc/hostname") and not include_hostname:
            text = HOST_MASK + "\n"
        text = scrub.text(text)
        members["files/" + spath.lstrip("/")] = (text or "").encode("utf-8")

    dirs: Dict[str, List[str]] = {}
    hits = [scrub.path(p) for p in _hit_paths(rec)]
    removed: List[str] = []  # "~/name" entries of the home listing that led nowhere
    for path, names in sorted(rec.dirs.items()):
        spath = scrub.path(path)
        if spath == "~":
            kept = [n for n in names if any(h == "~/" + n or h.startswith("~/" + n + "/") for h in hits)]
            removed += ["~/" + n for n in names if n not in kept]
            names = kept
        dirs[spath] = list(names)

    def hidden(spath: str) -> bool:
        return any(spath == r or spath.startswith(r + "/") for r in removed)

    dirs = {k: v for k, v in dirs.items() if not hidden(k)}
    # a missing answer reads back as None anyway: keep only the answers that say something
    links = {scrub.path(p): scrub.text(t) for p, t in sorted(rec.links.items()) if t is not None}
    stats = {scrub.path(p): dict(s) for p, s in sorted(rec.stats.items()) if isinstance(s, dict)}
    # exists() answers: a bundle says "exists" for a path it has a stat of
    for path, found in sorted(getattr(rec, "existed", {}).items()):
        spath = scrub.path(path)
        if found and spath not in stats:
            st = rec.inner.stat(path)
            stats[spath] = dict(st) if isinstance(st, dict) else {"is_dir": False}
    for spath in [k for k in file_errors if hidden(k)]:
        del file_errors[spath]
    for name in [n for n in members if n.startswith("files/") and hidden(n[len("files/"):])]:
        del members[name]

    commands: Dict[str, Dict[str, object]] = {}
    for _key, (argv, raw) in sorted(rec.commands.items()):
        sargv = [scrub.text(a) or a for a in argv]
        key = command_key(sargv)
        text = raw.text
        prog = os.path.basename(argv[0]) if argv else ""
        if prog == "uname":
            text = scrub.uname(text)
        elif prog == "dmesg" or prog == "journalctl":
            text = _filter_lines(text, _dmesg_keep)
        elif prog == "docker" and len(argv) > 1 and argv[1] == "images":
            text = _filter_lines(text, lambda l: l.split()[0].startswith("rocm/") if l.split() else False)
        text = scrub.text(text)
        commands[key] = {"argv": sargv, "rc": raw.rc, "error": scrub.text(raw.error) if raw.error else None,
                         "duration": round(raw.duration, 3)}
        if text is not None:
            members["commands/%s.txt" % key] = text.encode("utf-8")

    senv = {}
    for k, v in sorted(env.items()):
        if k in MASKED_ENV:
            senv[k] = MASK
        else:
            senv[k] = scrub.text(v) or ""
    manifest: Dict[str, object] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created if created is not None else time.time())),
        "tool_version": __version__,
        "venvs": [scrub.path(v) for v in venvs],
        "hostname_included": bool(include_hostname),
        "home": "~" if scrub.homes else None,
        "commands": commands,
        "files": file_errors,
    }
    members["manifest.json"] = _json(manifest)
    members["dirs.json"] = _json(dirs)
    members["links.json"] = _json(links)
    members["stats.json"] = _json(stats)
    members["env.json"] = _json(senv)
    return Bundle(members, manifest)


def _json(obj: object) -> bytes:
    return (json_c1(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False)) + "\n").encode("utf-8")


# -- writing ---------------------------------------------------------------------------------------------

def tar_bytes(bundle: Bundle, mtime: Optional[float] = None) -> bytes:
    buf = io.BytesIO()
    mt = int(mtime if mtime is not None else time.time())
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=6) as tf:
        for name in sorted(bundle.members):
            data = bundle.members[name]
            info = tarfile.TarInfo(TOP + "/" + name)
            info.size = len(data)
            info.mtime = mt
            info.mode = 0o644
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def write_atomic(path: str, data: bytes) -> None:
    """Write the bundle whole (:func:`rocm_wizard.fsutil.write_atomic`), errors as SnapshotWriteError."""
    target = os.path.abspath(path)
    directory = os.path.dirname(target) or "."
    if not os.path.isdir(directory):
        raise SnapshotWriteError("%s: the directory does not exist" % directory)
    if os.path.isdir(target):
        raise SnapshotWriteError("%s is a directory; give a file name such as bundle.tar.gz" % path)
    umask = os.umask(0)
    os.umask(umask)
    try:
        _write_atomic(target, data, 0o644 & ~umask)
    except OSError as exc:
        raise SnapshotWriteError("cannot write %s: %s" % (path, exc.strerror or exc)) from None


def _live_hostname(rec: RecordingSource, root: str) -> Optional[str]:
    for _key, (argv, raw) in rec.commands.items():
        if argv and os.path.basename(argv[0]) == "uname" and raw.text:
            m = re.match(r"^\s*Linux\s+(\S+)\s+\d", raw.text)
            if m:
                return m.group(1)
    if root in ("", "/"):
        try:
            return os.uname().nodename or None
        except (AttributeError, OSError):
            return None
    inner = getattr(rec.inner, "read", None)
    if inner is not None:
        raw = rec.inner.read("/proc/sys/kernel/hostname", 256)
        if raw.text:
            return raw.text.strip() or None
    return None


def take(out: Optional[str], venvs: Sequence[str] = (), include_hostname: bool = False, source: Optional[Source] = None,
         root: str = "/"):
    """Detect through a recording source and write the bundle to ``out`` (``None`` or ``-``: return
    the bytes instead).  Returns ``(system, bundle, data)``."""
    from .detect import detect

    inner = source if source is not None else LiveSource(root=root, commands=root in ("", "/"), guard_venvs=venvs)
    rec = RecordingSource(inner)
    system = detect(rec, venvs)
    hostname = _live_hostname(rec, root if source is None else "-")
    bundle = build(rec, venvs=venvs, include_hostname=include_hostname, hostname=hostname)
    data = tar_bytes(bundle)
    if out not in (None, "-"):
        write_atomic(out, data)
    return system, bundle, data
