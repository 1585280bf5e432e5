"""``rocm-smi`` output (any of its layouts) -> per-GPU identity.

Layouts handled:

* key/value lines ``GPU[0]<tabs or spaces>: key: value`` (``-a``, ``--showproductname``,
  ``--showid``, ``--showbus``, ``--showmeminfo vram``, ...).  Old releases print ``Card series``
  (the pci.ids name), ``Card model`` (marketing name, or a subsystem id in hex) and ``GPU ID``; new
  ones ``Card Series`` (marketing name), ``Card Model`` (PCI device id), ``Device Rev``,
  ``Node ID``, ``GFX Version``;
* the ``Concise Info`` table, oldest (``GPU Temp AvgPwr ...``) and newest (``Device Node IDs
  (DID, GUID) ... Partitions ...``);
* the ``Concise Hardware Info`` table of ``--showhw`` (``GPU NODE DID GUID GFX VER ... BUS``);
* ``Driver version: 5.17.0`` in ``Version of System Component`` and ``ROCM-SMI version``.
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import BDF_RE, clamp, clean_lines, int_or_none, norm_bdf, norm_hex

KIND = "rocm-smi"

_GPU_KV = lazy(r"^GPU\[(\d+)\]\s*:\s*(.*)$")
_GFX = lazy(r"\bgfx[0-9]{2,4}[a-z]?\b")
_HEXID = lazy(r"^0x[0-9a-fA-F]{1,4}$")
# looks_like: each pattern is tried only when its literal part is in the text
_L_GPU = lazy(r"^GPU\[\d+\]\s*:", re.M)
_L_TABLE = lazy(r"^\s*GPU\s+Temp\s+AvgPwr", re.M)
_L_SECTION = lazy(r"^=+ (?:PCI Bus ID|Firmware Information|Product Info|Current voltage|KFD Processes|Power Profiles|"
                  r"Current clock frequencies|Temperature|Memory Usage \(Bytes\)|Unique ID|VBIOS|Serial Number) =+$", re.M)
_L_NODE_IDS = lazy(r"^\s*Device\s+Node\s+IDs", re.M)


@lean_dataclass
class SmiGpu:
    """One GPU as ``rocm-smi`` describes it."""

    index: int
    device_id: Optional[str] = None  # "7550"
    revision: Optional[str] = None  # "c3"
    subsystem_id: Optional[str] = None
    name: Optional[str] = None  # marketing name as the tool prints it
    series: Optional[str] = None  # pci.ids style "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]"
    vendor: Optional[str] = None
    sku: Optional[str] = None
    node: Optional[int] = None  # KFD node id
    guid: Optional[str] = None
    gfx_target: Optional[str] = None
    bdf: Optional[str] = None
    vram_bytes: Optional[int] = None
    unique_id: Optional[str] = None
    vbios: Optional[str] = None
    driver_version: Optional[str] = None


@lean_dataclass
class RocmSmiOutput:
    """What a ``rocm-smi`` output says: its GPUs and versions."""

    gpus: List[SmiGpu] = field(default_factory=list)
    driver_version: Optional[str] = None  # "Driver version: 5.17.0" (kernel version for the in-tree driver)
    smi_version: Optional[str] = None
    smi_lib_version: Optional[str] = None
    warnings: List[str] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    new_layout: Optional[bool] = None  # "Card Series/Card Model" (ROCm 6+) vs "Card series/Card model"


def looks_like(text: str) -> float:
    lines = clean_lines(text)
    body = "\n".join(lines[:3000])
    score = 0.0
    if "ROCm System Management Interface" in body or "ROCm SMI" in body:
        score += 0.7
    if "GPU[" in body and _L_GPU.search(body):
        score += 0.4
    if "Concise Info" in body or "End of ROCm SMI Log" in body:
        score += 0.3
    elif score and "=== " in body and _L_SECTION.search(body):
        score += 0.3  # the middle of 'rocm-smi -a': its "==== PCI Bus ID ====" section banners
    if ("AvgPwr" in body and _L_TABLE.search(body)) or ("IDs" in body and _L_NODE_IDS.search(body)):
        score += 0.3
    return clamp(score)


def parse(text: str) -> RocmSmiOutput:
    out = RocmSmiOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    out.gpus.sort(key=lambda g: g.index)
    return out


def _gpu(out: RocmSmiOutput, by_index: Dict[int, SmiGpu], index: int) -> SmiGpu:
    g = by_index.get(index)
    if g is None:
        g = SmiGpu(index=index)
        by_index[index] = g
        out.gpus.append(g)
    return g


# (compiled once: _parse runs them on every line)
_DRIVER_VERSION = lazy(r"^(?:Driver version|Kernel version)\s*:\s*(\S+)", re.I)
_SMI_VERSION = lazy(r"^ROCM-SMI version\s*:\s*(\S+)", re.I)
_SMI_LIB_VERSION = lazy(r"^ROCM-SMI-LIB version\s*:\s*(\S+)", re.I)
_KV_REST = lazy(r"^(.*?):\s*(.*)$")
_TABLE_HEAD = lazy(r"^(GPU|Device)\s+")
_TABLE_WORD = lazy(r"\b(Temp|NODE|Node|DID|IDs|VBIOS|BUS)\b")
_TABLE_ROW = lazy(r"^\d+\s")


def _parse(text: str, out: RocmSmiOutput) -> None:
    lines = clean_lines(text)
    by_index: Dict[int, SmiGpu] = {}
    kv: Dict[int, Dict[str, str]] = {}
    header: Optional[List[str]] = None
    section = ""
    for raw in lines:
        line = raw.replace("\t", "  ")
        s = line.strip()
        if not s:
            continue
        if s.startswith("=") and s.endswith("="):
            title = s.strip("= ").strip()
            if title:
                section = title.lower()
                header = None
            continue
        if s.startswith("WARNING"):
            out.warnings.append(s)
            continue
        if s.startswith("ERROR"):
            out.errors.append(s)
            continue
        m = _DRIVER_VERSION.match(s)
        if m:
            out.driver_version = m.group(1)
            continue
        m = _SMI_VERSION.match(s)
        if m:
            out.smi_version = m.group(1)
            continue
        m = _SMI_LIB_VERSION.match(s)
        if m:
            out.smi_lib_version = m.group(1)
            continue
        m = _GPU_KV.match(s)
        if m:
            idx = int(m.group(1))
            rest = m.group(2)
            km = _KV_REST.match(rest)
            if km:
                key, value = km.group(1).strip(), km.group(2).strip()
                kv.setdefault(idx, {}).setdefault(key, value)
                _gpu(out, by_index, idx)
            continue
        # tables
        if _TABLE_HEAD.match(s) and _TABLE_WORD.search(s):
            header = s.split()
            continue
        if header and s.startswith("("):
            continue  # second header line "(DID, GUID) (Edge) ..."
        if header and _TABLE_ROW.match(s + " "):
            _table_row(out, by_index, header, s, section)
            continue
    for idx, d in kv.items():
        _apply_kv(out, _gpu(out, by_index, idx), d)


def _table_row(out: RocmSmiOutput, by_index: Dict[int, SmiGpu], header: List[str], row: str, section: str) -> None:
    toks = row.replace(",", " ").split()
    if not toks:
        return
    idx = int_or_none(toks[0])
    if idx is None:
        return
    g = _gpu(out, by_index, idx)
    hdr = [h.upper() for h in header]
    has_node = "NODE" in hdr
    ints_seen = 0
    for tok in toks[1:]:
        if has_node and ints_seen == 0 and re.match(r"^\d+$", tok):
            g.node = g.node if g.node is not None else int(tok)
            ints_seen += 1
            continue
        if _HEXID.match(tok) and g.device_id is None:
            g.device_id = norm_hex(tok)
            continue
        if _GFX.fullmatch(tok) and g.gfx_target is None:
            g.gfx_target = tok
            continue
        if BDF_RE.fullmatch(tok) and g.bdf is None:
            g.bdf = norm_bdf(tok)
            continue


def _apply_kv(out: RocmSmiOutput, g: SmiGpu, d: Dict[str, str]) -> None:
    keys = {k.lower(): (k, v) for k, v in d.items()}

    def get(*names: str) -> Optional[str]:
        for n in names:
            if n in keys:
                v = keys[n][1].strip()
                if v and v.upper() not in ("N/A", "NA", "UNKNOWN"):
                    return v
        return None

    new = any(k in keys for k in ("device rev", "gfx version", "subsystem id", "node id")) or any(
        orig in ("Card Series", "Card Model") for orig, _ in keys.values())
    out.new_layout = new if out.new_layout is None else (out.new_layout or new)
    for name in ("gpu id", "device id"):
        v = get(name)
        if v and norm_hex(v):
            g.device_id = g.device_id or norm_hex(v)
    rev = get("device rev", "revision id", "rev id")
    if rev and norm_hex(rev, 2):
        g.revision = norm_hex(rev, 2)
    sub = get("subsystem id")
    if sub and norm_hex(sub):
        g.subsystem_id = norm_hex(sub)
    series = get("card series")
    model = get("card model")
    names: List[str] = []
    dev_name = get("device name")  # --showid of ROCm 6: the pci.ids name
    for v in (model, series) if not new else (series, model):
        if v is None:
            continue
        if _HEXID.match(v):
            if new and v is model:
                g.device_id = g.device_id or norm_hex(v)
            elif not new and v is model:
                g.subsystem_id = g.subsystem_id or norm_hex(v)
            elif not new and v is series:
                # old rocm-smi prints the device id as the series when pci.ids has no name for it
                g.device_id = g.device_id or norm_hex(v)
            continue
        names.append(v)
    if dev_name and not _HEXID.match(dev_name):
        names.append(dev_name)
    # a pci.ids style "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]" is a series, not a product name
    plain = [n for n in names if "[" not in n]
    g.name = (plain or [None])[0]
    g.series = next((n for n in names if "[" in n), None)
    if g.name is None and names:
        g.series = names[0]
    mkt = get("marketing name")
    if mkt and not _HEXID.match(mkt):
        g.name = mkt
    g.vendor = get("card vendor")
    g.sku = get("card sku")
    node = get("node id")
    if node is not None and int_or_none(node) is not None:
        g.node = int_or_none(node)
    g.guid = get("guid") or g.guid
    gfx = get("gfx version")
    if gfx:
        m = _GFX.search(gfx)
        if m:
            from .paste_facts import smi_gfx

            g.gfx_target = smi_gfx(m.group(0)) or m.group(0)  # 'gfx9010' is rocm-smi's gfx90a
    bus = get("pci bus")
    if bus and norm_bdf(bus):
        g.bdf = norm_bdf(bus)
    vram = get("vram total memory (b)")
    if vram and int_or_none(vram):
        g.vram_bytes = int_or_none(vram)
    g.unique_id = get("unique id")
    g.vbios = get("vbios version")
    drv = get("driver version")
    if drv:
        g.driver_version = drv
        out.driver_version = out.driver_version or drv
