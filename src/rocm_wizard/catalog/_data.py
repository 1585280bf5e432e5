"""Loading the catalog's data files (TOML, read once and cached).

Python 3.10 has no :mod:`tomllib`; ``tomli`` (a dependency there) reads the same syntax.

Parsing TOML is most of a short command's start-up time, so the files shipped inside the package
(catalog data, doctor rules, path recipes) also keep their parsed form on disk, like Python's own
bytecode: ``rocm_wizard/__pycache__/<name>.<crc>.<tag>.rwtoml``, in :mod:`marshal` format,
valid only while the TOML file's path, size and modification time are unchanged.  It is written
only where Python would write bytecode (a writable directory, no ``PYTHONDONTWRITEBYTECODE``) and
any problem with it just means parsing the TOML file again.

Where nothing may be written (``PYTHONDONTWRITEBYTECODE``, a read-only installation) the package
also ships the parsed form of each of its TOML files, made by ``scripts/regen_parsed_toml.py``:
``rocm_wizard/_parsed/<sha256 of the TOML bytes>.marshal``.  It is found by the TOML file's
content, so an edited TOML file simply misses it and is parsed (the TOML stays the source of
truth; ``tests/catalog/test_parsed_toml.py`` fails while a shipped form is out of date), and it is
read only from inside the package, as trustworthy as the package's own code.
"""
from __future__ import annotations

import functools
import marshal
import os
import sys
import zlib
from typing import Any, Dict, Iterable, Optional, Tuple

from . import data_path


class _LazyToml:
    """``tomllib`` (or ``tomli``), imported on first use: a warm cache never needs it."""

    def __getattr__(self, name: str) -> Any:
        if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
            import tomllib as mod  # novermin
        else:  # pragma: no cover
            import tomli as mod
        return getattr(mod, name)


_toml: Any = _LazyToml()

_PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../rocm_wizard
_CACHE_MAGIC = b"rwtoml1\n"
_SHIPPED_DIR = os.path.join(_PKG_ROOT, "_parsed")
#: the marshal format of the shipped parsed forms (version 4: written and read by Python 3.4 and later)
SHIPPED_MARSHAL_VERSION = 4
_CACHE_TAG = "%s-%d%d-m%d" % (sys.implementation.name, sys.version_info[0], sys.version_info[1], marshal.version)


def _stamp(st: os.stat_result) -> Tuple[int, int]:
    return (st.st_mtime_ns, st.st_size)


def _cache_file(path: str, cache_dir: str) -> str:
    # the path's checksum tells apart files of one name in different directories (plans/docker.toml,
    # catalog/data/docker.toml); the path itself is checked again inside the cache
    where = zlib.crc32(os.fsencode(path))
    return os.path.join(cache_dir, "__pycache__", f"{os.path.basename(path)}.{where:08x}.{_CACHE_TAG}.rwtoml")


def _read_cache(cache: str, path: str, stamp: Tuple[int, int]) -> Optional[Dict[str, Any]]:
    try:
        with open(cache, "rb") as fh:
            blob = fh.read()
        if not blob.startswith(_CACHE_MAGIC):
            return None
        key, data = marshal.loads(blob[len(_CACHE_MAGIC):])
        if key != (path, stamp[0], stamp[1]) or not isinstance(data, dict):
            return None
        return data
    except (OSError, EOFError, ValueError, TypeError):
        return None


def _sha256() -> Any:
    """SHA-256 from the interpreter's built-in module (importing hashlib loads OpenSSL's bindings)."""
    try:
        from _sha2 import sha256  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.10, 3.11
        except ImportError:  # pragma: no cover - an interpreter built without its own hashes
            from hashlib import sha256
    return sha256


def shipped_name(raw: bytes) -> str:
    """The file name of the shipped parsed form of a TOML file whose bytes are ``raw``."""
    return _sha256()(raw).hexdigest() + ".marshal"


def _read_shipped(raw: bytes) -> Optional[Dict[str, Any]]:
    try:
        with open(os.path.join(_SHIPPED_DIR, shipped_name(raw)), "rb") as fh:
            data = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _write_cache(cache: str, path: str, stamp: Tuple[int, int], data: Dict[str, Any]) -> None:
    if sys.dont_write_bytecode:
        return
    try:
        blob = _CACHE_MAGIC + marshal.dumps(((path, stamp[0], stamp[1]), data))
    except ValueError:  # a value marshal cannot hold (a TOML date): no cache for this file
        return
    tmp = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, cache)  # atomic: a reader sees the old cache or the new one, never half
    except OSError:  # read-only installation, full disk...: parsing next time is fine
        try:
            os.unlink(tmp)
        except OSError:
            pass


def parse_toml_file(path: str, cache_dir: Optional[str] = None) -> Dict[str, Any]:
    """Parsed contents of the TOML file ``path``; raises ``OSError`` or ``TOMLDecodeError`` as
    :func:`tomllib.load` does.  With ``cache_dir`` the parsed form is reused from, and kept in,
    ``cache_dir/__pycache__``, or read from the package's shipped parsed forms (see the module
    docstring)."""
    if cache_dir is None:
        with open(path, "rb") as fh:
            return _toml.load(fh)
    path = os.path.abspath(path)
    with open(path, "rb") as fh:
        try:
            stamp = _stamp(os.fstat(fh.fileno()))
        except OSError:  # pragma: no cover - fstat on an open file does not fail in practice
            return _toml.load(fh)
        cache = _cache_file(path, cache_dir)
        data = _read_cache(cache, path, stamp)
        if data is not None:
            return data
        raw = fh.read()
    data = _read_shipped(raw)
    if data is not None:
        return data
    data = _toml.loads(raw.decode("utf-8"))
    try:
        unchanged = _stamp(os.stat(path)) == stamp
    except OSError:
        unchanged = False
    if unchanged:  # never cache what was read while the file was being rewritten
        _write_cache(cache, path, stamp, data)
    return data

#: the status words a catalog fact may carry
STATUSES = ("documented", "observed", "third-party", "inferred", "community", "preview", "not confirmed", "unknown")


class CatalogError(Exception):
    """A catalog data file is missing or malformed (a packaging bug, never the user's input)."""


@functools.lru_cache(maxsize=None)
def load(name: str) -> Dict[str, Any]:
    """Parsed contents of ``catalog/data/<name>`` with the local overlay's facts merged in by
    :func:`rocm_wizard.catalog.overlay.apply` (cached; callers must not mutate it)."""
    path = data_path(name)
    try:
        data = parse_toml_file(path, _PKG_ROOT)
    except OSError as exc:
        raise CatalogError(f"catalog file {name} cannot be read: {exc.strerror or exc}") from exc
    except _toml.TOMLDecodeError as exc:
        raise CatalogError(f"catalog file {name} is not valid TOML: {exc}") from exc
    from .overlay import apply  # what `catalog refresh` learnt: the one merge point

    return apply(name, data)


def load_path(path: str) -> Dict[str, Any]:
    """Parse any TOML file (read again on every call; a file shipped inside the package keeps its
    parsed form on disk, see the module docstring); raises :class:`CatalogError` with a readable
    message."""
    inside = os.path.abspath(path).startswith(_PKG_ROOT + os.sep)
    try:
        return parse_toml_file(path, _PKG_ROOT if inside else None)
    except OSError as exc:
        raise CatalogError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    except _toml.TOMLDecodeError as exc:
        raise CatalogError(f"{path} is not valid TOML: {exc}") from exc


def tup(values: Iterable[Any]) -> Tuple[Any, ...]:
    return tuple(values or ())


def pairs(mapping: Dict[str, Any]) -> Tuple[Tuple[str, Any], ...]:
    """A dict as a sorted tuple of pairs (hashable, for frozen dataclasses)."""
    return tuple(sorted((str(k), v) for k, v in (mapping or {}).items()))


def join_url(base: str, *parts: str) -> str:
    """``base`` + ``/`` + parts, with exactly one slash between pieces."""
    out = base.rstrip("/")
    for part in parts:
        out += "/" + str(part).strip("/")
    return out
