"""GPU identification data: PCI device id (+ revision) -> chip family, gfx target, products,
segment; KFD ``gfx_target_version`` and IP-discovery GC version -> gfx target.

Data: ``data/gpus.csv`` (one row per device id, or per device id + PCI revision for marketing
names; ``source`` column lists the references) and ``data/gc_ip.csv`` (GC IP version -> gfx).
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import data_path

CSV_SOURCE = "catalog:gpus.csv"


@dataclass(frozen=True)
class GpuEntry:
    device_id: str  # 4 lowercase hex digits
    revision: Optional[str]  # lowercase hex, None for "any revision"
    chip_family: str
    gfx_target: str
    products: Tuple[str, ...]
    segment: str  # radeon | radeon-pro | instinct | apu
    source: str  # reference tags, ';'-separated; a trailing '?' marks an inferred row

    @property
    def name(self) -> Optional[str]:
        return self.products[0] if self.products else None


@functools.lru_cache(maxsize=None)
def _table() -> Dict[Tuple[str, Optional[str]], GpuEntry]:
    table: Dict[Tuple[str, Optional[str]], GpuEntry] = {}
    with open(data_path("gpus.csv"), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            dev = row["pci_device_id"].strip().lower()
            rev = row["revision"].strip().lower() or None
            products = tuple(p.strip() for p in row["products"].split(";") if p.strip())
            entry = GpuEntry(dev, rev, row["chip_family"].strip(), row["gfx_target"].strip(), products,
                             row["segment"].strip(), row["source"].strip())
            table.setdefault((dev, rev), entry)
    return table


def all_entries() -> List[GpuEntry]:
    return list(_table().values())


def _norm_hex(value: Optional[str], width: int) -> Optional[str]:
    if value is None:
        return None
    v = str(value).strip().lower()
    if v.startswith("0x"):
        v = v[2:]
    if not v or any(c not in "0123456789abcdef" for c in v):
        return None
    return v.zfill(width)[-width:] if len(v) <= width else None


def lookup_pci(device_id: Optional[str], revision: Optional[str] = None) -> Optional[GpuEntry]:
    """Entry for an AMD PCI device id ("744c", "0x744c"), refined by PCI revision ("c8") when the
    table has a row for it.  None when the id is unknown."""
    dev = _norm_hex(device_id, 4)
    if dev is None:
        return None
    table = _table()
    rev = _norm_hex(revision, 2)
    if rev is not None and (dev, rev) in table:
        return table[(dev, rev)]
    return table.get((dev, None))


def chip_gfx(device_id: Optional[str], revision: Optional[str] = None) -> Optional[str]:
    """The chip's own gfx target by its PCI id, when the table tells it without doubt: the id is
    known and, if the table splits that id by revision, the revision is known too.  What a runtime
    reports can differ (HSA_OVERRIDE_GFX_VERSION, a new card reported as an older target); this is
    the chip's truth (issue 28, item 4)."""
    dev = _norm_hex(device_id, 4)
    if dev is None:
        return None
    table = _table()
    rev = _norm_hex(revision, 2)
    if rev is not None and (dev, rev) in table:
        return table[(dev, rev)].gfx_target or None
    split = {e.gfx_target for (d, r), e in table.items() if d == dev and r is not None}
    base = table.get((dev, None))
    if base is None or not base.gfx_target:
        return None
    if split and split != {base.gfx_target}:
        return None  # the revision decides, and it is not known
    return base.gfx_target


def gfx_from_kfd_version(value: object) -> Optional[str]:
    """KFD topology ``gfx_target_version`` (decimal major*10000 + minor*100 + stepping) -> gfx name.

    ``110000`` -> ``gfx1100``, ``90010`` -> ``gfx90a``, ``90402`` -> ``gfx942``; 0 (a CPU node) and
    garbage give None.  Minor and stepping are printed in hex, as ROCm does.
    """
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    if n <= 0:
        return None
    major, rest = divmod(n, 10000)
    minor, stepping = divmod(rest, 100)
    if major <= 0 or minor > 15 or stepping > 15:
        return None
    return "gfx%d%x%x" % (major, minor, stepping)


@functools.lru_cache(maxsize=None)
def _gc_table() -> Dict[Tuple[int, int, int], str]:
    table: Dict[Tuple[int, int, int], str] = {}
    with open(data_path("gc_ip.csv"), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            major, minor, rev = (int(x) for x in row["gc_ip"].split("."))
            table[(major, minor, rev)] = row["gfx_target"].strip()
    return table


def gfx_from_gc_ip(major: object, minor: object, revision: object) -> Optional[str]:
    """IP-discovery GC version -> gfx target (they differ: GC 11.0.3 is gfx1101)."""
    try:
        key = (int(str(major).strip()), int(str(minor).strip()), int(str(revision).strip()))
    except (TypeError, ValueError):
        return None
    return _gc_table().get(key)


@functools.lru_cache(maxsize=None)
def apu_only_gfx(gfx: Optional[str]) -> bool:
    """Whether every known product of ``gfx`` is an APU's integrated GPU (gfx1103, gfx1150-gfx1153,
    gfx90c...): such a GPU is a Ryzen APU's even when the output shows only "AMD Radeon Graphics"."""
    rows = [e for e in _table().values() if e.gfx_target == gfx]
    return bool(rows) and all(e.segment == "apu" for e in rows)
