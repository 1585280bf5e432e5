"""ROCm release streams (``data/streams.toml``): which stream a ROCm version belongs to.

API (stable)::

    streams.stream_of("7.14.0") -> StreamOf("core-sdk", "release", ...)
    streams.stream_of("7.2.4")  -> StreamOf("legacy", "release", ...)
    streams.stream_of("7.10.0a20251015") -> StreamOf("core-sdk", "preview", nightly=True)
    streams.stream_of("8.1")    -> None            # in no known stream
    streams.is_nightly("2.15.0.dev20260824") -> True
    streams.version_key("10.0.0") > streams.version_key("7.2.4")   # numeric, never a string compare

Streams: ``legacy`` (rocm-* packages, ``/opt/rocm-X.Y.Z``), ``core-sdk`` (TheRock-built: amdrocm-*,
``/opt/rocm/core-X.Y``, rocm pip wheels).  Detection adds ``distro`` (a distribution's own ROCm in
``/usr``) and ``pip`` (ROCm from the ``rocm`` wheels in a venv), which no version number tells.
"""
from __future__ import annotations

import functools
import re
from ..model import lean_dataclass
from typing import Optional, Tuple

from ._data import load, tup

FILE = "streams.toml"
STREAMS = ("legacy", "core-sdk", "distro", "pip")


@lean_dataclass(frozen=True)
class StreamOf:
    """The stream (and channel) a ROCm release belongs to, with where that is known from."""

    stream: str  # legacy | core-sdk
    channel: str  # release | preview
    note: str
    sources: Tuple[str, ...]
    nightly: bool = False


def version_key(version: object) -> Tuple[int, ...]:
    """The leading numbers of a version (``10.0.0-4`` -> (10, 0, 0)); () when there are none."""
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(version or ""))
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


@functools.lru_cache(maxsize=None)
def _ranges():
    out = []
    for r in load(FILE).get("range", []):
        lo = version_key(r["from"])
        hi = version_key(r["to"]) if r.get("to") else None
        out.append((lo, hi, str(r["stream"]), str(r["channel"]), str(r.get("note", "")), tup(r.get("sources"))))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _nightly_rx():
    return re.compile(str(load(FILE)["nightly"]["pattern"]))


def nightly_sources() -> Tuple[str, ...]:
    return tup(load(FILE)["nightly"].get("sources"))


def is_nightly(version: object) -> bool:
    """A TheRock / PyTorch nightly, release candidate or dev build (``7.15.0a20260630``,
    ``2.15.0.dev20260824``, ``+devrocm7.12.0.dev0...``)."""
    return bool(_nightly_rx().search(str(version or "")))


def stream_of(version: object) -> Optional[StreamOf]:
    """The stream of a ROCm release (``7.2.4``, ``10.0``, ``7.14.0-27``, ``7.10.0a20251015``);
    None when the version is in no known stream (or not a version)."""
    key = version_key(version)[:2]
    if len(key) < 2:
        return None
    for lo, hi, stream, channel, note, sources in _ranges():
        if key >= lo and (hi is None or key <= hi):
            return StreamOf(stream, channel, note, sources, is_nightly(version))
    return None


def all_sources() -> Tuple[str, ...]:
    return tuple(dict.fromkeys(t for r in _ranges() for t in r[5])) + nightly_sources()


__all__ = ["STREAMS", "StreamOf", "all_sources", "is_nightly", "stream_of", "version_key"]
