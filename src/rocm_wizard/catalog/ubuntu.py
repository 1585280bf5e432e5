"""Ubuntu releases: version <-> codename, and the kernel series of each LTS release's GA kernel
(a generic kernel of another series is an HWE kernel).  Data: ``data/ubuntu.csv``."""
from __future__ import annotations

import csv
import functools
from typing import Dict, Optional, Tuple

from . import data_path


@functools.lru_cache(maxsize=None)
def _rows() -> Tuple[Dict[str, str], ...]:
    with open(data_path("ubuntu.csv"), newline="", encoding="utf-8") as fh:
        return tuple(dict(row) for row in csv.DictReader(fh))


def _short(version: Optional[str]) -> str:
    return ".".join(str(version or "").split(".")[:2])


def codename(version: Optional[str]) -> Optional[str]:
    """``"22.04.5"`` -> ``"jammy"``; None for an unknown release."""
    short = _short(version)
    return next((r["codename"] for r in _rows() if r["version"] == short), None)


def version_of(codename_: Optional[str]) -> Optional[str]:
    """``"noble"`` -> ``"24.04"``."""
    return next((r["version"] for r in _rows() if r["codename"] == codename_), None)


def ga_kernel(version: Optional[str]) -> Optional[Tuple[str, str]]:
    """``(kernel series, source)`` of the release's GA kernel, e.g. ``("5.15", ...)`` for 22.04."""
    short = _short(version)
    row = next((r for r in _rows() if r["version"] == short and r["ga_kernel"]), None)
    return (row["ga_kernel"], row["source"]) if row else None
