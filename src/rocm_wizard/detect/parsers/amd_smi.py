"""``amd-smi`` output -> per-GPU identity, plus ``amd-smi version``.

Handles the indented text of ``amd-smi static`` / ``amd-smi list`` (``GPU: 0`` then ``ASIC:``,
``BUS:``, ``VRAM:``... sections), their ``--json`` forms (old string values such as
``"65536 MB"`` and new ``{"value": .., "unit": ..}`` objects) and the one-line ``amd-smi version``
(``AMDSMI Tool: ... | ROCm version: 7.2.0 | amdgpu version: ...``).  The ``ROCm version`` there is
the host's ROCm (the library amd-smi belongs to).  ``amd-smi firmware`` (``FW_LIST:`` of ``FW_ID`` /
``FW_VERSION`` pairs per GPU, or ``"fw_list"`` in JSON) gives each GPU's firmware versions.
"""
from __future__ import annotations

import json
import re
from ...model import field
from typing import Any, Dict, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines, int_or_none, norm_bdf, norm_hex

KIND = "amd-smi"
KINDS = ("amd-smi", "amd-smi-version")  # every kind kind_of() can give

_GFX = lazy(r"\bgfx[0-9]{2,4}[a-z]?\b")
_VERSION_LINE = lazy(r"AMDSMI Tool\s*:", re.I)
# looks_like: each pattern is tried only when its literal part is in the text
_L_GPU = lazy(r"^GPU:\s*\d+\s*$", re.M)
_L_JSON_KEY = lazy(r'"(market_name|target_graphics_version|kfd_id|asic|fw_list)"\s*:')
_L_JSON_NAMES = ('"market_name"', '"target_graphics_version"', '"kfd_id"', '"asic"', '"fw_list"')
_NA = ("N/A", "NA", "", "UNKNOWN")


@lean_dataclass
class AmdSmiGpu:
    """One GPU as ``amd-smi static`` (text or JSON) describes it."""

    index: int
    bdf: Optional[str] = None
    uuid: Optional[str] = None
    kfd_id: Optional[str] = None
    node: Optional[int] = None  # KFD node id (NODE_ID)
    market_name: Optional[str] = None
    product_name: Optional[str] = None  # BOARD PRODUCT_NAME
    vendor_id: Optional[str] = None
    device_id: Optional[str] = None
    revision: Optional[str] = None
    subsystem_id: Optional[str] = None
    gfx_target: Optional[str] = None
    compute_units: Optional[int] = None
    vram_bytes: Optional[int] = None
    vram_type: Optional[str] = None
    driver_name: Optional[str] = None
    driver_version: Optional[str] = None
    firmware: Dict[str, str] = field(default_factory=dict)  # amd-smi firmware: FW_ID -> FW_VERSION


@lean_dataclass
class AmdSmiOutput:
    """What an ``amd-smi`` output says: its GPUs and tool / driver / ROCm versions."""

    gpus: List[AmdSmiGpu] = field(default_factory=list)
    tool_version: Optional[str] = None
    library_version: Optional[str] = None
    rocm_version: Optional[str] = None
    amdgpu_version: Optional[str] = None  # as printed; may be a whitespace-stripped kernel banner
    is_version_output: bool = False


def looks_like(text: str) -> float:
    lines = clean_lines(text)
    body = "\n".join(lines[:3000])
    score = 0.0
    if _VERSION_LINE.search(body):
        score += 0.9
    if "GPU:" in body and _L_GPU.search(body):
        score += 0.3
    for key in ("MARKET_NAME:", "TARGET_GRAPHICS_VERSION:", "KFD_ID:", "NODE_ID:", "ASIC:", "VRAM:",
                "PARTITION_ID:", "FW_LIST:", "FW_ID:"):
        if key in body:
            score += 0.12
    if any(n in body for n in _L_JSON_NAMES) and _L_JSON_KEY.search(body):
        score += 0.5
    return clamp(score)


def kind_of(text: str) -> str:
    """``amd-smi-version`` for the one-line version output, else ``amd-smi``."""
    lines = [l for l in clean_lines(text) if l.strip()]
    if lines and any(_VERSION_LINE.search(l) for l in lines) and not any(re.match(r"^GPU:\s*\d", l) for l in lines):
        return "amd-smi-version"
    return KIND


def parse(text: str) -> AmdSmiOutput:
    out = AmdSmiOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def _parse(text: str, out: AmdSmiOutput) -> None:
    lines = clean_lines(text)
    for line in lines:
        if _VERSION_LINE.search(line):
            out.is_version_output = True
            _version_line(line, out)
    body = "\n".join(lines).strip()
    start = min((i for i in (body.find("["), body.find("{")) if i >= 0), default=-1)
    if start >= 0 and not re.search(r"^GPU:\s*\d", body, re.M):
        data = _load_json(body[start:])
        if data is not None:
            _from_json(data, out)
            return
    _from_text(lines, out)
    if not out.gpus and start >= 0:
        _from_json_lines(lines, out)


# s25-smiwin (set IS, 3483): a JSON document that no longer loads because the user masked its ids by hand
# ('"subsystem_id": "0x----,' lost its closing quote) still prints one '"key": value' pair a line, as amd-smi's
# --json writes it (ROCm/amdsmi amdsmi_cli/amdsmi_logger.py: json.dumps(..., indent=4)).  Read those pairs line by
# line: a '"gpu": N' pair starts the next GPU; scalar pairs fill it as the JSON reader would (keys without their
# section, which _apply accepts).
_JSON_PAIR = re.compile(r'^[ \t]{0,80}"([A-Za-z_]{1,60})"[ \t]{0,8}:[ \t]{0,8}"?([^"\n{}\[\]]{0,200}?)"?[ \t]{0,8},?[ \t]{0,8}$')


def _from_json_lines(lines: List[str], out: AmdSmiOutput) -> None:
    rec: Optional[Dict[str, Any]] = None
    recs: List[Dict[str, Any]] = []
    for line in lines:
        m = _JSON_PAIR.match(line)
        if not m:
            continue
        key, value = m.group(1).upper(), m.group(2).strip()
        if key == "GPU":
            rec = {"GPU": value}
            recs.append(rec)
        elif rec is not None and value:
            rec.setdefault(key, value)
    for pos, flat in enumerate(recs):
        idx = int_or_none(flat.get("GPU"))
        g = AmdSmiGpu(index=idx if idx is not None else pos)
        _apply(g, flat)
        if g.market_name or g.gfx_target:
            out.gpus.append(g)


def _load_json(s: str) -> Any:
    try:
        return json.loads(s)
    except ValueError:
        pass
    # trailing junk after the JSON document (a prompt, a fence)
    for end in range(len(s), 0, -1):
        if s[end - 1] in "]}":
            try:
                return json.loads(s[:end])
            except ValueError:
                continue
    return None


def _version_line(line: str, out: AmdSmiOutput) -> None:
    for part in line.split("|"):
        if ":" not in part:
            continue
        key, value = part.split(":", 1)
        key, value = key.strip().lower(), value.strip()
        if not value or value.upper() in _NA:
            continue
        if key == "amdsmi tool":
            out.tool_version = value.split()[0]
        elif key == "amdsmi library version":
            out.library_version = value.split()[0]
        elif key == "rocm version":
            out.rocm_version = value.split()[0]
        elif key == "amdgpu version":
            out.amdgpu_version = value


def _from_text(lines: List[str], out: AmdSmiOutput) -> None:
    gpu: Optional[Dict[str, str]] = None
    stack: List[tuple] = []  # (indent, section)
    records: List[tuple] = []
    firmware: Dict[int, Dict[str, str]] = {}  # id(record) -> its FW_ID -> FW_VERSION, in order
    fw_id: Optional[str] = None
    for raw in lines:
        line = raw.replace("\t", "    ")
        if not line.strip():
            continue
        m = re.match(r"^\s*GPU:\s*(\d+)\s*$", line)
        if m:
            gpu = {}
            fw_id = None
            records.append((int(m.group(1)), gpu))
            stack = []
            continue
        if gpu is None:
            continue
        m = re.match(r"^(\s*)([A-Za-z0-9_ ]+?):\s*(.*)$", line)
        if not m:
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip().upper(), m.group(3).strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if value == "":
            stack.append((indent, key))
            continue
        if key == "FW_ID":
            fw_id = value
        elif key == "FW_VERSION" and fw_id:
            firmware.setdefault(id(gpu), {}).setdefault(fw_id, value)
            fw_id = None
        path = ".".join([s for _, s in stack] + [key])
        gpu.setdefault(path, value)
        gpu.setdefault(key, value)
    by_index: Dict[int, AmdSmiGpu] = {}
    for idx, rec in records:
        g = by_index.get(idx)
        if g is None:
            g = AmdSmiGpu(index=idx)
            by_index[idx] = g
            out.gpus.append(g)
        _apply(g, rec)
        for k, v in firmware.get(id(rec), {}).items():
            g.firmware.setdefault(k, v)


def _flatten(obj: Any, prefix: str, into: Dict[str, Any]) -> None:
    if isinstance(obj, dict):
        if set(obj.keys()) >= {"value", "unit"}:
            into.setdefault(prefix.upper(), "%s %s" % (obj.get("value"), obj.get("unit")))
            into.setdefault(prefix.rsplit(".", 1)[-1].upper(), "%s %s" % (obj.get("value"), obj.get("unit")))
            return
        for k, v in obj.items():
            _flatten(v, "%s.%s" % (prefix, k) if prefix else str(k), into)
    elif isinstance(obj, list):
        return
    else:
        into.setdefault(prefix.upper(), "" if obj is None else str(obj))
        into.setdefault(prefix.rsplit(".", 1)[-1].upper(), "" if obj is None else str(obj))


def _from_json(data: Any, out: AmdSmiOutput) -> None:
    items = data if isinstance(data, list) else data.get("gpu_data", [data]) if isinstance(data, dict) else []
    if not isinstance(items, list):
        return
    for pos, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        flat: Dict[str, Any] = {}
        _flatten(item, "", flat)
        idx = int_or_none(flat.get("GPU"))
        g = AmdSmiGpu(index=idx if idx is not None else pos)
        _apply(g, flat)
        fw = item.get("fw_list")
        for entry in (fw.values() if isinstance(fw, dict) else fw if isinstance(fw, list) else []):
            if isinstance(entry, dict) and entry.get("fw_id") is not None and entry.get("fw_version") is not None:
                g.firmware.setdefault(str(entry["fw_id"]), str(entry["fw_version"]))
        out.gpus.append(g)


def _apply(g: AmdSmiGpu, rec: Dict[str, Any]) -> None:
    def get(*keys: str) -> Optional[str]:
        for k in keys:
            v = rec.get(k)
            if v is None:
                continue
            v = str(v).strip()
            if v.upper() not in _NA:
                return v
        return None

    g.bdf = norm_bdf(get("BUS.BDF", "BDF")) or g.bdf
    g.uuid = get("UUID", "ASIC.UUID") or g.uuid
    g.kfd_id = get("KFD_ID") or g.kfd_id
    node = int_or_none(get("NODE_ID"))
    g.node = node if node is not None else g.node
    g.market_name = get("ASIC.MARKET_NAME", "MARKET_NAME") or g.market_name
    g.product_name = get("BOARD.PRODUCT_NAME", "PRODUCT_NAME") or g.product_name
    g.vendor_id = norm_hex(get("ASIC.VENDOR_ID", "VENDOR_ID")) or g.vendor_id
    g.device_id = norm_hex(get("ASIC.DEVICE_ID", "DEVICE_ID")) or g.device_id
    g.revision = norm_hex(get("ASIC.REV_ID", "REV_ID"), 2) or g.revision
    g.subsystem_id = norm_hex(get("ASIC.SUBSYSTEM_ID", "SUBSYSTEM_ID")) or g.subsystem_id
    gfx = get("ASIC.TARGET_GRAPHICS_VERSION", "TARGET_GRAPHICS_VERSION")
    if gfx and _GFX.search(gfx):
        g.gfx_target = _GFX.search(gfx).group(0)
    g.compute_units = int_or_none(get("ASIC.NUM_COMPUTE_UNITS", "NUM_COMPUTE_UNITS")) or g.compute_units
    size = get("VRAM.SIZE", "VRAM_SIZE")
    if size:
        g.vram_bytes = _size_bytes(size) or g.vram_bytes
    g.vram_type = get("VRAM.TYPE", "VRAM_TYPE") or g.vram_type
    g.driver_name = get("DRIVER.NAME", "DRIVER_NAME") or g.driver_name
    g.driver_version = get("DRIVER.VERSION", "DRIVER_VERSION") or g.driver_version


def _size_bytes(value: str) -> Optional[int]:
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?i?B)?\s*$", value, re.I)
    if not m:
        return None
    n = float(m.group(1))
    unit = (m.group(2) or "MB").upper().replace("I", "")
    mult = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}.get(unit, 1024 ** 2)
    return int(n * mult)
