"""``dkms status`` -> module builds per kernel.

New form: ``amdgpu/6.8.5-2041575.24.04, 6.8.0-45-generic, x86_64: installed``; old form:
``amdgpu, 5.18.2.22.40-1483871.el9, 5.14.0-70.30.1.el9_0.x86_64, x86_64: installed``; a module that
is only added/built has no kernel part (``amdgpu/6.3.6-1697589.22.04: added``).  Trailing
``(WARNING! ...)`` remarks are kept.
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines

KIND = "dkms"

_LINE = lazy(r"^(?P<head>[^:]+?):\s*(?P<status>[A-Za-z][\w ]*?)\s*(?P<remark>\(.*\))?\s*$")


@lean_dataclass
class DkmsEntry:
    """One line of ``dkms status``."""

    module: str
    version: Optional[str] = None
    kernel: Optional[str] = None
    arch: Optional[str] = None
    status: Optional[str] = None  # installed | built | added | ...
    remark: Optional[str] = None  # "(WARNING! Diff between built and installed module!)"
    line: Optional[str] = None


@lean_dataclass
class DkmsOutput:
    """The entries and error lines of ``dkms status``."""

    entries: List[DkmsEntry] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)

    def module(self, name: str) -> List[DkmsEntry]:
        return [e for e in self.entries if e.module == name]

    @property
    def amdgpu(self) -> List[DkmsEntry]:
        return self.module("amdgpu")


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if not lines:
        return 0.0
    # every status _entry accepts starts with one of these words: other lines are not tried
    hits = sum(1 for l in lines if _has_status_word(l) and _entry(l) is not None)
    if not hits:
        return 0.0
    return clamp(0.4 + 0.6 * hits / len(lines))


def parse(text: str) -> DkmsOutput:
    out = DkmsOutput()
    try:
        for raw in clean_lines(text):
            s = raw.strip()
            if not s:
                continue
            e = _entry(s)
            if e is not None:
                out.entries.append(e)
            elif s.lower().startswith(("error", "warning")):
                out.errors.append(s)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def _has_status_word(s: str) -> bool:
    low = s.lower()
    return "installed" in low or "built" in low or "added" in low or "broken" in low


def _entry(s: str) -> Optional[DkmsEntry]:
    m = _LINE.match(s)
    if not m:
        return None
    status = m.group("status").strip().lower()
    if status not in ("installed", "built", "added", "installed-weak", "broken", "built-in") and not status.startswith(
            ("installed", "built", "added", "broken")):
        return None
    head = [p.strip() for p in m.group("head").split(",")]
    if not head or not head[0]:
        return None
    first = head[0]
    if "/" in first:
        module, version = first.split("/", 1)
        rest = head[1:]
    else:
        module = first
        version = head[1] if len(head) > 1 else None
        rest = head[2:]
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", module):
        return None
    kernel = rest[0] if len(rest) >= 1 else None
    arch = rest[1] if len(rest) >= 2 else None
    return DkmsEntry(module, version, kernel, arch, status, m.group("remark"), s)
