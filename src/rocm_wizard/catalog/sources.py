"""Every reference the catalog and the doctor cite, by tag (``data/sources.toml``).

API::

    sources.get("amd-sysreq") -> Source | None     # kind: official | third-party | observed
    sources.all_sources() -> dict tag -> Source
    sources.describe(tags) -> list of "ref (url)" strings, for human and JSON output
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional

from ._data import load


@dataclass(frozen=True)
class Source:
    tag: str
    kind: str  # official | third-party | observed
    ref: str
    url: Optional[str] = None

    def text(self) -> str:
        return f"{self.ref} <{self.url}>" if self.url else self.ref


@functools.lru_cache(maxsize=None)
def all_sources() -> Dict[str, Source]:
    return {tag: Source(tag, str(v.get("kind", "")), str(v.get("ref", "")), v.get("url"))
            for tag, v in load("sources.toml").items()}


def get(tag: str) -> Optional[Source]:
    return all_sources().get(tag)


def describe(tags: Iterable[str]) -> List[str]:
    """Readable citations for ``tags`` (an unknown tag is shown as itself)."""
    out = []
    for tag in tags:
        src = get(tag)
        out.append(src.text() if src else tag)
    return out
