"""Reading snapshot bundles and user pastes: :class:`BundleSource`.

Bundle layout (what ``rocm-wizard snapshot`` writes; a directory or a ``.tar.gz`` of one, possibly
with one top-level folder)::

    manifest.json         {"format": "rocm-wizard-snapshot", "version": 1, "created": "...",
                           "tool_version": "...",
                           "commands": {"<command_key>": {"argv": [...], "rc": 0, "error": null,
                                                          "duration": 0.12}},
                           "files": {"/abs/path": {"error": "not found"}}}
    files/<abs path>      content of every file read, e.g. files/etc/os-release,
                          files/sys/class/kfd/kfd/topology/nodes/1/properties
    dirs.json             {"/abs/dir": ["name", ...]}        directory listings asked for
    links.json            {"/abs/path": "target" or null}    readlink answers
    stats.json            {"/abs/path": {"mode": ..., "uid": ..., "gid": ..., "is_dir": ...} or null}
    commands/<key>.txt    stdout of each command (``key`` = :func:`~.sources.command_key` of argv)
    env.json              {"NAME": "value"}                   GPU-related environment only

Only ``manifest.json`` is required; every other part is optional.  ``manifest["files"]`` lists
files that could *not* be read (with the reason); files that were read simply exist under
``files/``.  ``manifest["commands"]`` gives rc / error / argv of every command, including those
without output.  A file under ``files/`` that no ``dirs.json`` entry lists is still found, and a
directory under ``files/`` without a ``dirs.json`` entry is listed from the bundle itself.

Anything else -- a directory without ``manifest.json`` (e.g. a bug report's attachments), or a
single text file -- is a set of **pastes**: every text file is split and recognised by content
(:mod:`~rocm_wizard.detect.recognize`) and served through :meth:`BundleSource.outputs` and
:meth:`BundleSource.run` (for the kind's canonical command line).  A pasted ``os-release`` is also
served as ``read('/etc/os-release')``.  Loose text files next to ``manifest.json`` are pastes too.
(s23) Attachments as they come: a ``.zip`` (a bundle or pastes), a compressed single file (``dmesg.log.gz``,
``.bz2``, ``.xz``) and a tarball, given as the path or lying in a paste folder, are read one level deep -- their
members named ``<archive>/<member>``, a compressed file by its name without the suffix; an archive inside one is
not opened, a damaged one inside a folder is a note.

Tarballs are read into memory, never extracted: members with absolute names, ``..`` components,
links and devices are ignored.  Everything read is bounded by :mod:`rocm_wizard.limits` (bytes per
file and in total, decompressed output, member count, name length and depth, JSON nesting); files
are read only when regular and never past their size, and ``/proc`` or ``/sys`` are refused.
:func:`open_snapshot` gives clear :class:`SnapshotError` messages for a missing, unreadable,
malformed or oversized path.
"""
from __future__ import annotations

import functools
import os
import posixpath
import threading
from typing import Dict, List, Optional, Sequence, Tuple

from .. import limits
from ..limits import LimitError
from ..termsafe import clean
from .paste_text import normalise
from .sources import DEFAULT_TIMEOUT, KIND_COMMANDS, Raw, Source, command_key, decode, is_gpu_env

FORMAT = "rocm-wizard-snapshot"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
FILES_DIR = "files"
COMMANDS_DIR = "commands"
DIRS_JSON = "dirs.json"
LINKS_JSON = "links.json"
STATS_JSON = "stats.json"
ENV_JSON = "env.json"
_META = {MANIFEST, DIRS_JSON, LINKS_JSON, STATS_JSON, ENV_JSON}

# files that describe a paste folder rather than being pastes (a bug report's metadata)
_SKIP_SUFFIXES = (".toml", ".png", ".jpg", ".jpeg", ".gif", ".pdf", ".whl", ".so")
# (s23) archives and compressed logs inside a paste folder or archive: what a bug report's attachments come as
# (GitHub takes .zip, .gz and .tgz attachments; journalctl and logrotate write .gz, sosreport .tar.xz); read one level
# deep, their members named "<archive>/<member>" (a compressed single file: its name without the suffix)
_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".tar.gz", ".tar.bz2", ".tar.xz", ".gz", ".bz2", ".xz")


class SnapshotError(Exception):
    """A snapshot path that cannot be used; the message is meant for the user."""


def missing(path: object) -> str:
    """The one wording, for every command, of a snapshot path that is not there."""
    return "snapshot %s: no such file or directory" % path


# --------------------------------------------------------------------------------------------
# storage: a directory on disk or the members of a tarball held in memory


class _Store:
    def read(self, rel: str, max_bytes: int) -> Optional[bytes]:
        raise NotImplementedError

    def isdir(self, rel: str) -> bool:
        raise NotImplementedError

    def isfile(self, rel: str) -> bool:
        raise NotImplementedError

    def listdir(self, rel: str) -> List[str]:
        raise NotImplementedError

    def files(self) -> List[str]:
        raise NotImplementedError


class _DirStore(_Store):
    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def _p(self, rel: str) -> Optional[str]:
        rel = _safe_rel(rel)
        if rel is None:
            return None
        p = os.path.join(self.root, rel) if rel else self.root
        # never follow a link out of the bundle
        real = os.path.realpath(p)
        if real != self.root and not real.startswith(self.root + os.sep):
            return None
        return p

    def read(self, rel: str, max_bytes: int) -> Optional[bytes]:
        p = self._p(rel)
        return None if p is None else limits.read_regular(p, max_bytes)

    def isdir(self, rel: str) -> bool:
        p = self._p(rel)
        return bool(p) and os.path.isdir(p)  # type: ignore[arg-type]

    def isfile(self, rel: str) -> bool:
        p = self._p(rel)
        return bool(p) and os.path.isfile(p)  # type: ignore[arg-type]

    def listdir(self, rel: str) -> List[str]:
        p = self._p(rel)
        if p is None:
            return []
        try:
            return sorted(os.listdir(p))
        except OSError:
            return []

    def files(self) -> List[str]:
        out: List[str] = []
        seen = 0
        for dirpath, dirs, names in os.walk(self.root):
            depth = 0 if dirpath == self.root else os.path.relpath(dirpath, self.root).count(os.sep) + 1
            dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                             and not limits.pseudo_fs(os.path.join(dirpath, d))) if depth < limits.MAX_WALK_DEPTH else []
            seen += len(names) + len(dirs)
            if seen > limits.MAX_WALK:  # someone pointed us at a home directory: stop looking
                break
            for n in sorted(names):
                if n.startswith("."):
                    continue
                full = os.path.join(dirpath, n)
                if os.path.islink(full) or not os.path.isfile(full):
                    continue
                out.append(os.path.relpath(full, self.root).replace(os.sep, "/"))
        return out


class _MemStore(_Store):
    def __init__(self, members: Dict[str, bytes]) -> None:
        self.members = members
        # the folders as a tree of dicts: memory linear in the names' length, however deep
        self.tree: Dict[str, dict] = {}
        for name in members:
            node = self.tree
            for part in name.split("/")[:-1]:
                node = node.setdefault(part, {})
            node.setdefault(name.rsplit("/", 1)[-1], {})

    def _node(self, rel: Optional[str]) -> Optional[dict]:
        if rel is None:
            return None
        node: Optional[dict] = self.tree
        for part in rel.split("/") if rel else ():
            node = node.get(part) if node is not None else None
        return node

    def read(self, rel: str, max_bytes: int) -> Optional[bytes]:
        rel = _safe_rel(rel)
        if rel is None:
            return None
        data = self.members.get(rel)
        return None if data is None else data[:max_bytes]

    def isdir(self, rel: str) -> bool:
        rel = _safe_rel(rel)
        return rel is not None and rel not in self.members and self._node(rel) is not None

    def isfile(self, rel: str) -> bool:
        rel = _safe_rel(rel)
        return rel is not None and rel in self.members

    def listdir(self, rel: str) -> List[str]:
        rel = _safe_rel(rel)
        if rel is None or rel in self.members:
            return []
        return sorted(self._node(rel) or ())

    def files(self) -> List[str]:
        return sorted(self.members)


def _safe_rel(rel: str) -> Optional[str]:
    """Normalised relative path inside the bundle, or None when it would leave it."""
    rel = (rel or "").replace("\\", "/").lstrip("/")
    if not rel:
        return ""
    norm = posixpath.normpath(rel)
    if norm in (".", ""):
        return ""
    if norm.startswith("../") or norm == ".." or norm.startswith("/"):
        return None
    return norm


def _read_tarball(path: str) -> Dict[str, bytes]:
    """The regular members of a tarball (plain, gzip, bzip2 or xz), read as a stream within
    :mod:`~rocm_wizard.limits`: the decompressed stream is capped, so are the member count, the
    names and the data of GNU long-name / pax headers (which tarfile would read whole)."""
    import lzma
    import tarfile
    import zlib

    damaged = (tarfile.TarError, OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)
    try:
        with open(path, "rb") as fh:
            return _tar_members(tarfile.open(fileobj=_unpacked(fh, path), mode="r|", tarinfo=_tarinfo_class()), path)
    except LimitError as exc:
        raise SnapshotError(_at(path, exc)) from None
    except damaged as exc:
        raise SnapshotError("%s: not a readable tar archive, or a damaged one (%s)" % (path, exc)) from None


def _tar_members(tf, path: str) -> Dict[str, bytes]:
    members: Dict[str, bytes] = {}
    total = 0
    count = 0
    with tf:
        for info in tf:
            count += 1
            if count > limits.MAX_MEMBERS:
                raise LimitError("%s: more than %d entries; not a snapshot bundle" % (path, limits.MAX_MEMBERS))
            limits.check_name(info.name, path)
            if not info.isreg():
                continue  # links, devices, fifos, directories: nothing to hold
            name = info.name
            if name.startswith("/") or "\\" in name:
                continue
            rel = _safe_rel(name)
            if rel is None or rel == "" or any(p == ".." for p in name.split("/")):
                continue
            if info.size > limits.MAX_FILE_BYTES:
                continue
            total += info.size
            if total > limits.MAX_UNPACKED_BYTES:
                raise LimitError("%s: more than %s uncompressed; not a snapshot bundle"
                                 % (path, limits.mib(limits.MAX_UNPACKED_BYTES)))
            data = tf.extractfile(info)
            if data is not None:
                members[rel] = data.read(info.size)
    return members


_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip's first local header, or the end record of an empty one


def _compression(head: bytes) -> Optional[str]:
    """The compressor whose magic ``head`` starts with: gzip, bzip2 or xz (None: none of them)."""
    if head[:2] == b"\x1f\x8b":
        return "gz"
    if head[:3] == b"BZh":
        return "bz2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    return None


def _decompressor(kind: str, fh):
    if kind == "gz":
        import gzip
        return gzip.GzipFile(fileobj=fh, mode="rb")
    if kind == "bz2":
        import bz2
        return bz2.BZ2File(fh, mode="rb")
    import lzma
    return lzma.LZMAFile(fh, mode="rb")


def _uncompress(fh, kind: str, cap: int, what: str) -> bytes:
    """All of a compressed stream (``fh`` at its start), at most ``cap`` bytes: more is a :class:`LimitError`."""
    return limits.CappedReader(_decompressor(kind, fh), cap, what).read()


def _zip_members(fh, what: str) -> Dict[str, bytes]:
    """The regular members of a zip archive (``fh`` seekable), each read as it decompresses -- never by the sizes its
    headers claim -- within :mod:`~rocm_wizard.limits` (the member count, names, each member's and all members'
    bytes); encrypted members and folders are left out, as are names that would leave the archive."""
    import zipfile

    members: Dict[str, bytes] = {}
    total = 0
    with zipfile.ZipFile(fh) as zf:
        infos = zf.infolist()
        if len(infos) > limits.MAX_MEMBERS:
            raise LimitError("%s: more than %d entries; not a snapshot bundle" % (what, limits.MAX_MEMBERS))
        for info in infos:
            name = info.filename
            limits.check_name(name, what)
            if info.is_dir() or info.flag_bits & 0x1 or name.startswith("/") or "\\" in name:
                continue
            rel = _safe_rel(name)
            if rel is None or rel == "" or any(p == ".." for p in name.split("/")):
                continue
            with zf.open(info) as member:
                data = member.read(limits.MAX_FILE_BYTES + 1)
            if len(data) > limits.MAX_FILE_BYTES:
                continue
            total += len(data)
            if total > limits.MAX_UNPACKED_BYTES:
                raise LimitError("%s: more than %s uncompressed; not a snapshot bundle"
                                 % (what, limits.mib(limits.MAX_UNPACKED_BYTES)))
            members[rel] = data
    return members


# what a damaged zip, gzip, bzip2, xz or tar stream raises while it is read
def _damaged() -> tuple:
    import lzma
    import tarfile
    import zipfile
    import zlib

    return (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, NotImplementedError, RuntimeError, OSError,
            EOFError, ValueError, zlib.error, lzma.LZMAError)


def _read_archive_file(path: str) -> Optional[Dict[str, bytes]]:
    """A zip archive's members, or a compressed single file (not a tarball) as one member named without its suffix;
    None when ``path`` is neither (a tarball, or no archive)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(6)
            fh.seek(0)
            if head[:4] in _ZIP_MAGIC:
                try:
                    return _zip_members(fh, path)
                except LimitError as exc:
                    raise SnapshotError(_at(path, exc)) from None
                except _damaged() as exc:
                    raise SnapshotError("%s: not a readable zip archive, or a damaged one (%s)" % (path, exc)) from None
            kind = _compression(head)
            if kind is None:
                return None
            try:
                first = _decompressor(kind, fh).read(512)
            except _damaged():
                return None  # (the tar reader says what is wrong with it)
            if len(first) >= 262 and first[257:262] == b"ustar":
                return None  # a compressed tarball
            fh.seek(0)
            try:
                data = _uncompress(fh, kind, limits.MAX_FILE_BYTES, path)
            except LimitError:
                raise SnapshotError("%s: more than %s uncompressed; not a paste" % (path, limits.mib(limits.MAX_FILE_BYTES))) from None
            except _damaged() as exc:
                raise SnapshotError("%s: not a readable %s file, or a damaged one (%s)" % (path, kind, exc)) from None
    except OSError as exc:
        raise SnapshotError("%s: cannot read (%s)" % (path, exc.strerror or exc)) from None
    return {_unsuffixed(os.path.basename(path)) or "paste.txt": data}


def _unsuffixed(name: str) -> str:
    """A compressed file's name without its compressor's suffix (``dmesg.log.gz`` -> ``dmesg.log``)."""
    low = name.lower()
    for suffix in (".gz", ".bz2", ".xz"):
        if low.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _expand(rel: str, data: bytes, cap: int) -> List[Tuple[str, bytes]]:
    """The texts an archive or compressed file inside a paste folder or archive holds, one level deep: a zip's or a
    tarball's members as ``rel/member``, a compressed single file as ``rel`` without its suffix; within ``cap``
    bytes uncompressed.  Raises :class:`LimitError` or one of :func:`_damaged`'s errors."""
    import io

    head = data[:6]
    if head[:4] in _ZIP_MAGIC:
        return [(rel + "/" + name, body) for name, body in _zip_members(io.BytesIO(data), rel).items()]
    kind = _compression(head)
    raw = _uncompress(io.BytesIO(data), kind, cap, rel) if kind else data
    if len(raw) >= 262 and raw[257:262] == b"ustar":
        import tarfile

        tf = tarfile.open(fileobj=io.BytesIO(raw), mode="r|", tarinfo=_tarinfo_class())
        return [(rel + "/" + name, body) for name, body in _tar_members(tf, rel).items()]
    if kind is None:
        return []  # (named as an archive, but none: a plain file is read as it is by the caller)
    return [(_unsuffixed(rel), raw)]


def _at(path: str, exc: Exception) -> str:
    msg = str(exc)
    return msg if msg.startswith(path + ":") else "%s: %s" % (path, msg)


def _unpacked(fh, path: str):
    """The tarball's bytes (``fh`` open on it), decompressed by the format its first bytes name,
    capped at :data:`~rocm_wizard.limits.MAX_UNPACKED_BYTES`."""
    head = fh.read(6)
    fh.seek(0)
    if head[:2] == b"\x1f\x8b":
        import gzip
        raw = gzip.GzipFile(fileobj=fh, mode="rb")
    elif head[:3] == b"BZh":
        import bz2
        raw = bz2.BZ2File(fh, mode="rb")
    elif head[:6] == b"\xfd7zXZ\x00":
        import lzma
        raw = lzma.LZMAFile(fh, mode="rb")
    else:
        raw = fh
    return limits.CappedReader(raw, limits.MAX_UNPACKED_BYTES, path)


@functools.lru_cache(maxsize=None)
def _tarinfo_class():
    import tarfile

    meta_types = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE,
                  tarfile.SOLARIS_XHDTYPE)

    class TarInfo(tarfile.TarInfo):
        """tarfile reads a long-name or pax header's data whole, at the size its header claims."""

        def _proc_member(self, tarfile_):  # type: ignore[override]
            if self.type in meta_types and self.size > limits.MAX_TAR_META_BYTES:
                raise LimitError("a header claims %d bytes of name or attributes (at most %s); "
                                 "not a snapshot bundle" % (self.size, limits.mib(limits.MAX_TAR_META_BYTES)))
            return super()._proc_member(tarfile_)

    return TarInfo


def _is_text(data: bytes) -> bool:
    if not data:
        return False
    head = data[:8192]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with its byte order mark (sources.decode reads it)
        text = decode(head)
    elif b"\x00" in head:
        return False
    else:
        # mostly printable after lenient decoding
        text = head.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") + sum(text.count(c) for c in _CONTROL_CHARS)
    return bad <= max(8, len(text) // 20)


# control characters that do not belong in text (line ends, tab, form feed and ESC of colour codes do)
_CONTROL_CHARS = tuple(chr(i) for i in range(32) if chr(i) not in "\n\r\t\f\x1b")


# --------------------------------------------------------------------------------------------


class BundleSource(Source):
    """A snapshot bundle (directory or tarball) or a set of pasted texts."""

    kind = "snapshot"

    def __init__(self, path: str) -> None:
        self.path = path
        self.notes: List[str] = []
        self.label = os.path.basename(os.path.normpath(path)) or path
        self._lock = threading.Lock()
        self._segments: Optional[List[Tuple[Optional[str], str, str]]] = None
        self._segments_by_kind: Optional[Tuple[list, Dict[Optional[str], List[Tuple[str, str]]]]] = None
        self._paste_cache: Optional[List[Tuple[str, str]]] = None
        store, base = self._open(path)
        self._store = store
        self._base = base  # prefix (folder inside the store) that holds manifest.json; None = pastes only
        self.manifest: Dict[str, object] = {}
        self._dirs: Dict[str, List[str]] = {}
        self._links: Dict[str, Optional[str]] = {}
        self._stats: Dict[str, Optional[Dict[str, object]]] = {}
        self._env: Dict[str, str] = {}
        self._commands: Dict[str, Dict[str, object]] = {}
        self._file_errors: Dict[str, str] = {}
        if base is not None:
            self._load_meta()

    # -- opening ---------------------------------------------------------------------------

    def _open(self, path: str) -> Tuple[_Store, Optional[str]]:
        if os.path.isdir(path):
            store: _Store = _DirStore(path)
        elif os.path.isfile(path):
            members = _read_archive_file(path)
            if members is not None:
                store = _MemStore(members)
            elif _looks_like_tar(path):
                store = _MemStore(_read_tarball(path))
            else:
                data = limits.read_regular(path, limits.MAX_FILE_BYTES + 1)
                if data is None:
                    raise SnapshotError("%s: cannot read" % path)
                if len(data) > limits.MAX_FILE_BYTES:
                    raise SnapshotError("%s: larger than %s; not a paste" % (path, limits.mib(limits.MAX_FILE_BYTES)))
                store = _MemStore({os.path.basename(path) or "paste.txt": data})
        elif os.path.exists(path):
            raise SnapshotError("%s: not a regular file or a directory" % path)
        else:
            raise SnapshotError(missing(path))
        return store, _find_base(store)

    def _rel(self, *parts: str) -> str:
        base = self._base or ""
        return "/".join(p.strip("/") for p in ((base,) + parts) if p and p.strip("/"))

    def _json(self, name: str, default: object) -> object:
        data = self._store.read(self._rel(name), limits.MAX_FILE_BYTES)
        if data is None:
            return default
        try:
            value = limits.loads_json(decode(data), "%s in %s" % (name, self.path))
        except LimitError as exc:
            raise SnapshotError(str(exc)) from None
        except ValueError:
            self.notes.append("%s in the snapshot is not valid JSON; ignored" % name)
            return default
        return value if isinstance(value, type(default)) else default

    def _load_meta(self) -> None:
        manifest = self._json(MANIFEST, {})
        if not isinstance(manifest, dict):
            manifest = {}
        self.manifest = manifest
        fmt = manifest.get("format")
        if fmt not in (None, FORMAT):
            self.notes.append("manifest.json says format %r, expected %r; read anyway" % (fmt, FORMAT))
        cmds = manifest.get("commands")
        if isinstance(cmds, dict):
            self._commands = {str(k): v for k, v in cmds.items() if isinstance(v, dict)}
        files = manifest.get("files")
        if isinstance(files, dict):
            for p, v in files.items():
                if isinstance(v, dict) and v.get("error"):
                    self._file_errors[_abs(p)] = str(v.get("error"))
        dirs = self._json(DIRS_JSON, {})
        self._dirs = {_abs(k): [str(x) for x in v] for k, v in dirs.items() if isinstance(v, list)}  # type: ignore[union-attr]
        links = self._json(LINKS_JSON, {})
        self._links = {_abs(k): (str(v) if v is not None else None) for k, v in links.items()}  # type: ignore[union-attr]
        stats = self._json(STATS_JSON, {})
        self._stats = {_abs(k): (v if isinstance(v, dict) else None) for k, v in stats.items()}  # type: ignore[union-attr]
        env = self._json(ENV_JSON, {})
        self._env = {str(k): str(v) for k, v in env.items() if is_gpu_env(str(k)) and v is not None}  # type: ignore[union-attr]

    @property
    def is_snapshot(self) -> bool:
        """True for a bundle written by ``rocm-wizard snapshot`` (has manifest.json)."""
        return self._base is not None

    # -- pastes ----------------------------------------------------------------------------

    def _paste_files(self) -> List[str]:
        """Store paths of loose text files (pastes)."""
        out = []
        for rel in self._store.files():
            if self._base is not None:
                prefix = self._base + "/" if self._base else ""
                inner = rel[len(prefix):] if rel.startswith(prefix) else None
                if inner is not None:
                    top = inner.split("/", 1)[0]
                    if inner in _META or top in (FILES_DIR, COMMANDS_DIR):
                        continue
            low = rel.lower()
            if low.endswith(_SKIP_SUFFIXES) or posixpath.basename(rel).startswith("."):
                continue
            out.append(rel)
            if len(out) >= limits.MAX_PASTE_FILES:
                self.notes.append("more than %d loose files; the rest were not read" % limits.MAX_PASTE_FILES)
                break
        return out

    def _paste_bytes(self):
        """``(name, bytes)`` of each loose file, an archive's or compressed file's texts in its place (one level:
        ``_expand``; an archive inside one is not opened), within the paste limits."""
        left = limits.MAX_PASTE_BYTES
        for rel in self._paste_files():
            data = self._store.read(rel, limits.MAX_FILE_BYTES)
            if data is None:
                continue
            if not rel.lower().endswith(_ARCHIVE_SUFFIXES) and not (data[:4] in _ZIP_MAGIC or _compression(data[:6])):
                yield rel, data
                continue
            try:
                inner = _expand(rel, data, max(left, 0))
            except LimitError as exc:
                self.notes.append("%s; its texts were not read" % _at(rel, exc))
                continue
            except _damaged() as exc:
                if not rel.lower().endswith(_ARCHIVE_SUFFIXES):
                    yield rel, data  # (a text that only starts like one, "BZh...": read as it is)
                    continue
                self.notes.append("%s: not a readable archive or compressed file (%s); skipped" % (rel, exc))
                continue
            if not inner and not rel.lower().endswith(_ARCHIVE_SUFFIXES):
                yield rel, data
            for name, body in inner:
                if name.lower().endswith(_ARCHIVE_SUFFIXES) or body[:4] in _ZIP_MAGIC or _compression(body[:6]):
                    self.notes.append("%s: an archive inside an archive; not opened" % name)
                    continue
                left -= len(body)
                yield name, body

    def _texts(self) -> List[Tuple[str, str]]:
        """``[(name, text)]`` of the loose text files, read once, within the size limits."""
        if self._paste_cache is not None:
            return self._paste_cache
        texts: List[Tuple[str, str]] = []
        total = 0
        for rel, data in self._paste_bytes():
            if not _is_text(data):
                continue
            total += len(data)
            if total > limits.MAX_PASTE_BYTES:
                self.notes.append("more than %s of pasted text; the rest was not read"
                                  % limits.mib(limits.MAX_PASTE_BYTES))
                break
            # sanitised once here (terminal sequences, control characters; a lone CR ends a line as
            # clean_lines reads it), not again by every parser that looks at a segment
            # (and a web page's, chat's or mail's rendering undone: no-break spaces, curly quotes, entities,
            # reply quote marks, escaped line breaks; detect/paste_text.py)
            texts.append((rel, normalise(clean(decode(data).replace("\r\n", "\n").replace("\r", "\n")))))
        self._paste_cache = texts
        return texts

    def _segments_list(self) -> List[Tuple[Optional[str], str, str]]:
        """``[(kind, text, file)]`` of every pasted segment, recognised once."""
        with self._lock:
            if self._segments is not None:
                return self._segments
            from .recognize import recognize_many_also

            segs: List[Tuple[Optional[str], str, str]] = []
            texts = self._texts()
            # the GPU and OS probes read every paste's single-line facts: with a forked worker of the
            # recogniser, each side works them out for its own share of the pastes
            # (and the worker, once it has sent its share, what the probes parse and scan after: see _LATER)
            found_all, facts = recognize_many_also(texts, _paste_facts, later=_LATER)
            for (rel, _text), found in zip(texts, found_all):
                for kind, body, _label in found:
                    segs.append((kind, body, rel))
            if facts:
                from .parsers import paste_facts

                for text, got in facts.items():
                    paste_facts.keep(text, got)  # type: ignore[arg-type]
            self._segments = segs
            return segs

    def pastes(self) -> List[Tuple[str, str]]:
        with self._lock:
            return list(self._texts())

    def recognized(self) -> List[Tuple[Optional[str], str, str]]:
        """``[(kind, file name, text)]`` of every pasted segment (kind None when unrecognised)."""
        return [(kind, name, text) for kind, text, name in self._segments_list()]

    def _pasted(self, kind: str) -> List[Raw]:
        segs = self._segments_list()
        by_kind = self._segments_by_kind
        if by_kind is None or by_kind[0] is not segs:  # (probes ask once per kind: index them once)
            index: Dict[Optional[str], List[Tuple[str, str]]] = {}
            for k, text, name in segs:
                index.setdefault(k, []).append((text, name))
            by_kind = self._segments_by_kind = (segs, index)
        return [Raw(text, "paste:%s#%s" % (name, kind)) for text, name in by_kind[1].get(kind, ())]

    # -- Source interface ------------------------------------------------------------------

    def read(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> Raw:
        path = _abs(path)
        label = "file:%s" % path
        if self._base is not None:
            data = self._store.read(self._rel(FILES_DIR, path), max_bytes)
            if data is not None:
                return Raw(decode(data), label)
            if path in self._file_errors:
                return Raw(None, label, self._file_errors[path])
            if self._store.isdir(self._rel(FILES_DIR, path)):
                return Raw(None, label, "is a directory")
        if path in ("/etc/os-release", "/usr/lib/os-release"):
            pasted = self._pasted("os-release")
            if pasted:
                return pasted[0]
        return Raw(None, label, "not in snapshot")

    def listdir(self, path: str) -> List[str]:
        path = _abs(path)
        if path in self._dirs:
            return sorted(self._dirs[path])
        if self._base is not None:
            return self._store.listdir(self._rel(FILES_DIR, path))
        return []

    def exists(self, path: str) -> bool:
        path = _abs(path)
        if self._base is None:
            return path in ("/etc/os-release",) and bool(self._pasted("os-release"))
        if path in self._dirs or self._links.get(path) is not None:
            return True
        st = self._stats.get(path, "missing")
        if isinstance(st, dict):
            return True
        rel = self._rel(FILES_DIR, path)
        if self._store.isfile(rel) or self._store.isdir(rel):
            return True
        # a parent listing that names it
        parent, name = posixpath.split(path)
        return name in self._dirs.get(parent, ())

    def readlink(self, path: str) -> Optional[str]:
        return self._links.get(_abs(path))

    def stat(self, path: str) -> Optional[Dict[str, object]]:
        path = _abs(path)
        st = self._stats.get(path)
        if st is not None:
            return dict(st)
        return None

    def run(self, argv: Sequence[str], timeout: Optional[float] = DEFAULT_TIMEOUT) -> Raw:
        argv = list(argv)
        label = "cmd:" + " ".join(argv)
        key = command_key(argv)
        if self._base is not None:
            meta = self._commands.get(key)
            data = self._store.read(self._rel(COMMANDS_DIR, key + ".txt"), limits.MAX_FILE_BYTES)
            if meta is not None or data is not None:
                rc = meta.get("rc") if meta else None
                err = meta.get("error") if meta else None
                text = decode(data) if data is not None else None
                return Raw(text, label, str(err) if err else None, rc if isinstance(rc, int) else None,
                           float(meta.get("duration") or 0.0) if meta and isinstance(meta.get("duration"), (int, float)) else 0.0)
        for kind, argvs in KIND_COMMANDS.items():
            if argvs and argv in [list(a) for a in argvs]:
                pasted = self._pasted(kind)
                if pasted:
                    return pasted[0]
        return Raw(None, label, "not in snapshot")

    def outputs(self, kind: str) -> List[Raw]:
        out: List[Raw] = []
        if self._base is not None:
            for argv in KIND_COMMANDS.get(kind, []):
                key = command_key(argv)
                if key in self._commands or self._store.isfile(self._rel(COMMANDS_DIR, key + ".txt")):
                    out.append(self.run(argv))
        out.extend(self._pasted(kind))
        return out

    def env(self) -> Dict[str, str]:
        return dict(self._env)


def _paste_facts(text: str) -> object:
    """``paste_facts.parse(text)`` (the parser imported only where a worker asks it)."""
    from .parsers import paste_facts

    return paste_facts.parse(text)


def _rocminfo(text: str) -> object:
    """``parsers.rocminfo.parse(text)``, as the GPU and ROCm probes ask it of every rocminfo segment."""
    from .parsers import rocminfo

    return rocminfo.parse(text)


def _workloads(text: str) -> object:
    """``workloads.scan(text)``, as the errors probe asks it of every paste."""
    from .parsers import workloads

    return workloads.scan(text)


def _known_errors(text: str) -> object:
    """``probes.errors.known_in(text, translated=True)`` (``error_index.scan(text)``, the layers its lines name, and
    the known errors its translated messages hide), as the errors probe asks it of every paste."""
    from .probes import errors

    return errors.known_in(text, translated=True)


_WHOLE = "\0whole"  # (recognize.WHOLE: a later function of all the texts)
_EACH = "\0each"  # (recognize.EACH: every text's answer a frame of its own)


def _wsl_pasted(texts: List[str]) -> object:
    """``wsl_facts.pasted_hits(texts)``, as the merge pass asks it of all the pastes."""
    from . import wsl_facts

    return wsl_facts.pasted_hits(texts)


# What a forked worker of the recogniser works out once it has sent its share, in the order the probes
# ask (``_forked.worked_out``, by these names): the parse of each of its own rocminfo segments (the
# name is the parse's in probes/_gpu_shared.parsed: kind, then the parser's module and function), then
# the errors probe's workload scans of every paste, then what the merge pass's WSL facts read in all the pastes, then the
# known error lines of each paste and the layers they name, one frame per paste (the errors probe takes them in
# order and stops at its cap)
_LATER = (("parsed:rocminfo:rocm_wizard.detect.parsers.rocminfo.parse", _rocminfo, "rocminfo"),
          ("workloads", _workloads), ("wsl_pasted", _wsl_pasted, _WHOLE), ("known_errors", _known_errors, _EACH))


def _abs(path: object) -> str:
    p = "/" + str(path or "").replace("\\", "/").lstrip("/")
    norm = posixpath.normpath(p)
    return "/" if norm in ("", ".") else norm.replace("//", "/")


def _looks_like_tar(path: str) -> bool:
    low = path.lower()
    if low.endswith((".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar.zst")):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b" or head[:3] == b"BZh" or head[:6] == b"\xfd7zXZ\x00":
        return True
    return len(head) >= 262 and head[257:262] == b"ustar"


def _find_base(store: _Store) -> Optional[str]:
    """Folder that holds manifest.json: the root ("") or one folder directly under it."""
    if store.isfile(MANIFEST):
        return ""
    for name in store.listdir(""):
        if store.isfile(name + "/" + MANIFEST):
            return name
    return None


def open_snapshot(path: str) -> BundleSource:
    """Open a bundle directory, a ``.tar.gz`` or a pasted text file (or a folder of them).

    Raises :class:`SnapshotError` with a message for the user when the path is missing,
    unreadable, a damaged archive, or holds nothing readable.
    """
    if path is None or not str(path).strip():
        raise SnapshotError("no snapshot path given")
    path = os.path.expanduser(str(path))
    if not os.path.exists(path):
        raise SnapshotError(missing(path))
    pseudo = limits.pseudo_fs(path)
    if pseudo:
        raise SnapshotError("%s: on the kernel's %s pseudo-filesystem, not a snapshot bundle or a paste "
                            "(to describe this machine, leave out --snapshot)" % (path, pseudo))
    if os.path.isdir(path) and not os.access(path, os.R_OK | os.X_OK):
        raise SnapshotError("%s: permission denied" % path)
    if os.path.isfile(path) and not os.access(path, os.R_OK):
        raise SnapshotError("%s: permission denied" % path)
    src = BundleSource(path)
    if not src.is_snapshot and not src.pastes():
        raise SnapshotError("%s: neither a snapshot bundle (no manifest.json) nor any readable text to recognise" % path)
    return src
