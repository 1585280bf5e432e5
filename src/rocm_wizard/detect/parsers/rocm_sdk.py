"""``rocm-sdk version`` and ``rocm-sdk targets``: the ROCm pip wheels' own CLI (TheRock ``RELEASES.md``).

``rocm-sdk version`` prints the version of the installed ``rocm`` wheels (``7.14.0``,
``7.11.0a20260112``); ``rocm-sdk targets`` the GPU targets they carry, ``;``-separated
(``gfx1100;gfx1101;gfx1102``).  Both are one bare line: only the prompt line naming ``rocm-sdk``
makes the recogniser sure; a line of gfx targets alone is a weak hint.
"""
from __future__ import annotations

from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clean_lines

KIND = "rocm-sdk"

_TARGETS = lazy(r"^gfx[0-9a-z]+(?:[;, ]+gfx[0-9a-z]+)*[;,]?$")
_TARGET = lazy(r"gfx[0-9a-z]+")
_VERSION = lazy(r"^(?P<v>\d+\.\d+(?:\.\d+)?(?:(?:a|rc)\d+|\.dev\d+)?)$")


@lean_dataclass
class RocmSdk:
    """What ``rocm-sdk version`` / ``rocm-sdk targets`` printed."""

    version: Optional[str] = None
    targets: List[str] = field(default_factory=list)


def looks_like(text: object) -> float:
    lines = [l.strip() for l in clean_lines(text)[:20] if l.strip()]
    if len(lines) == 1 and len(lines[0]) <= 2000 and _TARGETS.match(lines[0]):
        return 0.3
    if len(lines) == 1 and _VERSION.match(lines[0]):
        return 0.1  # any version line: only with the rocm-sdk prompt line
    return 0.0


def parse(text: object) -> RocmSdk:
    out = RocmSdk()
    try:
        for raw in clean_lines(text)[:200]:
            s = raw.strip()
            if not s or len(s) > 4000:
                continue
            if s.startswith("gfx") and _TARGETS.match(s):
                for t in _TARGET.findall(s):
                    if t not in out.targets:
                        out.targets.append(t)
                continue
            m = _VERSION.match(s)
            if m and out.version is None:
                out.version = m.group("v")
    except Exception:  # pragma: no cover - defensive
        pass
    return out
