"""Ubuntu (and Debian) releases: version <-> codename, the kernel series of each release's GA
kernel (a generic kernel of another series is an HWE kernel) and the HWE kernel a point release
ships.  Data: ``data/ubuntu.csv`` (``distro`` column: ubuntu | debian)."""
from __future__ import annotations

import csv
import functools
from ..model import lean_dataclass
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


@lean_dataclass(frozen=True)
class DistroPython:
    """The python3 a distribution release ships by default (``data/distro_python.toml``)."""

    os: str
    version: str
    python: str  # "3.10"
    package: str
    status: str
    sources: Tuple[str, ...]


@functools.lru_cache(maxsize=None)
def _distro_pythons() -> Tuple[DistroPython, ...]:
    from ._data import load, tup

    return tuple(DistroPython(str(r["os"]), str(r["version"]), str(r["python"]), str(r.get("package", "")),
                              str(r.get("status", "unknown")), tup(r.get("sources")))
                 for r in load("distro_python.toml").get("release", []))


def default_python(os_id: Optional[str], version: Optional[str]) -> Optional[DistroPython]:
    """The python3 of ``os_id`` ``version`` (``("ubuntu", "22.04.5")`` -> Python 3.10); None when
    the catalog does not know that release."""
    distro = str(os_id or "").lower()
    short = _short(version, distro)
    return next((r for r in _distro_pythons() if r.os == distro and r.version == short), None)
