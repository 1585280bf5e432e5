"""Community settings (``data/overrides.toml``): ``HSA_OVERRIDE_GFX_VERSION`` per gfx target and
``ROC_ENABLE_PRE_VEGA``.  None of them is an AMD-supported configuration; every object here has
``status == "community"``.

API (stable)::

    overrides.for_gfx("gfx1031") -> Override | None   # value "10.3.0", products, note, sources
    overrides.no_override("gfx803") -> NoOverride | None   # why no value is known to work
    overrides.gfx_of_value("10.3.0") -> "gfx1030"     # what the runtime will pretend to be
    overrides.pre_vega() -> PreVega                   # ROC_ENABLE_PRE_VEGA=1 for gfx8
    overrides.variable() -> "HSA_OVERRIDE_GFX_VERSION"
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ._data import load, pairs, tup

FILE = "overrides.toml"


@dataclass(frozen=True)
class Override:
    gfx: str
    value: str
    products: str
    sources: Tuple[str, ...]
    note: str = ""
    native_from: Optional[str] = None  # ROCm release from which the target is official
    confidence: str = "medium"
    also_set: Tuple[Tuple[str, str], ...] = ()
    status: str = "community"

    @property
    def env(self) -> Dict[str, str]:
        env = {variable(): self.value}
        env.update(dict(self.also_set))
        return env


@dataclass(frozen=True)
class NoOverride:
    gfx: str
    reason: str
    sources: Tuple[str, ...]


@dataclass(frozen=True)
class PreVega:
    variable: str
    value: str
    applies_to: Tuple[str, ...]
    meaning: str
    sources: Tuple[str, ...]
    status: str = "community"


def _tbl() -> dict:
    return load(FILE)["hsa_override"]


def variable() -> str:
    return str(_tbl()["variable"])


def sources() -> Tuple[str, ...]:
    return tup(_tbl().get("sources"))


def not_needed_sources() -> Tuple[str, ...]:
    return tup(_tbl().get("not_needed_sources"))


@functools.lru_cache(maxsize=None)
def _by_gfx() -> Dict[str, Override]:
    out = {}
    for e in _tbl().get("target", []):
        out[e["gfx"]] = Override(e["gfx"], str(e["value"]), e.get("products", ""), tup(e.get("sources")),
                                 e.get("note", ""), e.get("native_from"), e.get("confidence", "medium"),
                                 pairs(e.get("also_set", {})))
    return out


def all_overrides():
    return list(_by_gfx().values())


def for_gfx(gfx: object) -> Optional[Override]:
    from .support import normalize_gfx

    g = normalize_gfx(gfx)
    return _by_gfx().get(g) if g else None


@functools.lru_cache(maxsize=None)
def _none() -> Dict[str, NoOverride]:
    return {e["gfx"]: NoOverride(e["gfx"], e["reason"], tup(e.get("sources"))) for e in _tbl().get("none", [])}


def no_override(gfx: object) -> Optional[NoOverride]:
    from .support import normalize_gfx

    g = normalize_gfx(gfx)
    return _none().get(g) if g else None


def gfx_of_value(value: object) -> Optional[str]:
    """``"10.3.0"`` -> ``gfx1030``; ``"9.0.10"`` -> ``gfx90a`` (minor/stepping printed in hex)."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\.(\d+)\s*", str(value or ""))
    if not m:
        return None
    major, minor, step = (int(x) for x in m.groups())
    if major <= 0 or minor > 15 or step > 15:
        return None
    return "gfx%d%x%x" % (major, minor, step)


@functools.lru_cache(maxsize=None)
def pre_vega() -> PreVega:
    p = load(FILE)["pre_vega"]
    return PreVega(p["variable"], str(p["value"]), tup(p.get("applies_to")), p.get("meaning", ""),
                   tup(p.get("sources")), p.get("status", "community"))


# LLVM's generic processors (llvm/docs/AMDGPUUsage.rst, "Generic processors"): the targets whose code
# objects are interchangeable.  HSA_OVERRIDE_GFX_VERSION only works between targets of one group; a
# target in no group shares code objects with none other.
_GENERIC_GROUPS = (
    ("gfx9-generic", ("gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c")),
    ("gfx9-4-generic", ("gfx940", "gfx941", "gfx942", "gfx950")),
    ("gfx10-1-generic", ("gfx1010", "gfx1011", "gfx1012", "gfx1013")),
    ("gfx10-3-generic", ("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036")),
    ("gfx11-generic", ("gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153")),
    ("gfx12-generic", ("gfx1200", "gfx1201")),
)


def isa_group(gfx: Optional[str]) -> Optional[str]:
    """The LLVM generic processor ``gfx`` belongs to, else the target itself (None for no target)."""
    if not gfx:
        return None
    g = str(gfx).split(":")[0].lower()
    for name, members in _GENERIC_GROUPS:
        if g in members:
            return name
    return g
