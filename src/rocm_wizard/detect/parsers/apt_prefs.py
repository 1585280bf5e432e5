"""APT preferences (``/etc/apt/preferences``, ``/etc/apt/preferences.d/*``) -> pins.

AMD's documented pin is ``Package: *`` / ``Pin: release o=repo.radeon.com`` /
``Pin-Priority: 600`` in ``/etc/apt/preferences.d/rocm-pin-600``.  Stanzas are separated by blank
lines; ``Explanation:`` and comment lines are ignored.
"""
from __future__ import annotations

import re
from ...model import field
from typing import Iterable, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines
from .apt_sources import DEFAULT_RADEON_HOSTS

KIND = "apt-prefs"


@lean_dataclass
class Pin:
    """One stanza of an apt preferences file."""

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


@lean_dataclass
class AptPrefsOutput:
    """The stanzas of an apt preferences file."""

    pins: List[Pin] = field(default_factory=list)

    def radeon(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> List[Pin]:
        return [p for p in self.pins if p.mentions_radeon(radeon_hosts)]


_L_KEY = lazy(r"^(Package|Pin|Pin-Priority|Explanation)\s*:", re.I)
_L_PRIORITY = lazy(r"^Pin-Priority\s*:", re.I)


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip() and not l.strip().startswith("#")]
    if not lines:
        return 0.0
    priority_rx = _L_PRIORITY.get()
    if not any(priority_rx.match(l) for l in lines):
        return 0.0
    key_rx = _L_KEY.get()
    keys = sum(1 for l in lines if key_rx.match(l))
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
