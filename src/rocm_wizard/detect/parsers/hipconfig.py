"""The HIP version: ``hipconfig`` / ``hipconfig --version`` output and the ``share/hip/version`` file.

HIP is versioned apart from the ROCm release: ROCm 10.0 ships HIP ``7.15.26333-0000000``, the
7.14 images HIP ``7.14.60850`` (research sheet section 1.4).  The HIP version is recorded on its
own and never taken for the release.

Formats:

* ``hipconfig --version``: one line, ``7.15.26333-0000000``;
* ``hipconfig`` (full): ``HIP version  : 7.15.26333-0000000`` then ``ROCM_PATH    : /opt/rocm/core-10.0``...;
* ``share/hip/version``: ``HIP_VERSION_MAJOR=7`` / ``HIP_VERSION_MINOR=15`` / ``HIP_VERSION_PATCH=26333``
  (``HIP_PACKAGING_VERSION_PATCH=26333-0000000``).

RCCL's version banner prints a ``HIP version  :`` line too (ROCm/rccl src/init.cc, showVersion: ``RCCL version :``
then VERSION_STRING_EXTENDED's ``HIP version  :`` and ``ROCm version :``).  That is the HIP the library was built
against, wherever the library came from (a torch wheel's bundled librccl, one built by hand), not hipconfig's
answer: a labelled line within two lines after an ``RCCL version :`` line is not read here (the probe reads the
banner on its own terms, ``probes/rocm.py``).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines

KIND = "hipconfig"

# 7.15.26333-0000000, 6.4.43483-a187df25c, 7.14.60850 (a HIP patch level is a build number: 5 digits)
_VERSION = lazy(r"^(\d+)\.(\d+)\.(\d{3,6})(?:-([0-9A-Za-z]+))?$")
_LABELLED = lazy(r"^HIP version\s*:\s*(\S+)\s*$")
_PATH = lazy(r"^(ROCM_PATH|HIP_PATH)\s*:\s*(/\S*)\s*$")
_KEY = lazy(r"^(HIP_VERSION_MAJOR|HIP_VERSION_MINOR|HIP_VERSION_PATCH|HIP_VERSION_GITHASH|"
            r"HIP_PACKAGING_VERSION_PATCH)\s*=\s*(\S*)\s*$")


@lean_dataclass
class HipVersion:
    """What a hipconfig output or HIP version file says."""

    version: Optional[str] = None  # "7.15.26333"
    full: Optional[str] = None  # "7.15.26333-0000000"
    rocm_path: Optional[str] = None
    hip_path: Optional[str] = None


def _rccl_banner(lines: List[str], i: int) -> bool:
    """Whether the line at ``i`` follows an ``RCCL version :`` line (within two lines): RCCL's banner."""
    return any("RCCL version : " in lines[j] for j in range(max(0, i - 2), i))


def looks_like(text: object) -> float:
    """A ``HIP version :`` line (not RCCL's banner) or the version file's keys are sure; a lone HIP-style
    version line is too little (a prompt line naming hipconfig makes the recogniser sure)."""
    lines = [l.strip() for l in clean_lines(text)[:200] if l.strip()]
    if not lines:
        return 0.0
    if any(l.startswith("HIP version") and _LABELLED.match(l) and not _rccl_banner(lines, i)
           for i, l in enumerate(lines)):
        return clamp(0.9)
    keys = sum(1 for l in lines if l.startswith("HIP_") and _KEY.match(l))
    if keys >= 2:
        return clamp(0.85)
    if len(lines) == 1 and _VERSION.match(lines[0]):
        return 0.3
    return 0.0


def parse(text: object) -> HipVersion:
    out = HipVersion()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def _parse(text: object, out: HipVersion) -> None:
    keys: Dict[str, str] = {}
    lone = None
    lines = clean_lines(text)[:2000]
    for i, raw in enumerate(lines):
        s = raw.strip()
        if not s:
            continue
        m = _LABELLED.match(s) if s.startswith("HIP version") else None
        if m and _rccl_banner(lines, i):
            continue
        if m and out.full is None:
            _set(out, m.group(1))
            continue
        m = _PATH.match(s) if s.startswith(("ROCM_PATH", "HIP_PATH")) else None
        if m:
            if m.group(1) == "ROCM_PATH":
                out.rocm_path = out.rocm_path or m.group(2)
            else:
                out.hip_path = out.hip_path or m.group(2)
            continue
        m = _KEY.match(s) if s.startswith("HIP_") else None
        if m:
            keys.setdefault(m.group(1), m.group(2))
            continue
        if lone is None and _VERSION.match(s):
            lone = s
    if out.full is None and {"HIP_VERSION_MAJOR", "HIP_VERSION_MINOR", "HIP_VERSION_PATCH"} <= set(keys):
        nums = [keys["HIP_VERSION_MAJOR"], keys["HIP_VERSION_MINOR"], keys["HIP_VERSION_PATCH"]]
        if all(n.isdigit() for n in nums):
            out.version = ".".join(str(int(n)) for n in nums)
            pkg = keys.get("HIP_PACKAGING_VERSION_PATCH", "")
            suffix = pkg.split("-", 1)[1] if "-" in pkg else keys.get("HIP_VERSION_GITHASH", "")
            out.full = out.version + ("-" + suffix if suffix else "")
    if out.full is None and lone is not None:
        _set(out, lone)


def _set(out: HipVersion, value: str) -> None:
    m = _VERSION.match(value)
    if m:
        out.version = "%s.%s.%s" % (m.group(1), m.group(2), m.group(3))
        out.full = value
