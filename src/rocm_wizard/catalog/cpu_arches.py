"""Which CPU architectures AMD serves per way out (``data/cpu_arches.toml``)."""
from __future__ import annotations

import functools
from typing import Dict, Optional

from . import data_path

ALIASES = {"amd64": "x86_64", "x86-64": "x86_64", "arm64": "aarch64", "armv8": "aarch64", "i386": "i686",
           "i486": "i686", "i586": "i686"}


@functools.lru_cache(maxsize=None)
def _ways() -> Dict[str, Dict[str, object]]:
    from ._data import load_path

    return load_path(data_path("cpu_arches.toml")).get("way", {})


def normalize(arch: Optional[str]) -> Optional[str]:
    a = (arch or "").strip().lower()
    return ALIASES.get(a, a) or None


def refusal(path: str, arch: Optional[str]) -> Optional[str]:
    """None when AMD serves ``arch`` for ``path`` (or the architecture is not known); else why not."""
    a = normalize(arch)
    way = _ways().get(path)
    if a is None or way is None or a in way.get("arches", []):
        return None
    also = {"aarch64": " (arm64)"}.get(a, "")
    msg = (f"this system's CPU is {a}{also}, and {way['note']}: no AMD repository, wheel or image serves {a} for "
           f"{path} (source: {way['source']})")
    if a == "aarch64" and way.get("aarch64_note"):
        msg += f"; {way['aarch64_note']}"
    return msg
