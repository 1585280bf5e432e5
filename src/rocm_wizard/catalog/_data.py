"""Loading the catalog's data files (TOML, read once and cached).

Python 3.10 has no :mod:`tomllib`; ``tomli`` (a dependency there) reads the same syntax.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Dict, Iterable, Tuple

from . import data_path

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
    import tomllib as _toml  # novermin
else:  # pragma: no cover
    import tomli as _toml

#: the status words a catalog fact may carry
STATUSES = ("documented", "observed", "third-party", "inferred", "community", "unknown")


class CatalogError(Exception):
    """A catalog data file is missing or malformed (a packaging bug, never the user's input)."""


@functools.lru_cache(maxsize=None)
def load(name: str) -> Dict[str, Any]:
    """Parsed contents of ``catalog/data/<name>`` (cached; callers must not mutate it)."""
    path = data_path(name)
    try:
        with open(path, "rb") as fh:
            return _toml.load(fh)
    except OSError as exc:
        raise CatalogError(f"catalog file {name} cannot be read: {exc.strerror or exc}") from exc
    except _toml.TOMLDecodeError as exc:
        raise CatalogError(f"catalog file {name} is not valid TOML: {exc}") from exc


def load_path(path: str) -> Dict[str, Any]:
    """Parse any TOML file (uncached); raises :class:`CatalogError` with a readable message."""
    try:
        with open(path, "rb") as fh:
            return _toml.load(fh)
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
