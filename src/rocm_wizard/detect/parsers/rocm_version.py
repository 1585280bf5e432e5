"""ROCm release files: ``/opt/rocm*/.info/version`` and ``include/rocm-core/rocm_version.h``.

``.info/version`` is written by the rocm-core package: ``6.3.4-76`` (5.6 .. 6.4: release-build),
``7.0.0`` (newer: no build id), optionally with a fourth ``.point`` component.  The header defines
``ROCM_VERSION_MAJOR`` / ``_MINOR`` / ``_PATCH`` and ``ROCM_BUILD_INFO``.
"""
from __future__ import annotations

import re
from typing import Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines

KIND = "rocm-info-version"  # a pasted `cat /opt/rocm/.info/version`

_INFO = lazy(r"^(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?(?:-(\d+))?")
_L_DEFINE_MAJOR = lazy(r"^\s*#\s*define\s+ROCM_VERSION_MAJOR\b")


@lean_dataclass
class RocmRelease:
    """A ROCm release as a release file states it."""

    version: Optional[str] = None  # "6.3.4" (or "6.3.4.1" with a point component)
    build: Optional[str] = None  # "76"
    raw: Optional[str] = None


def looks_like(text: str) -> float:
    """A lone version line is too little to be sure of (0.3); the command on the prompt line
    (``cat /opt/rocm/.info/version``) makes the recogniser sure."""
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if len(lines) == 1 and _INFO.fullmatch(lines[0]):
        return 0.3
    if any("ROCM_VERSION_MAJOR" in l and _L_DEFINE_MAJOR.match(l) for l in lines):
        return clamp(0.8)
    return 0.0


def parse(text: str) -> RocmRelease:
    """``.info/version`` or ``rocm_version.h`` text."""
    rel = parse_version_header(text)
    return rel if rel.version else parse_info_version(text)


def parse_info_version(text: object) -> RocmRelease:
    for line in clean_lines(text):
        s = line.strip()
        m = _INFO.match(s)
        if m:
            ver = "%s.%s.%s" % (m.group(1), m.group(2), m.group(3))
            if m.group(4):
                ver += "." + m.group(4)
            return RocmRelease(ver, m.group(5), s)
        if s:
            return RocmRelease(None, None, s)
    return RocmRelease()


def parse_version_header(text: object) -> RocmRelease:
    vals = {}
    for line in clean_lines(text):
        m = re.match(r"^\s*#\s*define\s+ROCM_(VERSION_MAJOR|VERSION_MINOR|VERSION_PATCH|BUILD_INFO)\s+(.+?)\s*$", line)
        if m:
            vals[m.group(1)] = m.group(2).strip().strip('"')
    try:
        ver = "%d.%d.%d" % (int(vals["VERSION_MAJOR"]), int(vals["VERSION_MINOR"]), int(vals["VERSION_PATCH"]))
    except (KeyError, ValueError):
        return RocmRelease(raw=vals.get("BUILD_INFO"))
    build = vals.get("BUILD_INFO")
    m = re.search(r"-(\d+)", build or "")
    return RocmRelease(ver, m.group(1) if m else None, build)


def version_from_dirname(name: str) -> Optional[str]:
    """``rocm-6.2.4`` -> ``6.2.4``; ``rocm`` -> None."""
    m = re.match(r"^rocm-(\d+\.\d+(?:\.\d+){0,2})(?:$|[-_])", name)
    return m.group(1) if m else None
