"""``lsmod`` output (full or grepped) and ``/proc/modules`` -> loaded kernel modules.

The DKMS build of amdgpu (``amdgpu-dkms`` from repo.radeon.com) brings its own helper modules:
``amdkcl`` (kernel compatibility layer), ``amdttm``, ``amddrm_ttm_helper``, ``amddrm_buddy``,
``amdxcp``.  Their presence tells the DKMS driver from the in-tree one.
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines

KIND = "lsmod"

DKMS_MARKERS = ("amdkcl", "amdttm", "amddrm_ttm_helper", "amddrm_buddy", "amd_sched")

_LSMOD = lazy(r"^([A-Za-z0-9_]+)\s+(\d+)\s+(-?\d+)(?:\s+(\S+))?\s*$")
_PROC = lazy(r"^([A-Za-z0-9_]+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(Live|Loading|Unloading)\s+0x[0-9a-fA-F]+(?:\s+\(([A-Z]+)\))?\s*$")
_EITHER = lazy(_LSMOD.pattern + "|" + _PROC.pattern)
_HEADER = lazy(r"^Module\s+Size\s+Used by")
_KNOWN = lazy(r"\b(amdgpu|drm|ttm|i915|nvidia|kvm)\b")


@lean_dataclass
class Module:
    """One loaded kernel module (``lsmod`` or ``/proc/modules``)."""

    name: str
    size: Optional[int] = None
    refcount: Optional[int] = None
    used_by: List[str] = field(default_factory=list)
    taint: Optional[str] = None  # /proc/modules flags: "OE" = out-of-tree, unsigned


@lean_dataclass
class LsmodOutput:
    """The modules listed and what they say about amdgpu."""

    modules: Dict[str, Module] = field(default_factory=dict)
    full_list: bool = False  # the complete list (header or /proc/modules), not a grep

    @property
    def amdgpu_loaded(self) -> Optional[bool]:
        if "amdgpu" in self.modules:
            return True
        return False if self.full_list else None

    @property
    def dkms_build(self) -> Optional[bool]:
        """True when the repo.radeon.com DKMS amdgpu is loaded (its helper modules are)."""
        if "amdgpu" not in self.modules:
            return None
        if any(m in self.modules for m in DKMS_MARKERS[:2]):
            return True
        taint = self.modules["amdgpu"].taint
        if taint and "O" in taint:
            return True
        return False if (self.full_list or len(self.modules) > 1) else None


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if not lines:
        return 0.0
    lsmod_rx, proc_rx = _LSMOD.get(), _PROC.get()
    either = _EITHER.get().match  # (one call: a line of either shape)
    hits = sum(1 for l in lines if either(l))
    header = any(l.startswith("Module") and _HEADER.match(l) for l in lines)
    if hits == 0:
        return 0.3 if header else 0.0
    score = 0.3 + 0.6 * hits / len(lines) + (0.2 if header else 0.0)
    if any(proc_rx.match(l) for l in lines) or any(_KNOWN.search(l) for l in lines):
        score += 0.1
    return clamp(score)


def parse(text: str) -> LsmodOutput:
    out = LsmodOutput()
    try:
        for raw in clean_lines(text):
            s = raw.strip()
            if not s:
                continue
            if re.match(r"^Module\s+Size\s+Used by", s):
                out.full_list = True
                continue
            m = _PROC.match(s)
            if m:
                out.full_list = True
                used = [u for u in m.group(4).split(",") if u and u != "-"]
                out.modules[m.group(1)] = Module(m.group(1), int(m.group(2)), int(m.group(3)), used, m.group(6))
                continue
            m = _LSMOD.match(s)
            if m:
                used = [u for u in (m.group(4) or "").split(",") if u and u != "-"]
                out.modules[m.group(1)] = Module(m.group(1), int(m.group(2)), int(m.group(3)), used)
    except Exception:  # pragma: no cover - defensive
        pass
    return out
