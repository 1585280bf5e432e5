"""``lspci`` output -> PCI devices (GPU-class ones flagged).

Forms handled: plain ``lspci``, ``-nn`` (``[0300]`` class and ``[1002:744c]`` ids), ``-n``
(numbers only), ``-D`` (domain), ``-k`` / ``-v`` (indented ``Kernel driver in use:``,
``Subsystem:`` lines), ``-mm`` / ``-vmm`` machine-readable output and grep fragments
(``lspci | grep -i vga``, ``grep -EA3 'VGA|3D'`` with ``--`` separators); and the tree of ``-t`` /
``-tv`` (``-[0000:00]-+-01.1-[01-03]----00.0-[02-03]--...``), read into each device's upstream
bridge, so the path from a GPU up to its root port is known.
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import BDF_RE, clamp, clean_lines, norm_bdf, norm_hex

KIND = "lspci"

# PCI classes amdgpu binds to, plus NVIDIA/Intel 3D controllers (0302)
GPU_CLASSES = ("0300", "0302", "0380", "1200")
_CLASS_WORDS = {
    "vga compatible controller": "0300",
    "3d controller": "0302",
    "display controller": "0380",
    "processing accelerators": "1200",
}
VENDORS = {"1002": "AMD", "10de": "NVIDIA", "8086": "Intel", "1a03": "ASPEED", "102b": "Matrox", "15ad": "VMware",
           "1234": "QEMU", "1af4": "virtio", "5143": "Qualcomm"}

_HEX = frozenset("0123456789abcdefABCDEF")
_LINE = lazy(r"^(?P<bdf>(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(?P<rest>.+)$")
_IDS = lazy(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]")
_REV = lazy(r"\(rev\s+([0-9a-fA-F]{1,2})\)")
_PROGIF = lazy(r"\(prog-if\s+([0-9a-fA-F]{2})[^)]*\)")
# looks_like: the detail lines of ``lspci -v`` (the regex is tried only on lines starting so)
_DETAIL_WORDS = ("Subsystem", "Kernel driver in use", "Kernel modules", "Flags", "Memory at", "I/O ports", "Capabilities",
                 "Control", "Status", "Latency", "Interrupt", "Region", "Expansion ROM", "Physical Slot", "NUMA node",
                 "DeviceName", "IOMMU group")
_DETAIL = lazy(r"^(" + "|".join(_DETAIL_WORDS) + r")\b")
# lspci -t: a root bus "[0000:00]", or a device "DD.F" after its connector (maybe a bridge "-[SS]" / "-[SS-EE]")
_TREE_TOKEN = lazy(r"\[(?P<rdom>[0-9a-fA-F]{4,8}):(?P<rbus>[0-9a-fA-F]{2})\]"
                   r"|(?<=-)(?P<dev>[0-9a-fA-F]{2}\.[0-7])(?:-\[(?P<sec>[0-9a-fA-F]{2})(?:-[0-9a-fA-F]{2})?\])?")
_TREE_LINE = lazy(r"^[ |+\\-]*(?:\[[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}\]-)?[+\\-]-[0-9a-fA-F]{2}\.[0-7]\b")


@lean_dataclass
class PciDevice:
    """One PCI device of ``lspci`` (``-nn``, ``-v``, ``-vmm`` or ``-k`` forms)."""

    bdf: Optional[str] = None  # "0000:03:00.0"
    class_name: Optional[str] = None  # "VGA compatible controller"
    class_id: Optional[str] = None  # "0300"
    vendor_name: Optional[str] = None
    vendor_id: Optional[str] = None  # "1002"
    device_id: Optional[str] = None  # "744c"
    device_name: Optional[str] = None  # "Navi 31 [Radeon RX 7900 XT/7900 XTX]"
    revision: Optional[str] = None  # "c8"
    subsystem: Optional[str] = None
    driver: Optional[str] = None  # Kernel driver in use
    modules: List[str] = field(default_factory=list)
    line: Optional[str] = None

    @property
    def is_gpu(self) -> bool:
        return self.class_id in GPU_CLASSES

    @property
    def unclaimed(self) -> bool:
        """``-k``/``-v`` listed the modules that could drive it, and no driver in use."""
        return bool(self.modules) and not self.driver

    @property
    def vendor(self) -> Optional[str]:
        """AMD / NVIDIA / Intel / ... from the id, else from the vendor text."""
        if self.vendor_id:
            return VENDORS.get(self.vendor_id, self.vendor_id)
        name = (self.vendor_name or "").lower()
        if "advanced micro devices" in name or "amd/ati" in name or name.startswith("ati "):
            return "AMD"
        if "nvidia" in name:
            return "NVIDIA"
        if "intel" in name:
            return "Intel"
        return self.vendor_name

    @property
    def is_amd(self) -> bool:
        return self.vendor == "AMD"


@lean_dataclass
class PciTreeNode:
    """One device of ``lspci -t``: its address, the bridge above it (None on a root bus), its name."""

    bdf: str
    parent: Optional[str] = None
    name: Optional[str] = None


@lean_dataclass
class LspciOutput:
    """The PCI devices ``lspci`` listed (and, for ``-t``, the tree)."""

    devices: List[PciDevice] = field(default_factory=list)
    tree: List[PciTreeNode] = field(default_factory=list)

    @property
    def gpus(self) -> List[PciDevice]:
        return [d for d in self.devices if d.is_gpu]

    def path(self, bdf: Optional[str]) -> List[str]:
        """The bridges from the root port down to ``bdf``, then ``bdf`` ([] when the tree lacks it)."""
        up = {n.bdf: n.parent for n in self.tree}
        if not bdf or bdf not in up:
            return []
        out = [bdf]
        while up.get(out[-1]) and len(out) < 64:
            out.append(up[out[-1]] or "")
        return out[::-1]


def looks_like(text: str) -> float:
    lines = clean_lines(text)
    hits = 0
    total = 0
    line_rx = _LINE.get()
    for l in lines[:2000]:
        s = l.strip()
        if not s or s == "--":
            continue
        total += 1
        m = line_rx.match(s) if s[0] in _HEX else None  # a bus address starts the line
        if m and (":" in m.group("rest") or m.group("rest").startswith('"')):
            hits += 1
        elif s.startswith(_DETAIL_WORDS) and _DETAIL.match(s):
            hits += 0.5
        elif "-" in s and "." in s and _TREE_LINE.match(s):
            hits += 1
    if not total or hits < 1:
        return 0.0
    return clamp(0.35 + 0.65 * hits / total)


def parse(text: str) -> LspciOutput:
    out = LspciOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def _tree(lines: List[str], out: LspciOutput) -> None:
    """``lspci -t[v]``: a device's bus is the one opened at its connector's column (the same column
    on the lines below holds its siblings); a bridge opens its secondary bus at the column of the
    next connector on its line."""
    buses = {}  # connector column -> (domain, bus, the bridge above it)
    rx = _TREE_TOKEN.get()
    for line in lines:
        if "-" not in line:
            continue
        pending = None
        for m in rx.finditer(line):
            if m.group("rdom"):
                pending = (m.group("rdom").lower()[-4:], m.group("rbus").lower(), None)
                continue
            col = m.start("dev") - 2
            if pending is not None:
                for c in [c for c in buses if c >= col]:
                    del buses[c]
                buses[col], pending = pending, None
            where = buses.get(col)
            if where is None:
                continue
            dom, bus, parent = where
            bdf = "%s:%s:%s" % (dom, bus, m.group("dev").lower())
            rest = line[m.end():]
            name = rest.strip() if rest.startswith("  ") else None
            out.tree.append(PciTreeNode(bdf=bdf, parent=parent, name=name or None))
            if m.group("sec"):
                pending = (dom, m.group("sec").lower(), bdf)
            if name:
                break  # the rest of the line is the device's name


def _parse(text: str, out: LspciOutput) -> None:
    cur: Optional[PciDevice] = None
    lines = clean_lines(text)
    if any("-" in l and "." in l and _TREE_LINE.match(l.strip()) for l in lines[:200]):
        _tree(lines, out)
    for raw in lines:
        s = raw.strip()
        if not s or s == "--":
            continue
        m = _LINE.match(s)
        if m and not raw[:1].isspace():
            rest = m.group("rest")
            cur = _machine(rest) if rest.startswith('"') else _human(rest)
            if cur is None:
                continue
            cur.bdf = norm_bdf(m.group("bdf"))
            cur.line = s
            out.devices.append(cur)
            continue
        sm = re.match(r"^Slot:\s*(\S+)", s)
        if sm and BDF_RE.search(sm.group(1)):
            cur = PciDevice(bdf=norm_bdf(sm.group(1)), line=s)
            out.devices.append(cur)
            continue
        if cur is None:
            continue
        km = re.match(r"^([A-Za-z][A-Za-z /-]*?):\s*(.*)$", s)
        if not km:
            continue
        key, value = km.group(1).lower(), km.group(2).strip()
        if key == "kernel driver in use" or key == "driver":
            cur.driver = value or None
        elif key == "kernel modules" or key == "module":
            cur.modules.extend(x.strip() for x in value.split(",") if x.strip())
        elif key in ("subsystem", "svendor"):
            cur.subsystem = cur.subsystem or value or None
        elif key == "rev":
            cur.revision = norm_hex(value, 2)
        elif key == "class" and cur.class_id is None:
            _set_class(cur, value)
        elif key == "vendor" and cur.vendor_name is None:
            cur.vendor_name, cur.vendor_id = _name_id(value)
        elif key == "device" and cur.device_name is None:
            cur.device_name, cur.device_id = _name_id(value)


def _name_id(value: str):
    ids = re.search(r"\[([0-9a-fA-F]{4})\]\s*$", value)
    if ids:
        return value[: ids.start()].strip() or None, ids.group(1).lower()
    if re.fullmatch(r"[0-9a-fA-F]{4}", value.strip()):
        return None, value.strip().lower()
    return value.strip() or None, None


def _set_class(dev: PciDevice, value: str) -> None:
    m = re.search(r"\[([0-9a-fA-F]{4})\]", value)
    if m:
        dev.class_id = m.group(1).lower()
        dev.class_name = value[: m.start()].strip() or None
        return
    if re.fullmatch(r"[0-9a-fA-F]{4}", value.strip()):
        dev.class_id = value.strip().lower()
        return
    dev.class_name = value.strip() or None
    dev.class_id = _CLASS_WORDS.get(value.strip().lower())


def _human(rest: str) -> Optional[PciDevice]:
    dev = PciDevice()
    m = _REV.search(rest)
    if m:
        dev.revision = norm_hex(m.group(1), 2)
        rest = rest[: m.start()] + rest[m.end():]
    rest = _PROGIF.sub("", rest).strip()
    # -n only: "03:00.0 0300: 1002:744c (rev c8)"
    m = re.match(r"^([0-9a-fA-F]{4}):\s+([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\s*$", rest)
    if m:
        dev.class_id = m.group(1).lower()
        dev.vendor_id, dev.device_id = m.group(2).lower(), m.group(3).lower()
        return dev
    if ":" not in rest:
        return None
    cls, desc = rest.split(":", 1)
    # "VGA compatible controller [0300]" -- the class name itself never contains ':'
    _set_class(dev, cls.strip())
    desc = desc.strip()
    ids = list(_IDS.finditer(desc))
    if ids:
        last = ids[-1]
        dev.vendor_id, dev.device_id = last.group(1).lower(), last.group(2).lower()
        desc = (desc[: last.start()] + desc[last.end():]).strip()
    dev.vendor_name, dev.device_name = _split_vendor(desc)
    if dev.device_name and re.fullmatch(r"Device(\s+[0-9a-fA-F]{4})?", dev.device_name):
        # (s14-heldcf) pciutils names a device its pci.ids does not know by its id ("Device %04x", lib/names.c):
        # "12:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 164e (rev c1)"
        m = re.fullmatch(r"Device\s+([0-9a-fA-F]{4})", dev.device_name)
        if m and not dev.device_id:
            dev.device_id = m.group(1).lower()
        dev.device_name = None
    return dev


_VENDOR_PREFIXES = (
    "Advanced Micro Devices, Inc. [AMD/ATI]",
    "Advanced Micro Devices, Inc. [AMD]",
    "Advanced Micro Devices, Inc.",
    "NVIDIA Corporation",
    "Intel Corporation",
    "ASPEED Technology, Inc.",
    "Matrox Electronics Systems Ltd.",
    "VMware",
    "Red Hat, Inc.",
    "Device",
)


def _split_vendor(desc: str):
    for p in _VENDOR_PREFIXES:
        if desc.startswith(p):
            if p == "Device":
                return None, desc or None
            return p, desc[len(p):].strip() or None
    # unknown vendor: first two words are the vendor
    parts = desc.split(" ", 2)
    if len(parts) >= 3:
        return " ".join(parts[:2]), parts[2]
    return desc or None, None


def _machine(rest: str) -> Optional[PciDevice]:
    """``"VGA compatible controller [0300]" "Advanced Micro ... [1002]" "Navi 31 [744c]" -rc8 ...``"""
    try:
        import shlex  # only ``lspci -vmm`` lines need it

        toks = shlex.split(rest)
    except ValueError:
        toks = rest.replace('"', " ").split()
    dev = PciDevice()
    quoted = [t for t in toks if not t.startswith("-")]
    opts = [t for t in toks if t.startswith("-")]
    if len(quoted) >= 1:
        _set_class(dev, quoted[0])
    if len(quoted) >= 2:
        dev.vendor_name, dev.vendor_id = _name_id(quoted[1])
    if len(quoted) >= 3:
        dev.device_name, dev.device_id = _name_id(quoted[2])
    if len(quoted) >= 5:
        dev.subsystem = (quoted[3] + " " + quoted[4]).strip() or None
    for o in opts:
        if o.startswith("-r"):
            dev.revision = norm_hex(o[2:], 2)
    return dev


def bdf_of(value: str) -> Optional[str]:
    m = BDF_RE.search(value or "")
    return norm_bdf(m.group(0)) if m else None
