"""Installed Python distributions from ``pip freeze`` / ``pip list`` / ``uv pip list`` pastes.

Formats:

* freeze: ``torch==2.5.1+rocm6.2``, ``name @ file:///...`` (version unknown), ``-e git+...#egg=name``;
* ``pip list`` columns (``Package  Version  [Editable project location]`` with a dashed rule), also
  pasted without the header (``pip list | grep torch``);
* ``pip list --format=freeze`` is the freeze format;
* ``uv pip install`` / ``uv pip sync`` summaries: `` + torch==2.7.1+rocm7.0.0rc20250731`` (installed) and
  `` - torch==2.6.0`` (removed, not kept).

Names are PEP 503 normalised (``pytorch_triton_rocm`` -> ``pytorch-triton-rocm``).
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, Optional

from ...model import lean_dataclass
from ._core_text import lazy, content_lines
from .collect_env import norm_name

KIND = "pip-freeze"

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VERSION = r"v?\d+(?:\.\d+)*(?:[._-]?(?:a|b|c|rc|alpha|beta|pre|preview)\.?\d*)?(?:[._-]?(?:post|rev|r)\.?\d*)?" \
           r"(?:[._-]?dev\.?\d*)?(?:\+[A-Za-z0-9.]+)?"
_FREEZE = lazy(r"^(?P<name>" + _NAME + r")\s*(?:\[[^\]]*\])?\s*===?\s*(?P<ver>\S+?)\s*$")
_AT = lazy(r"^(?P<name>" + _NAME + r")\s*(?:\[[^\]]*\])?\s+@\s+\S+")
# the wheel file a "name @ URL" line points at: .../torch-2.0.1%2Brocm5.7-cp310-cp310-linux_x86_64.whl
_WHEEL_FILE = lazy(r"/(?P<name>[A-Za-z0-9_.]+)-(?P<ver>\d[^-/\s]*)-(?:\d[^-/\s]*-)?[a-z]{2}\d[^-/\s]*-[^-/\s]+-[^-/\s]+\.whl$")
_UV_CHANGE = lazy(r"^(?P<op>[+-])\s(?P<name>" + _NAME + r")==(?P<ver>\S+)$")
_UV_HEADER = lazy(r"^(?:(?:Resolved|Prepared|Installed|Uninstalled|Audited|Downloaded) \d+ packages? in |Built \S+==|"
                  r"Using Python \d)")
_EDITABLE = lazy(r"^-e\s+\S*#egg=(?P<name>" + _NAME + r")")
_COLUMNS = lazy(r"^(?P<name>" + _NAME + r")\s+(?P<ver>" + _VERSION + r")(?:\s+(?P<loc>/\S.*))?$")
_HEADER = lazy(r"^Package\s+Version(\s+.*)?$")
_RULE = lazy(r"^-{3,}(\s+-{3,})+\s*$")


@lean_dataclass
class PipPackages:
    """The distributions of a ``pip freeze`` / ``pip list`` output."""

    packages: Dict[str, str] = field(default_factory=dict)  # normalised name -> version ("" when unknown)
    format: Optional[str] = None  # freeze | list
    skipped: int = 0  # lines that were not package lines

    @property
    def ok(self) -> bool:
        return bool(self.packages)

    def get(self, name: str) -> Optional[str]:
        return self.packages.get(norm_name(name))


def _classify(line: str):
    s = line.strip()
    if s[:1] in "RPIUADB" and _UV_HEADER.match(s):
        return ("header", None, None)  # uv pip install / sync summary lines
    if ":" in s.split(" ", 1)[0] or (s.count(" ") > 2 and "==" not in s and " @ " not in s and len(s.split()) > 3):
        return (None, None, None)  # "Key: value" lines and prose are never package lines
    # each pattern is tried only when its literal part is there (an unused pattern is never compiled)
    if s[:1] in "+-" and "==" in s:
        m = _UV_CHANGE.match(s)
        if m:
            return ("freeze" if m.group("op") == "+" else "removed", m.group("name"), m.group("ver"))
    if (s.startswith("Package") and _HEADER.match(s)) or (s.startswith("---") and _RULE.match(s)):
        return ("header", None, None)
    m = _FREEZE.match(s) if "==" in s else None
    if m:
        return ("freeze", m.group("name"), m.group("ver"))
    m = _AT.match(s) if "@" in s else None
    if m:
        return ("freeze", m.group("name"), _wheel_version(s, m.group("name")))
    m = _EDITABLE.match(s) if s.startswith("-e") else None
    if m:
        return ("freeze", m.group("name"), "")
    m = _COLUMNS.match(s) if len(s.split(None, 1)) > 1 else None
    if m:
        return ("list", m.group("name"), m.group("ver"))
    return (None, None, None)


def _wheel_version(line: str, name: str) -> str:
    """The version in the wheel file name of a ``torch @ file:///.../torch-2.0.1%2Brocm5.7-...whl``
    line ('' when the URL is not a wheel of that project)."""
    url = line.rsplit(" ", 1)[-1].split("#", 1)[0]
    if not url.endswith(".whl"):
        return ""
    m = _WHEEL_FILE.search(url.replace("%2B", "+").replace("%2b", "+"))
    if not m or norm_name(m.group("name")) != norm_name(name):
        return ""
    return m.group("ver")


def looks_like(text: object) -> float:
    if not isinstance(text, str):
        return 0.0
    head = content_lines(text[:4096])
    if not head:
        return 0.0
    # most of the first lines must already be package lines (or the pip list header): at least
    # half of them (asked in turn, stopping once more than half are not)
    half = min(len(head), 30) / 2
    misses = 0
    for l in head[:30]:
        if not _classify(l)[0]:
            misses += 1
            if misses > half:
                return 0.0
    body = content_lines(text, limit=400)  # (only the first 400 are looked at)
    sample = body[:400]
    kinds = [_classify(l)[0] for l in sample]
    header = "header" in kinds
    pkg = sum(1 for k in kinds if k in ("freeze", "list", "removed"))
    frz = sum(1 for k in kinds if k == "freeze")
    share = pkg / len(sample)
    if header and share >= 0.5:
        return 0.95
    if frz >= 1 and frz / len(sample) >= 0.7:
        return round(min(0.9, 0.6 + 0.3 * share), 3)
    if pkg >= 2 and share >= 0.8:
        return 0.6
    if pkg == 1 and share == 1.0:
        return 0.4
    return 0.0


def parse(text: object) -> PipPackages:
    res = PipPackages()
    for line in content_lines(text):
        kind, name, ver = _classify(line)
        if kind in ("freeze", "list") and name:
            res.packages.setdefault(norm_name(name), ver or "")
            if res.format is None or kind == "freeze":
                res.format = res.format or kind
        elif kind == "header":
            res.format = "list"
        elif kind == "removed":
            continue
        else:
            res.skipped += 1
    return res
