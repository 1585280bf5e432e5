"""GPU identification data: PCI device id (+ revision) -> chip family, gfx target, products,
segment; KFD ``gfx_target_version`` and IP-discovery GC version -> gfx target.

Data: ``data/gpus.csv`` (one row per device id, or per device id + PCI revision for marketing
names; ``source`` column lists the references) and ``data/gc_ip.csv`` (GC IP version -> gfx).
"""
from __future__ import annotations

import csv
import functools
from ..model import lean_dataclass
from typing import Dict, List, Optional, Tuple

from . import data_path

CSV_SOURCE = "catalog:gpus.csv"


@lean_dataclass(frozen=True)
class GpuEntry:
    """One row of the GPU table (``data/gpus.csv``): a PCI device (and revision) and what it is."""

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


# ------------------------------------------------------------------ product names -> gfx
# Words that do not tell two AMD products apart ("AMD Radeon RX 7900 XTX Graphics" is "rx 7900 xtx").
_NAME_NOISE = frozenset({"amd", "ati", "advanced", "micro", "devices", "inc", "radeon", "graphics", "series", "gpu",
                         "instinct", "tm", "r", "oam", "accelerator", "card"})
_CODENAMES = (
    # pci.ids' chip names (what lspci/lshw print without a PCI id) -> the table's chip family
    ("navi 10", "NAVI10"), ("navi 12", "NAVI12"), ("navi 14", "NAVI14"), ("navi 21", "SIENNA_CICHLID"),
    ("navi 22", "NAVY_FLOUNDER"), ("navi 23", "DIMGREY_CAVEFISH"), ("navi 24", "BEIGE_GOBY"), ("navi 31", "NAVI31"),
    ("navi 32", "NAVI32"), ("navi 33", "NAVI33"), ("navi 44", "NAVI44"), ("navi 48", "NAVI48"), ("vega 10", "VEGA10"),
    ("vega 12", "VEGA12"), ("vega 20", "VEGA20"), ("polaris 10", "POLARIS10"), ("polaris 11", "POLARIS11"),
    ("polaris 12", "POLARIS12"), ("polaris 20", "POLARIS10"), ("polaris 21", "POLARIS11"), ("polaris 22", "VEGAM"),
)


def _name_key(name: str) -> str:
    import re

    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w and w not in _NAME_NOISE]
    return "".join(words)


@functools.lru_cache(maxsize=1)
def _by_product() -> Dict[str, str]:
    """Normalised product name -> gfx target, for the names that map to one target only."""
    import re

    seen: Dict[str, set] = {}
    for e in _table().values():
        if not e.gfx_target:
            continue
        for product in e.products:
            for part in re.split(r"\s+/\s+", product):  # "Instinct MI60 / MI50"
                if "(" in part or "series apus" in part.lower():
                    part = part.split("(")[0]
                key = _name_key(part)
                if len(key) >= 4 and any(c.isdigit() for c in key):
                    seen.setdefault(key, set()).add(e.gfx_target)
    fam: Dict[str, set] = {}
    for e in _table().values():
        if e.gfx_target:
            fam.setdefault(e.chip_family, set()).add(e.gfx_target)
    for code, family in _CODENAMES:
        if len(fam.get(family, ())) == 1:
            seen.setdefault(_name_key(code), set()).update(fam[family])
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def gfx_of_product(name: Optional[str]) -> Optional[str]:
    """The gfx target of an AMD product as users and tools write it ("AMD Radeon RX 6800M",
    "Radeon 8060S Graphics", "AMD Instinct MI50", "Navi 22 [Radeon RX 6700/6700 XT / 6800M]"), from
    the products and chip families of ``gpus.csv``; None when unknown or ambiguous.  The name must
    be the product's whole name (after words such as AMD, Radeon, Graphics), never a part of it."""
    if not name:
        return None
    table = _by_product()
    text = str(name)
    candidates = [text]
    if "[" in text:  # lspci/lshw: "Navi 22 [Radeon RX 6700/6700 XT / 6800M]"
        head, _, rest = text.partition("[")
        candidates = [head, rest.split("]")[0].split("/")[0]]
    elif "/" in text:  # neofetch's pci.ids name without brackets: "AMD ATI Radeon RX 7600/7600 XT/7600M XT / PRO W7600"
        candidates = [text, text.split("/")[0]]
    for c in candidates:
        key = _name_key(c)
        if key in table:
            return table[key]
        if key.startswith("rx") and key[2:] in table:
            return table[key[2:]]
        if not key.startswith("rx") and "rx" + key in table:
            return table["rx" + key]
    return None
