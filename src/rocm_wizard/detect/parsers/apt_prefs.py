"""APT preferences (``/etc/apt/preferences``, ``/etc/apt/preferences.d/*``) -> pins.

AMD's documented pin is ``Package: *`` / ``Pin: release o=repo.radeon.com`` /
``Pin-Priority: 600`` in ``/etc/apt/preferences.d/rocm-pin-600``.  Stanzas are separated by blank
lines; ``Explanation:`` and comment lines are ignored.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, List, Optional

from ._paste import clamp, clean_lines
from .apt_sources import DEFAULT_RADEON_HOSTS

KIND = "apt-prefs"


@dataclass
class Pin:
    package: Optional[str] = None
    pin: Optional[str] = None
    priority: Optional[int] = None
    file: Optional[str] = None
    lineno: Optional[int] = None

    def mentions_radeon(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> bool:
        text = (self.pin or "").lower()
        return any(h.lower() in text for h in radeon_hosts)

    @property
    def origin(self) -> Optional[str]:
        """``o=repo.radeon.com`` / ``origin "repo.radeon.com"`` -> ``repo.radeon.com``."""
        p = self.pin or ""
        m = re.search(r"\bo=([^,\s]+)", p) or re.search(r'^origin\s+"?([^"\s]+)"?', p)
        return m.group(1) if m else None


@dataclass
class AptPrefsOutput:
    pins: List[Pin] = field(default_factory=list)

    def radeon(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> List[Pin]:
        return [p for p in self.pins if p.mentions_radeon(radeon_hosts)]


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip() and not l.strip().startswith("#")]
    if not lines:
        return 0.0
    keys = sum(1 for l in lines if re.match(r"^(Package|Pin|Pin-Priority|Explanation)\s*:", l, re.I))
    if not any(re.match(r"^Pin-Priority\s*:", l, re.I) for l in lines):
        return 0.0
    return clamp(0.4 + 0.6 * keys / len(lines))


def parse(text: str, file: Optional[str] = None) -> AptPrefsOutput:
    out = AptPrefsOutput()
    try:
        cur: Optional[Pin] = None
        for no, raw in enumerate(clean_lines(text, dedent=False) + [""], 1):
            s = raw.strip()
            if not s:
                if cur is not None and (cur.pin or cur.priority is not None):
                    out.pins.append(cur)
                cur = None
                continue
            if s.startswith("#"):
                continue
            m = re.match(r"^([A-Za-z\-]+)\s*:\s*(.*)$", s)
            if not m:
                continue
            key, value = m.group(1).lower(), m.group(2).strip()
            if cur is None:
                cur = Pin(file=file, lineno=no)
            if key == "package":
                cur.package = value
            elif key == "pin":
                cur.pin = value
            elif key == "pin-priority":
                try:
                    cur.priority = int(value.split()[0])
                except (ValueError, IndexError):
                    cur.priority = None
    except Exception:  # pragma: no cover - defensive
        pass
    return out
