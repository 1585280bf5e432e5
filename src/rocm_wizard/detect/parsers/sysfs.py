"""Small sysfs files -> values: KFD topology node ``properties``, DRM/PCI ``uevent``, PCI id files
(``vendor``, ``device``, ``revision``, ``class``), IP-discovery version numbers.

KFD ``properties`` is one ``name value`` pair per line.  GPU nodes have ``simd_count`` > 0 and a
``gfx_target_version`` (major*10000 + minor*100 + stepping, decimal); CPU nodes have 0.  A GPU node
that also has ``cpu_cores_count`` > 0 is an APU.  ``location_id`` is the PCI bus/device/function
(bus << 8 | devfn) and ``domain`` the PCI domain.

A paste of ``cat /sys/class/kfd/kfd/topology/nodes/*/properties`` (several nodes run together) is
split by :func:`parse` into one node per ``cpu_cores_count`` line, which each node starts with.
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines, norm_hex

KIND = "kfd-properties"

# PCI classes amdgpu binds: VGA, display-other, processing accelerator
GPU_CLASS_PREFIXES = ("0300", "0380", "1200")
DISPLAY_CLASS_PREFIXES = ("0300", "0302", "0380", "1200")


@lean_dataclass
class KfdNode:
    """One KFD topology node (``.../kfd/topology/nodes/N/properties``)."""

    props: Dict[str, int] = field(default_factory=dict)
    node: Optional[int] = None  # topology node number (set by the caller)

    def get(self, key: str) -> Optional[int]:
        return self.props.get(key)

    @property
    def is_gpu(self) -> bool:
        return (self.props.get("simd_count") or 0) > 0 or (self.props.get("gfx_target_version") or 0) > 0

    @property
    def is_apu(self) -> bool:
        return self.is_gpu and (self.props.get("cpu_cores_count") or 0) > 0

    @property
    def gfx_target_version(self) -> Optional[int]:
        return self.props.get("gfx_target_version")

    @property
    def vendor_id(self) -> Optional[str]:
        v = self.props.get("vendor_id")
        return norm_hex(v) if v else None

    @property
    def device_id(self) -> Optional[str]:
        v = self.props.get("device_id")
        return norm_hex(v) if v else None

    @property
    def bdf(self) -> Optional[str]:
        loc = self.props.get("location_id")
        if not loc:
            return None
        dom = self.props.get("domain") or 0
        bus, devfn = divmod(loc & 0xFFFF, 256)
        dev, fn = divmod(devfn, 8)
        return "%04x:%02x:%02x.%d" % (dom, bus, dev, fn)

    @property
    def render_minor(self) -> Optional[int]:
        return self.props.get("drm_render_minor")


@lean_dataclass
class KfdPropertiesOutput:
    """The KFD topology nodes of one or several properties texts."""

    nodes: List[KfdNode] = field(default_factory=list)


def parse_properties(text: object) -> KfdNode:
    node = KfdNode()
    for line in clean_lines(text):
        m = re.match(r"^\s*([a-z_0-9]+)\s+(-?\d+)\s*$", line)
        if m:
            try:
                node.props[m.group(1)] = int(m.group(2))
            except ValueError:
                pass
    return node


_L_PROP = lazy(r"^[a-z_0-9]+\s+-?\d+$")
_L_KEYS = ("simd_count", "gfx_target_version", "cpu_cores_count", "location_id", "drm_render_minor",
           "max_waves_per_simd", "num_xcc")
_L_KEY_RX = {k: lazy(r"^%s\s" % k, re.M) for k in _L_KEYS}


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if not lines:
        return 0.0
    joined = "\n".join(lines)
    keys = sum(1 for k in _L_KEYS if k in joined and _L_KEY_RX[k].search(joined))
    if keys < 2:
        return 0.0
    prop_rx = _L_PROP.get()
    hits = sum(1 for l in lines if prop_rx.match(l))
    return clamp(0.2 + 0.5 * hits / len(lines) + 0.1 * keys)


def parse(text: str) -> KfdPropertiesOutput:
    """One or several KFD node ``properties`` texts run together."""
    out = KfdPropertiesOutput()
    try:
        cur: Optional[KfdNode] = None
        for line in clean_lines(text):
            m = re.match(r"^\s*([a-z_0-9]+)\s+(-?\d+)\s*$", line)
            if not m:
                continue
            key = m.group(1)
            if key == "cpu_cores_count" or cur is None or key in cur.props:
                cur = KfdNode()
                out.nodes.append(cur)
            cur.props[key] = int(m.group(2))
        for i, n in enumerate(out.nodes):
            n.node = i
    except Exception:  # pragma: no cover - defensive
        pass
    return out


@lean_dataclass
class Uevent:
    """A PCI device's ``uevent`` file: driver, ids, slot and class."""

    driver: Optional[str] = None
    vendor_id: Optional[str] = None
    device_id: Optional[str] = None
    subsys_id: Optional[str] = None
    bdf: Optional[str] = None
    pci_class: Optional[str] = None  # "030000"
    values: Dict[str, str] = field(default_factory=dict)


def parse_uevent(text: object) -> Uevent:
    """``DRIVER=amdgpu`` / ``PCI_CLASS=30000`` / ``PCI_ID=1002:744C`` / ``PCI_SLOT_NAME=0000:03:00.0``."""
    ue = Uevent()
    for line in clean_lines(text):
        if "=" not in line:
            continue
        k, v = line.split("=", 1)
        k, v = k.strip().upper(), v.strip()
        ue.values[k] = v
        if k == "DRIVER":
            ue.driver = v or None
        elif k == "PCI_ID" and ":" in v:
            a, b = v.split(":", 1)
            ue.vendor_id, ue.device_id = norm_hex(a), norm_hex(b)
        elif k == "PCI_SUBSYS_ID":
            ue.subsys_id = v.lower() or None
        elif k == "PCI_SLOT_NAME":
            from ._paste import norm_bdf

            ue.bdf = norm_bdf(v)
        elif k == "PCI_CLASS":
            ue.pci_class = v.lower().zfill(6) if re.fullmatch(r"[0-9a-fA-F]{1,6}", v) else None
    return ue


def parse_hex(text: object, width: int = 4) -> Optional[str]:
    """Contents of a sysfs id file (``0x1002\\n``) -> ``"1002"``; the class file (``0x030000``) with
    ``width=6``."""
    if text is None:
        return None
    s = str(text).strip().split()[0] if str(text).strip() else ""
    return norm_hex(s, width)


def parse_int(text: object) -> Optional[int]:
    if text is None:
        return None
    s = str(text).strip()
    try:
        return int(s.split()[0], 0) if s else None
    except ValueError:
        return None


def is_gpu_class(pci_class: Optional[str]) -> bool:
    """True for the classes amdgpu binds (0300 VGA, 0380 display, 1200 accelerator); also 0302
    (3D controller, how NVIDIA compute cards appear)."""
    if not pci_class:
        return False
    return pci_class[:4] in DISPLAY_CLASS_PREFIXES
