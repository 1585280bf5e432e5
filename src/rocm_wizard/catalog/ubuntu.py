"""Ubuntu (and Debian) releases: version <-> codename, the kernel series of each release's GA
kernel (a generic kernel of another series is an HWE kernel) and the HWE kernel a point release
ships.  Data: ``data/ubuntu.csv`` (``distro`` column: ubuntu | debian)."""
from __future__ import annotations

import csv
import functools
from typing import Dict, Optional, Tuple

from . import data_path


@functools.lru_cache(maxsize=None)
def _all_rows() -> Tuple[Dict[str, str], ...]:
    with open(data_path("ubuntu.csv"), newline="", encoding="utf-8") as fh:
        return tuple(dict(row) for row in csv.DictReader(fh))


def _rows(distro: str = "ubuntu") -> Tuple[Dict[str, str], ...]:
    return tuple(r for r in _all_rows() if r["distro"] == distro)


def _short(version: Optional[str], distro: str = "ubuntu") -> str:
    return ".".join(str(version or "").split(".")[:1 if distro == "debian" else 2])


def codename(version: Optional[str], distro: str = "ubuntu") -> Optional[str]:
    """``"22.04.5"`` -> ``"jammy"``, ``("13", "debian")`` -> ``"trixie"``; None for an unknown release."""
    short = _short(version, distro)
    return next((r["codename"] for r in _rows(distro) if r["version"] == short), None)


def version_of(codename_: Optional[str], distro: str = "ubuntu") -> Optional[str]:
    """``"noble"`` -> ``"24.04"``."""
    return next((r["version"] for r in _rows(distro) if r["codename"] == codename_), None)


def ga_kernel(version: Optional[str], distro: str = "ubuntu") -> Optional[Tuple[str, str]]:
    """``(kernel series, source)`` of the release's GA kernel, e.g. ``("5.15", ...)`` for 22.04."""
    short = _short(version, distro)
    row = next((r for r in _rows(distro) if r["version"] == short and r["ga_kernel"]), None)
    return (row["ga_kernel"], row["source"]) if row else None


def hwe_kernel(point_version: Optional[str]) -> Optional[Tuple[str, str]]:
    """``(kernel series, source)`` of the HWE kernel an Ubuntu point release ships
    (``"24.04.4"`` -> ``"6.17"``); None where the data does not say."""
    text = str(point_version or "")
    for r in _rows("ubuntu"):
        for item in (r.get("hwe_kernels") or "").split():
            point, _, kernel = item.partition("=")
            if point == text and kernel:
                return kernel, r["source"]
    return None
