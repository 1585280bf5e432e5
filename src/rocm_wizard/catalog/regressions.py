"""Known regressions of a release (``data/regressions.toml``): a kernel series, a linux-firmware
release, an amdgpu-dkms build, a ROCm release or a torch wheel build, with its range, the GPUs it
hits, the symptoms by which it shows, the move that fixes it and its source.

Versions are compared as tuples of integers (:func:`key`): a kernel by its upstream base and build
(``6.17.0-20-generic`` -> base ``(6, 17, 0)``, build 20), linux-firmware by the release date its
package version begins with, amdgpu-dkms by its module base.  A range whose fix is unknown gives
*unknown* (None) past its newest known-bad release: unknown is never shown as fixed nor as bad.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Tuple

from . import data_path

COMPONENTS = ("kernel", "linux-firmware", "amdgpu-dkms", "rocm", "torch")
DEFAULT_LAYER = {"kernel": "kernel", "linux-firmware": "firmware", "amdgpu-dkms": "kernel", "rocm": "packaging",
                 "torch": "framework"}
STATUSES = ("documented", "observed", "inferred", "preview")
ANY_SYMPTOM = "any"

_NUM = re.compile(r"\d+")
_DATE = re.compile(r"(?:\d+:)?(20\d{6})(?!\d)")
_KERNEL = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?(?:-(\d+))?")
_DKMS = re.compile(r"(?:\d+:)?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class Regression:
    id: str
    component: str
    layer: str
    first_bad: str
    first_fixed: str
    last_bad: str
    builds_fixed: Tuple[str, ...]
    kernel_from: str
    kernel_below: str
    version_of: str
    blob: str
    blob_bad: Tuple[str, ...]
    blob_good: Tuple[str, ...]
    targets: Tuple[str, ...]
    symptoms: Tuple[str, ...]
    fix: str
    source: str
    status: str

    def hits_gfx(self, gfx: Optional[str]) -> bool:
        """Whether the row is about ``gfx`` ("all", an id, or a prefix ending in ``*``)."""
        if "all" in self.targets:
            return True
        g = (gfx or "").strip().lower()
        if not g:
            return False
        return any(g == t or (t.endswith("*") and g.startswith(t[:-1])) for t in self.targets)

    def signatures(self) -> FrozenSet[str]:
        """The error signature ids of the row's symptom classes."""
        table = symptom_classes()
        return frozenset(sig for c in self.symptoms for sig in table.get(c, ()))

    @property
    def fixed_text(self) -> str:
        return ("fixed in %s" % self.first_fixed) if self.first_fixed else "no fixed release known"


def key(component: str, version: Optional[str]) -> Optional[Tuple[int, ...]]:
    """The comparable form of ``version`` of ``component``, or None when it cannot be read.

    kernel: ``(major, minor, patch)``; linux-firmware: ``(YYYYMMDD,)``; amdgpu-dkms:
    ``(major, minor, patch)`` of the module base; rocm / torch: the numbers of the release, a
    pre-release's date kept (``7.14.0a20260612`` -> ``(7, 14, 0, 20260612)``)."""
    v = (version or "").strip()
    if not v or len(v) > 200:
        return None
    if component == "linux-firmware":
        m = _DATE.match(v)
        return (int(m.group(1)),) if m else None
    if component == "kernel":
        m = _KERNEL.match(v)
        return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None
    if component == "amdgpu-dkms":
        if v.lower().startswith("amdgpu/"):  # a dkms status line: amdgpu/6.16.13-2278356.24.04, 6.17.0-6-generic, ...
            v = v[7:]
        m = _DKMS.match(v)
        return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None
    nums = [int(n) for n in _NUM.findall(v.split("+", 1)[0])[:5]]
    return tuple(nums) or None


def _bound(component: str, version: str) -> Optional[Tuple[int, ...]]:
    """The key of a range bound; a bound of two numbers (6.18, 7.0) is a whole series."""
    k = key(component, version)
    if k is not None and re.fullmatch(r"\d+\.\d+", version.strip()):
        return k[:2]
    return k


def kernel_build(version: Optional[str]) -> Optional[int]:
    """The distribution build of a kernel release (``6.17.0-20-generic`` -> 20), None without one."""
    m = _KERNEL.match((version or "").strip())
    return int(m.group(4)) if m and m.group(4) else None


def _lt(a: Tuple[int, ...], b: Tuple[int, ...]) -> bool:
    """``a < b`` where ``b`` may be shorter (a series: 6.18 means every 6.18.x is not below it)."""
    return a[:len(b)] < b


def _le_series(a: Tuple[int, ...], b: Tuple[int, ...]) -> bool:
    """``a <= b`` where a shorter ``b`` is a series: 7.0 bounds every 7.0.x."""
    return a[:len(b)] <= b


def in_range(row: Regression, version: Optional[str]) -> Optional[bool]:
    """True when ``version`` of the row's component has the regression, False when it is outside
    its range (before it, or fixed), None when unknown (past the newest known-bad release of a
    regression with no known fix, or a version that cannot be read)."""
    k = key(row.component, version)
    if k is None:
        return None
    if row.component == "kernel" and row.builds_fixed:
        build = kernel_build(version)
        for entry in row.builds_fixed:
            base = key("kernel", entry)
            need = kernel_build(entry)
            if base is not None and need is not None and k == base and build is not None:
                return build < need
    first_bad = _bound(row.component, row.first_bad) if row.first_bad else None
    if row.component == "kernel" and row.first_bad and kernel_build(row.first_bad) is not None:
        # a distribution build (Ubuntu 6.8.0-44): that base, from that build on
        build = kernel_build(version)
        if first_bad is None or k != first_bad or build is None:
            return False
        if build < (kernel_build(row.first_bad) or 0):
            return False
        last = kernel_build(row.last_bad) if row.last_bad else None
        if last is not None and build > last:
            return None  # a later build of that base: no fix known, so unknown
        return True
    if first_bad is not None and _lt(k, first_bad):
        return False
    fixed = _bound(row.component, row.first_fixed) if row.first_fixed else None
    if fixed is not None:
        return _lt(k, fixed)
    last = _bound(row.component, row.last_bad) if row.last_bad else None
    if last is not None and not _le_series(k, last):
        return None
    return True


def _hex(v: str) -> Optional[int]:
    try:
        return int(v.strip(), 16)
    except (ValueError, AttributeError):
        return None


def blob_verdict(row: Regression, blobs: Optional[Dict[str, str]]) -> Optional[bool]:
    """What the firmware file's own version says (``blobs``: name -> "0x00000083" as amdgpu reports
    it): True for a known-bad one, False for a known-good one, None when the row names no file, the
    file's version is not known, or it is neither."""
    if not row.blob or not isinstance(blobs, dict):
        return None
    have = _hex(str(blobs.get(row.blob, "")))
    if have is None:
        return None
    if have in {_hex(b) for b in row.blob_bad}:
        return True
    if have in {_hex(b) for b in row.blob_good}:
        return False
    return None


def kernel_condition(row: Regression, kernel: Optional[str]) -> Optional[bool]:
    """Whether the row's kernel condition holds (``kernel_from``: from that series on;
    ``kernel_below``: older than it); True for a row without one, None when the kernel is unknown."""
    if not row.kernel_from and not row.kernel_below:
        return True
    k = key("kernel", kernel)
    if k is None:
        return None
    if row.kernel_from:
        f = _bound("kernel", row.kernel_from)
        if f is not None and _lt(k, f):
            return False
    if row.kernel_below:
        b = _bound("kernel", row.kernel_below)
        if b is not None and not _lt(k, b):
            return False
    return True


@functools.lru_cache(maxsize=1)
def _data() -> dict:
    from ._data import load_path

    return load_path(data_path("regressions.toml"))


@functools.lru_cache(maxsize=1)
def symptom_classes() -> Dict[str, Tuple[str, ...]]:
    return {str(k): tuple(str(s) for s in v) for k, v in (_data().get("symptom") or {}).items()}


def _t(value) -> Tuple[str, ...]:
    return tuple(str(v).strip().lower() for v in (value or ()))


@functools.lru_cache(maxsize=1)
def rows() -> Tuple[Regression, ...]:
    out = []
    for e in _data().get("regression", []):
        comp = str(e.get("component", ""))
        out.append(Regression(
            id=str(e["id"]), component=comp, layer=str(e.get("layer") or DEFAULT_LAYER.get(comp, "")),
            first_bad=str(e.get("first_bad", "")), first_fixed=str(e.get("first_fixed", "")),
            last_bad=str(e.get("last_bad", "")), builds_fixed=tuple(str(b) for b in e.get("builds_fixed", ())),
            kernel_from=str(e.get("kernel_from", "")), kernel_below=str(e.get("kernel_below", "")),
            version_of=str(e.get("version_of", "")), blob=str(e.get("blob", "")),
            blob_bad=tuple(str(b) for b in e.get("blob_bad", ())), blob_good=tuple(str(b) for b in e.get("blob_good", ())),
            targets=_t(e.get("targets")),
            symptoms=tuple(str(s) for s in e.get("symptoms", ())), fix=str(e.get("fix", "")),
            source=str(e.get("source", "")), status=str(e.get("status", "")),
        ))
    return tuple(out)


def for_component(component: str) -> List[Regression]:
    return [r for r in rows() if r.component == component]


def problems() -> List[str]:
    """What is wrong with the table (the lint test): unknown components, layers, statuses or
    symptom classes, unreadable versions, missing fix or source, duplicate ids."""
    from ..doctor.registry import LAYERS

    out: List[str] = []
    seen = set()
    classes = symptom_classes()
    for r in rows():
        if r.id in seen:
            out.append("%s: duplicate id" % r.id)
        seen.add(r.id)
        if r.component not in COMPONENTS:
            out.append("%s: unknown component %r" % (r.id, r.component))
        if r.layer not in LAYERS:
            out.append("%s: unknown layer %r" % (r.id, r.layer))
        if r.status not in STATUSES:
            out.append("%s: unknown status %r" % (r.id, r.status))
        if not r.fix.strip() or not r.source.strip():
            out.append("%s: no fix or no source" % r.id)
        if not r.targets:
            out.append("%s: no targets" % r.id)
        if not r.symptoms:
            out.append("%s: no symptoms" % r.id)
        for c in r.symptoms:
            if c != ANY_SYMPTOM and c not in classes:
                out.append("%s: unknown symptom class %r" % (r.id, c))
        comp = "rocm" if r.version_of == "rocm" else r.component
        for name in ("first_bad", "first_fixed", "last_bad"):
            v = getattr(r, name)
            if v and key(comp, v) is None:
                out.append("%s: %s %r cannot be read" % (r.id, name, v))
        for v in (r.kernel_from, r.kernel_below) + r.builds_fixed:
            if v and key("kernel", v) is None:
                out.append("%s: kernel %r cannot be read" % (r.id, v))
        for b in r.blob_bad + r.blob_good:
            if _hex(b) is None:
                out.append("%s: firmware version %r is not hexadecimal" % (r.id, b))
        if (r.blob_bad or r.blob_good) and not r.blob:
            out.append("%s: blob versions without a blob" % r.id)
        if not r.first_bad and not r.first_fixed:
            if r.component != "amdgpu-dkms":
                out.append("%s: neither first_bad nor first_fixed" % r.id)
    return out
