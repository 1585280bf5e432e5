"""AMD's zypper repositories for SUSE Linux Enterprise Server (``data/zypper.toml``).

:func:`sles_support` answers, for a ROCm release and a SLES service pack, whether AMD's docs list
it (True), list the release for other service packs only (False) or say nothing (None); and
:func:`refusal` why an OS of the SUSE family is not planned (openSUSE: ``unknown``, never
``supported``)."""
from __future__ import annotations

import functools
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import data_path

ZYPPER_IDS = ("sles",)  # os-release ID values planned with zypper
SUSE_IDS = ("sles", "sled", "opensuse-leap", "opensuse-tumbleweed", "opensuse", "opensuse-slowroll")


class SlesRelease(NamedTuple):
    version: str
    sles: Tuple[str, ...]
    status: str
    note: str
    sources: Tuple[str, ...]


@functools.lru_cache(maxsize=None)
def data() -> Dict[str, Any]:
    from ._data import load_path

    return load_path(data_path("zypper.toml"))


def repo() -> Dict[str, Any]:
    return dict(data()["repo"])


def prerequisites() -> Dict[str, Any]:
    return dict(data()["prerequisites"])


def releases() -> List[SlesRelease]:
    return [SlesRelease(r["version"], tuple(r["sles"]), r["status"], r.get("note", ""), tuple(r["sources"]))
            for r in data().get("release", [])]


def release(version: str) -> Optional[SlesRelease]:
    return next((r for r in releases() if r.version == version), None)


def service_pack(version_id: Optional[str]) -> Optional[str]:
    """``15.6`` from os-release's VERSION_ID (``15.6``, ``15-SP6``)."""
    import re

    m = re.match(r"^(\d+)(?:\.(\d+)|-SP(\d+))?$", str(version_id or "").strip(), re.I)
    if not m:
        return None
    return f"{m.group(1)}.{m.group(2) or m.group(3) or 0}"


def sles_support(rocm_version: str, version_id: Optional[str]) -> Optional[bool]:
    """True: AMD lists this service pack for the release (documented or carried over, see
    :func:`sles_status`); False: the release lists other service packs; None: not known."""
    rel = release(rocm_version)
    sp = service_pack(version_id)
    if rel is None or sp is None:
        return None
    return sp in rel.sles


def sles_status(rocm_version: str) -> str:
    rel = release(rocm_version)
    return rel.status if rel is not None else "unknown"


def planned_with_zypper(osi) -> bool:
    return osi is not None and (osi.id or "").lower() in ZYPPER_IDS


def refusal(osi) -> Optional[str]:
    """Why a SUSE-family OS other than SLES is not planned (None for any other OS)."""
    ident = (getattr(osi, "id", None) or "").lower()
    for other in data().get("other_os", []):
        if other["id"] == ident:
            return f"{other['reason']} (status {other['status']})"
    if ident in SUSE_IDS and ident not in ZYPPER_IDS:
        return f"AMD's ROCm repositories are documented for SUSE Linux Enterprise Server only, not {ident}"
    return None


def url(base: str, kind: str, **values: str) -> str:
    return base.rstrip("/") + "/" + repo()[f"{kind}_path"].format(**values)


def pick(version_id: Optional[str], gfx_targets=(), official=None) -> Optional[str]:
    """The release a SLES host gets by default: of the releases listed for its service pack (and
    known to the release catalog), those whose support lists name every GPU (``official(gfx,
    version) -> bool``; all when none does), documented ones first, the newest."""
    from . import releases as rel_cat

    cands = [r for r in releases() if sles_support(r.version, version_id) and rel_cat.resolve(r.version) is not None]
    if official is not None and gfx_targets:
        cands = [r for r in cands if all(official(g, r.version) for g in gfx_targets)] or cands
    if not cands:
        return None
    documented = [r for r in cands if r.status == "documented"]
    from packaging.version import Version

    return max(documented or cands, key=lambda r: Version(r.version)).version
