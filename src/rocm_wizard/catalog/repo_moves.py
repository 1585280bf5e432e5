"""AMD repository paths announced to move (``data/repo_moves.toml``)."""
from __future__ import annotations

import functools
from typing import Dict, List, Optional

from . import data_path


@functools.lru_cache(maxsize=None)
def moves() -> List[Dict[str, str]]:
    from ._data import load_path

    return list(load_path(data_path("repo_moves.toml")).get("move", []))


def move_of(url: Optional[str]) -> Optional[Dict[str, str]]:
    """The move announced for ``url`` (with ``new``: the same path on the new host), or None."""
    u = (url or "").strip()
    for m in moves():
        if u.lower().startswith(m["from"].lower()):
            return {**m, "new": m["to"] + u[len(m["from"]):]}
    return None
