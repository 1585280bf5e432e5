"""``lshw`` output (``-class video`` / ``-C display``, ``-short``/``-businfo``, ``-json``) ->
display devices.

lshw without ``-numeric`` often names only the vendor (``product: Advanced Micro Devices, Inc.
[AMD/ATI]``) when its pci.ids is old; with ``-numeric`` the ids appear as ``[1002:744C]``.
``version`` is the PCI revision, ``bus info: pci@0000:83:00.0`` the address and
``configuration: driver=amdgpu`` the bound driver; ``*-display UNCLAIMED`` a device no driver
claimed.
"""
from __future__ import annotations

import json
import re
from ...model import field
from typing import Any, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines, norm_bdf, norm_hex

KIND = "lshw"

_IDS = lazy(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]")
# looks_like: each pattern is tried only when its literal part is in the text
_L_NODE = lazy(r"^\s*\*-(display|video)", re.M)
_L_BUSINFO = lazy(r"^\s*pci@[0-9a-fA-F:.]+\s+.*\bdisplay\b", re.M)
_L_JSON_CLASS = lazy(r'"class"\s*:\s*"display"')
_L_KEYS = ("description:", "product:", "vendor:", "bus info:", "physical id:", "capabilities:", "configuration:")
_L_KEY_RX = {key: lazy(r"^\s*" + re.escape(key), re.M) for key in _L_KEYS}


@lean_dataclass
class LshwDevice:
    """One display device of ``lshw -c display`` (text or JSON)."""

    node: Optional[str] = None  # "display", "display:1"
    description: Optional[str] = None  # "VGA compatible controller"
    product: Optional[str] = None
    vendor: Optional[str] = None
    vendor_id: Optional[str] = None
    device_id: Optional[str] = None
    bdf: Optional[str] = None
    revision: Optional[str] = None
    driver: Optional[str] = None
    claimed: Optional[bool] = None  # False: the node line says UNCLAIMED
    line: Optional[str] = None  # the node line as printed

    @property
    def is_amd(self) -> bool:
        if self.vendor_id:
            return self.vendor_id == "1002"
        v = (self.vendor or "").lower()
        return "advanced micro devices" in v or "amd/ati" in v or v.startswith("ati ")

    @property
    def vendor_short(self) -> Optional[str]:
        if self.is_amd:
            return "AMD"
        v = (self.vendor or "").lower()
        if self.vendor_id == "10de" or "nvidia" in v:
            return "NVIDIA"
        if self.vendor_id == "8086" or "intel" in v:
            return "Intel"
        return self.vendor

    @property
    def product_name(self) -> Optional[str]:
        """The product text, unless it only repeats the vendor."""
        p = (self.product or "").strip()
        if not p or (self.vendor and p == self.vendor.strip()):
            return None
        p = _IDS.sub("", p).strip()
        return p or None


@lean_dataclass
class LshwOutput:
    """The display devices ``lshw`` listed."""

    devices: List[LshwDevice] = field(default_factory=list)


def looks_like(text: str) -> float:
    lines = clean_lines(text)
    body = "\n".join(lines[:2000])
    score = 0.0
    if "*-" in body and _L_NODE.search(body):
        score += 0.6
    for key in _L_KEYS:
        if key in body and _L_KEY_RX[key].search(body):
            score += 0.08
    if "pci@" in body and "display" in body and _L_BUSINFO.search(body):
        score += 0.6
    if '"class"' in body and _L_JSON_CLASS.search(body):
        score += 0.8
    return clamp(score)


def parse(text: str) -> LshwOutput:
    out = LshwOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def _parse(text: str, out: LshwOutput) -> None:
    lines = clean_lines(text)
    body = "\n".join(lines).strip()
    if body.startswith("[") or body.startswith("{"):
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if data is not None:
            _walk_json(data, out)
            return
    cur: Optional[LshwDevice] = None
    for raw in lines:
        s = raw.strip()
        if not s:
            continue
        m = re.match(r"^\*-(\S+)", s)
        if m:
            node = m.group(1)
            if node.startswith(("display", "video", "graphics")):
                cur = LshwDevice(node=node, line=s)
                if re.search(r"\sUNCLAIMED\b", s):
                    cur.claimed = False
                out.devices.append(cur)
            else:
                cur = None
            continue
        m = re.match(r"^pci@(\S+)\s+(?:(\S+)\s+)?display\s+(.*)$", s)
        if m:  # -businfo
            dev = LshwDevice(node="display", bdf=norm_bdf(m.group(1)), product=m.group(3).strip() or None)
            _ids(dev)
            out.devices.append(dev)
            cur = None
            continue
        if cur is None:
            continue
        km = re.match(r"^([a-z ]+):\s*(.*)$", s)
        if not km:
            continue
        key, value = km.group(1).strip(), km.group(2).strip()
        if key == "description":
            cur.description = value or None
        elif key == "product":
            cur.product = value or None
            _ids(cur)
        elif key == "vendor":
            cur.vendor = value or None
            m2 = re.search(r"\[([0-9a-fA-F]{4})\]\s*$", value)
            if m2:
                cur.vendor_id = m2.group(1).lower()
        elif key == "bus info":
            cur.bdf = norm_bdf(value)
        elif key == "version":
            cur.revision = norm_hex(value, 2)
        elif key == "configuration":
            m2 = re.search(r"\bdriver=(\S+)", value)
            if m2:
                cur.driver = m2.group(1)


def _ids(dev: LshwDevice) -> None:
    m = _IDS.search(dev.product or "")
    if m:
        dev.vendor_id, dev.device_id = m.group(1).lower(), m.group(2).lower()


def _walk_json(node: Any, out: LshwOutput) -> None:
    if isinstance(node, list):
        for n in node:
            _walk_json(n, out)
        return
    if not isinstance(node, dict):
        return
    if node.get("class") == "display":
        dev = LshwDevice(node=str(node.get("id") or "display"), description=node.get("description"),
                         product=node.get("product"), vendor=node.get("vendor"),
                         bdf=norm_bdf(node.get("businfo")), revision=norm_hex(node.get("version"), 2))
        conf = node.get("configuration")
        if isinstance(conf, dict) and conf.get("driver"):
            dev.driver = str(conf.get("driver"))
        if node.get("claimed") is False:
            dev.claimed = False
        _ids(dev)
        out.devices.append(dev)
    for child in node.get("children", []) or []:
        _walk_json(child, out)
