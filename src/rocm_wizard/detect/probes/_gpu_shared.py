"""Helpers shared by the gpus and rocm probes.

Both probes need ``rocminfo`` (and the smi tools); on a live system each run costs up to a few
seconds, so outputs are fetched once per detection run and shared: the cache belongs to the
:class:`~rocm_wizard.model.System` being filled (one per run; dropped when it is collected), never
to the source, so a second run on the same live source sees fresh outputs.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Dict, List, Optional

from ...model import System
from .._forked import worked_out
from ..sources import Raw, Source
from ._core_util import read_text  # noqa: F401  (probes use it as sh.read_text)

_LOCK = threading.Lock()
_CACHES: Dict[int, Dict[str, list]] = {}


_NO_COPY = object()


def _copied(value: Any) -> Any:
    """A copy of a parse that shares no object with it (pickle's round trip, a fraction of parsing's
    cost), or :data:`_NO_COPY` where it cannot be copied so (then the text is parsed again)."""
    import pickle

    try:
        return pickle.loads(pickle.dumps(value, 4))
    except Exception:
        return _NO_COPY


def _cache(system: System) -> Dict[str, list]:
    key = id(system)
    with _LOCK:
        cache = _CACHES.get(key)
        if cache is None:
            cache = {}
            _CACHES[key] = cache
            weakref.finalize(system, _CACHES.pop, key, None)
        return cache


def _once(system: System, key: str, fn: Callable[[], Any]) -> Any:
    cache = _cache(system)
    with _LOCK:
        entry = cache.get(key)
        if entry is None:
            entry = [threading.Lock(), False, None]
            cache[key] = entry
    with entry[0]:
        if not entry[1]:
            try:
                entry[2] = fn()
            except Exception as exc:  # a source or parser must not take the probe down
                entry[2] = exc
            entry[1] = True
    return entry[2]


def outputs(source: Source, system: System, kind: str) -> List[Raw]:
    """Every output of ``kind`` (errors included), fetched once per run."""
    res = _once(system, "out:" + kind, lambda: list(source.outputs(kind)))
    if isinstance(res, Exception):
        return [Raw(None, "kind:" + kind, "%s: %s" % (type(res).__name__, res))]
    return res


def good(raws: List[Raw]) -> List[Raw]:
    return [r for r in raws if r.text is not None and r.error is None and r.text.strip()]


def parsed(source: Source, system: System, kind: str, parse: Callable[[str], Any]) -> List[tuple]:
    """``[(Raw, parsed)]`` of the successful outputs of ``kind``, parsed once per run (a pasted
    segment's parse may come from the recogniser's forked worker, which parsed its own share under
    the same key: ``detect._forked``)."""
    def run() -> List[tuple]:
        out = []
        first: Dict[str, Any] = {}  # text -> its first parse (a segment pasted twice is parsed once)
        for raw in good(outputs(source, system, kind)):
            try:
                value = _NO_COPY
                if raw.text in first:
                    value = _copied(first[raw.text])  # (made before the caller sees the first)
                if value is _NO_COPY:
                    value = worked_out(key, parse, raw.text)
                    first.setdefault(raw.text, value)
                out.append((raw, value))
            except Exception:
                continue
        return out

    key = "parsed:%s:%s.%s" % (kind, getattr(parse, "__module__", ""), getattr(parse, "__qualname__", id(parse)))
    res = _once(system, key, run)
    return [] if isinstance(res, Exception) else res




_TOOL_PARSERS: Dict[str, Callable[[str], Any]] = {}


def tool_parser(name: str) -> Callable[[str], Any]:
    """``parsers.<name>.parse``, imported on its first call: a machine without ROCm's tools (or
    whose tools printed nothing) never loads their parsers.  It stands for that function in
    :func:`parsed`'s cache (same module and name), so either form shares one parse per run."""
    fn = _TOOL_PARSERS.get(name)
    if fn is None:
        module = "rocm_wizard.detect.parsers." + name

        def parse(text: str) -> Any:
            import importlib

            return importlib.import_module(module).parse(text)

        parse.__module__, parse.__qualname__ = module, "parse"
        fn = _TOOL_PARSERS.setdefault(name, parse)
    return fn


def parse_lshw(text: str) -> Any:
    """``parsers.lshw.parse``, imported only where there is lshw output (a snapshot's or a paste's:
    live detection runs no lshw); one function for the gpus and rocm probes, so they share its
    parse (see :func:`parsed`)."""
    from ..parsers import lshw

    return lshw.parse(text)


def listdir(source: Source, path: str) -> List[str]:
    try:
        return list(source.listdir(path))
    except Exception:
        return []


def readlink(source: Source, path: str) -> Optional[str]:
    try:
        return source.readlink(path)
    except Exception:
        return None


def exists(source: Source, path: str) -> bool:
    try:
        return bool(source.exists(path))
    except Exception:
        return False
