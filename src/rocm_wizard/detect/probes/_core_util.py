"""Helpers shared by the os / python / docker / access / errors probes."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..sources import Raw, Source


def ok_outputs(source: Source, kind: str) -> List[Raw]:
    """Successful, non-empty outputs of a tool kind (recorded, pasted or run live)."""
    try:
        raws = source.outputs(kind)
    except Exception:  # a source must not take a probe down with it
        return []
    return [r for r in raws if r.text is not None and r.error is None and r.text.strip()]


def pastes(source: Source) -> List[Tuple[str, str]]:
    try:
        return [(n, t) for n, t in source.pastes() if isinstance(t, str)]
    except Exception:
        return []


def paste_label(name: str, kind: Optional[str] = None) -> str:
    return "paste:%s#%s" % (name, kind) if kind else "paste:%s" % name


def fallback_pastes(source: Source, looks_like: Callable[[str], float], kind: str,
                    threshold: float = 0.5) -> List[Raw]:
    """Pastes that ``looks_like`` accepts, for when the recogniser gave none of ``kind``."""
    out = []
    for name, text in pastes(source):
        try:
            score = looks_like(text)
        except Exception:
            score = 0.0
        if score >= threshold:
            out.append(Raw(text, paste_label(name, kind)))
    return out


def read_text(source: Source, path: str, max_bytes: int = 256 * 1024) -> Optional[Raw]:
    """The file's Raw when it could be read, else None."""
    try:
        raw = source.read(path, max_bytes)
    except Exception:
        return None
    if raw.text is None or raw.error is not None:
        return None
    return raw


def stat(source: Source, path: str) -> Optional[Dict[str, Any]]:
    try:
        return source.stat(path)
    except Exception:
        return None


def readlink_or_none(source: Source, path: str) -> Optional[str]:
    try:
        return source.readlink(path)
    except Exception:
        return None


def listdir(source: Source, path: str) -> List[str]:
    try:
        return list(source.listdir(path))
    except Exception:
        return []


def env(source: Source) -> Dict[str, str]:
    try:
        return dict(source.env())
    except Exception:
        return {}


def run(source: Source, argv: List[str], timeout: Optional[float] = None) -> Raw:
    try:
        return source.run(argv, timeout) if timeout else source.run(argv)
    except Exception as exc:
        return Raw(None, "cmd:" + " ".join(argv), "could not run: %s" % exc)


def vote(candidates: List[Tuple[str, str, float]]) -> Optional[Tuple[str, str]]:
    """(value, source) with the largest summed weight; ties go to the earliest candidate."""
    totals: Dict[str, float] = {}
    first: Dict[str, Tuple[int, str]] = {}
    for i, (value, src, weight) in enumerate(candidates):
        if not value:
            continue
        totals[value] = totals.get(value, 0.0) + weight
        if value not in first:
            first[value] = (i, src)
    if not totals:
        return None
    best = max(totals, key=lambda v: (totals[v], -first[v][0]))
    return best, first[best][1]
