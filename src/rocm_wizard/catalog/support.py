"""Which gfx targets ROCm releases and PyTorch wheels support (joins releases, wheels and gpus).

API (stable)::

    support.normalize_gfx("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") -> "gfx90a"
    support.is_official("gfx1101", "6.4.1") -> True     # listed as supported for that release
    support.status("gfx1101", "6.2.4") -> Support(level="limited", note="Radeon PRO V710 only ...")
           level: official | limited | deprecated | unsupported | not-listed | unknown-release
    support.official_releases("gfx1101") -> [RocmRelease]
    support.first_official("gfx1101") -> RocmRelease | None
    support.wheel_indexes("gfx1101") -> [WheelIndex]       # indexes whose wheels carry the target
    support.has_official_build("gfx803") -> False          # no release lists it, no wheel has it
    support.known_gfx_targets() -> {"gfx803", ...}         # every target of the GPU table
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Set, Tuple, Union

from . import releases, wheels

_GFX_RE = re.compile(r"gfx([0-9]{1,2}[0-9a-f]{2,3})", re.I)


@dataclass(frozen=True)
class Support:
    gfx: str
    release: Optional[str]
    level: str  # official | limited | deprecated | unsupported | not-listed | unknown-release
    note: str
    sources: Tuple[str, ...]
    data_status: str = "documented"  # documented | inferred: how sure the release's list is


def normalize_gfx(value: object) -> Optional[str]:
    """The bare gfx target in any spelling (``gfx90a:sramecc+:xnack-``, ``GFX1100``, ISA names);
    None when there is none.  ``gfx000`` (rocminfo's CPU agent) is not a GPU target."""
    if value is None:
        return None
    m = _GFX_RE.search(str(value))
    if not m:
        return None
    g = "gfx" + m.group(1).lower()
    return None if g == "gfx000" else g


def _rel(release: Union[str, releases.RocmRelease, None]) -> Optional[releases.RocmRelease]:
    if isinstance(release, releases.RocmRelease):
        return release
    if release is None:
        return None
    return releases.get(release) or releases.resolve(release)


def status(gfx: object, release: Union[str, releases.RocmRelease, None]) -> Support:
    g = normalize_gfx(gfx) or str(gfx)
    rel = _rel(release)
    if rel is None:
        return Support(g, str(release) if release else None, "unknown-release",
                       f"ROCm {release} is not in the catalog", ())
    srcs = rel.all_sources
    if g in rel.gfx_official:
        level, note = "official", ""
    elif rel.limited_note(g):
        level, note = "limited", rel.limited_note(g) or ""
    elif g in rel.gfx_deprecated:
        level, note = "deprecated", "deprecated (maintenance mode)"
    elif g in rel.gfx_unsupported:
        level, note = "unsupported", "listed as unsupported"
    else:
        level, note = "not-listed", "not on the release's list of supported GPUs"
    return Support(g, rel.version, level, note, srcs, rel.support_status)


def is_official(gfx: object, rocm_release: Union[str, releases.RocmRelease, None]) -> bool:
    return status(gfx, rocm_release).level == "official"


def official_releases(gfx: object) -> List[releases.RocmRelease]:
    g = normalize_gfx(gfx)
    return [r for r in releases.all_releases() if g and g in r.gfx_official]


def first_official(gfx: object) -> Optional[releases.RocmRelease]:
    rels = official_releases(gfx)
    return rels[0] if rels else None


def wheel_indexes(gfx: object) -> List[wheels.WheelIndex]:
    g = normalize_gfx(gfx)
    return wheels.indexes_with_gfx(g) if g else []


def has_official_build(gfx: object, amd_indexes: bool = True) -> bool:
    """True when some ROCm release lists the target (fully or for some products) or some wheel
    index carries kernels for it (download.pytorch.org's only, without ``amd_indexes``)."""
    g = normalize_gfx(gfx)
    if not g:
        return False
    if official_releases(g) or [i for i in wheel_indexes(g) if amd_indexes or not i.amd]:
        return True
    return any(r.limited_note(g) for r in releases.all_releases())


def known_gfx_targets() -> Set[str]:
    from . import gpus

    return {e.gfx_target for e in gpus.all_entries()}
