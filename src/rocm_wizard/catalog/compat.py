"""Compatibility rules as data (``data/compat.toml``): the constraints every way out is checked
against, the ranking, AMD's user/kernel-space window, driver trains, WSL and APU facts.

API::

    compat.constraints() -> [Constraint]                 # id, paths, text, on_unknown, sources
    compat.constraint("wheel-has-gfx") -> Constraint
    compat.path_order() -> ("torch-reinstall", "docker", "rocm-upgrade")
    compat.driver_train_of_package("1:6.16.13.30300000-2278356.24.04") -> "30.30"
    compat.driver_train_of_rocm("7.2.1") -> "30.30";  ("6.4.3") -> "6.4"
    compat.in_window("30.30", "6.4") -> (True, "documented")    # None when unknown
    compat.wsl_supports("gfx1101", "7.2", "AMD Radeon RX 7800 XT") -> (True, WslSupport)
    compat.not_torch_workloads(text) -> ["ollama"]
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ._data import CatalogError, load, tup

FILE = "compat.toml"


@dataclass(frozen=True)
class Constraint:
    id: str
    paths: Tuple[str, ...]
    text: str
    on_unknown: str  # allow | reject
    sources: Tuple[str, ...]
    on_no_gpu: str = ""  # allow | reject when the unknown is that no GPU is known ("" = on_unknown)


@dataclass(frozen=True)
class WslSupport:
    rocm_min: str
    gfx: Tuple[str, ...]
    products: Tuple[Tuple[str, Tuple[str, ...]], ...]
    status: str
    sources: Tuple[str, ...]


@functools.lru_cache(maxsize=1024)  # (a Version is immutable; the same few releases are compared for every GPU)
def _v(text: str):
    from packaging.version import Version

    return Version(text)


def _series(version: object) -> Optional[str]:
    m = re.match(r"^\s*(\d+)\.(\d+)", str(version or ""))
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


@functools.lru_cache(maxsize=None)
def _constraints() -> Tuple[Constraint, ...]:
    out = []
    for e in load(FILE).get("constraint", []):
        if e.get("on_unknown") not in ("allow", "reject"):
            raise CatalogError(f"compat.toml: constraint {e.get('id')!r} has no valid on_unknown")
        out.append(Constraint(id=e["id"], paths=tup(e.get("paths")), text=e.get("text", ""),
                              on_unknown=e["on_unknown"], sources=tup(e.get("sources")),
                              on_no_gpu=e.get("on_no_gpu", "")))
    return tuple(out)


def constraints() -> List[Constraint]:
    return list(_constraints())


def constraint(cid: str) -> Constraint:
    for c in _constraints():
        if c.id == cid:
            return c
    raise CatalogError(f"compat.toml has no constraint {cid!r}")


def path_order() -> Tuple[str, ...]:
    return tup(load(FILE)["rank"]["paths"])


def torch_rank_keys() -> Tuple[str, ...]:
    return tup(load(FILE)["rank"]["torch"])


# ------------------------------------------------------------------ kernel driver
def window_sources() -> Tuple[str, ...]:
    return tup(load(FILE)["kmd_window"].get("sources"))


def driver_train_of_package(version: object) -> Optional[str]:
    """The driver train named by an installed amdgpu-dkms (or amd-smi "amdgpu version") string:
    ``1:6.8.5.60200-...`` -> ``6.2``; ``1:6.16.13.30300000-...`` -> ``30.30``; None when the
    string carries neither field (an in-tree driver, a bare dkms base such as ``6.8.5``)."""
    text = str(version or "").strip()
    m = re.search(r"(?:^|[:.\s/])\d+\.\d+\.\d+\.(\d{5}|\d{8})(?:[-.\s]|$)", text)
    if not m:
        return None
    field = m.group(1)
    if len(field) == 5:
        return f"{int(field[0])}.{int(field[1:3])}"
    return f"{int(field[0:2])}.{int(field[2:4])}"


def driver_train_examples() -> List[Tuple[str, str]]:
    return [(e["version"], e["train"]) for e in load(FILE)["driver_version"].get("examples", [])]


def driver_train_of_rocm(version: object) -> Optional[str]:
    """The driver train a ROCm release ships (up to 6.4 it carries the release's series)."""
    series = _series(version)
    if series is None:
        return None
    for e in load(FILE)["kmd_window"].get("driver_train", []):
        if e["rocm"] == series:
            return str(e["train"])
    if _v(series) < _v("7.0"):
        return series
    return None


def in_window(train: Optional[str], user_space: object) -> Tuple[Optional[bool], str]:
    """(whether driver ``train`` supports ROCm user space ``user_space``, the fact's status).
    None when the train is unknown or the user space is newer than AMD's published table -- unless
    the train's window already closes inside the table (a 6.2 driver ends at 7.0: 10.1 is past it)."""
    series = _series(user_space)
    if not train or series is None:
        return None, "unknown"
    w = load(FILE)["kmd_window"]
    for e in w.get("driver", []):
        if e["train"] == train:
            if _v(series) > _v(str(w["horizon"])):
                if _v(str(e["user_max"])) < _v(str(w["horizon"])):
                    return False, str(e.get("status", "unknown"))
                return None, "unknown"
            ok = _v(str(e["user_min"])) <= _v(series) <= _v(str(e["user_max"]))
            return ok, str(e.get("status", "unknown"))
    # a train older than every documented one (a 4.x/5.x driver): AMD's windows only move forward with
    # the train, so user space past the oldest documented train's end is outside its window too
    try:
        docs = [e for e in w.get("driver", []) if e.get("status") == "documented"]
        oldest = min(docs, key=lambda e: _v(str(e["train"])))
        if _v(train) < _v(str(oldest["train"])) and _v(series) > _v(str(oldest["user_max"])):
            return False, "documented"
    except (ValueError, TypeError):
        pass
    return None, "unknown"


def window_of(train: Optional[str]) -> Optional[Tuple[str, str]]:
    for e in load(FILE)["kmd_window"].get("driver", []):
        if e["train"] == train:
            return str(e["user_min"]), str(e["user_max"])
    return None


# ------------------------------------------------------------------ WSL
@functools.lru_cache(maxsize=None)
def _wsl() -> Tuple[WslSupport, ...]:
    out = []
    for e in load(FILE)["wsl"].get("support", []):
        products = tuple(sorted((k, tup(v)) for k, v in (e.get("products") or {}).items()))
        out.append(WslSupport(rocm_min=str(e["rocm_min"]), gfx=tup(e.get("gfx")), products=products,
                              status=e.get("status", "unknown"), sources=tup(e.get("sources"))))
    out.sort(key=lambda s: _v(s.rocm_min))
    return tuple(out)


def wsl_first_release() -> str:
    return str(load(FILE)["wsl"]["first_release"])


def wsl_facts() -> Dict[str, object]:
    return dict(load(FILE)["wsl"])


def wsl_core_sdk_refusal(version: object = "") -> Tuple[str, Tuple[str, ...]]:
    """(why rocm-wizard does not plan the Core SDK release ``version`` under WSL -- every 10.x row
    when no version is given --, its sources): the one text the plan's refusal and the doctor give
    (compat.toml ``[wsl.core_sdk]``)."""
    c = dict(wsl_facts().get("core_sdk") or {})
    rows = [dict(r) for r in c.get("releases", [])]
    v = version_key(str(version)) if version else None
    if v is not None:  # the newest row not newer than the release
        rows = [r for r in rows if version_key(str(r["rocm"]))[:2] <= v[:2]][-1:]
    listed = ("AMD lists WSL2 for the Core SDK (its OS support list, per product)" if c.get("listed") else
              "AMD does not list WSL2 for the Core SDK")
    parts = [f"ROCm {r['rocm']}{'.x' if not version else ''} reaches the GPU through {r['thunk']} "
             f"({r.get('status', 'unknown')}), and {r['why_not']}" for r in rows]
    if not parts:
        parts = [f"no WSL way of ROCm {version} is known to rocm-wizard"]
    text = (f"{listed}; {c.get('abi', 'the thunk must match the runtime')}, so the 7.2.x librocdxg source build is "
            "no way for it; " + "; ".join(parts) + ": rocm-wizard plans no Core SDK release under WSL")
    srcs = tup(c.get("listed_sources")) + tup(c.get("abi_sources")) + tuple(s for r in rows for s in r.get("sources", ()))
    return text, tuple(dict.fromkeys(srcs))


def wsl_supports(gfx: Optional[str], rocm: object, product: object = "") -> Tuple[Optional[bool], Optional[WslSupport]]:
    """Whether AMD supports ``gfx`` (the card named ``product``) under WSL with ROCm ``rocm``.
    None when the ROCm release or the GPU is unknown, or the product name cannot tell."""
    if not gfx:
        return None, None
    ver = str(rocm or "").strip()
    if not re.match(r"^\d+\.\d+", ver):
        return None, None
    rows = [s for s in _wsl() if _v(re.match(r"^\d+(?:\.\d+){1,2}", ver).group(0)) >= _v(s.rocm_min)]
    if not rows:
        return False, None  # older than the first WSL release
    row = rows[-1]
    if gfx not in row.gfx:
        return False, row
    names = dict(row.products).get(gfx)
    if names:
        text = str(product or "")
        if not text:
            return None, row
        return any(n.lower() in text.lower() for n in names), row
    return True, row


def wsl_generation(rocm: object) -> Optional[str]:
    """The ROCm-on-WSL user space of release ``rocm``: "rocr4wsl" (6.1.3 to 7.1) or "librocdxg" (7.2 on);
    None for a release before WSL support or an unreadable one."""
    m = re.match(r"^\d+(?:\.\d+){1,2}", str(rocm or "").strip())
    if not m:
        return None
    v = _v(m.group(0))
    w = load(FILE)["wsl"]
    if v < _v(str(w["first_release"])):
        return None
    return "rocr4wsl" if v.release[:2] <= _v(str(w["rocr4wsl_until"])).release[:2] else "librocdxg"


def wsl_first_listing(gfx: Optional[str], product: object = "") -> Optional[WslSupport]:
    """The first WSL support row that lists ``gfx`` (and, where a row narrows the target by product, the
    card named ``product``); None when no row does.  A row whose product list cannot be checked (no
    name) counts as listing it."""
    if not gfx:
        return None
    text = re.sub(r"\s+", "", str(product or "")).lower()  # "RX 7700XT" and "RX 7700 XT" alike
    for row in _wsl():
        if gfx not in row.gfx:
            continue
        names = dict(row.products).get(gfx)
        if names and text and not any(re.sub(r"\s+", "", n).lower() in text for n in names):
            continue
        return row
    return None


@dataclass(frozen=True)
class WslDriver:
    rocm: str  # the WSL release the row is for
    min: str  # the oldest Adrenalin AMD named for it
    status: str
    sources: Tuple[str, ...]


def wsl_adrenalin(rocm: object) -> Optional[WslDriver]:
    """The Windows driver row for ROCm ``rocm`` under WSL: the newest row at or before the release,
    within the same user space (rocr4wsl); None for librocdxg releases (AMD names no version) or when
    nothing is known."""
    m = re.match(r"^\d+(?:\.\d+){1,2}", str(rocm or "").strip())
    if not m or wsl_generation(m.group(0)) != "rocr4wsl":
        return None
    v = _v(m.group(0))
    rows = sorted((WslDriver(str(e["rocm"]), str(e["min"]), str(e.get("status", "unknown")), tup(e.get("sources")))
                   for e in load(FILE)["wsl"].get("adrenalin", [])), key=lambda r: _v(r.rocm))
    best = None
    for r in rows:
        if _v(r.rocm) <= v:
            best = r
    return best


def wsl_windows(generation: Optional[str]) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(the Windows releases AMD lists for the WSL user space ``generation``, their sources); empty
    when none is known."""
    w = load(FILE)["wsl"].get("windows") or {}
    if not generation or generation not in w:
        return (), ()
    return tup(w[generation]), tup(w.get("sources"))


def wsl_runtime_missing(rocm: object) -> Optional[Tuple[str, ...]]:
    """The sources saying release ``rocm``'s repositories have no WSL runtime package; None when not known
    to be missing."""
    key = version_key(rocm)
    for e in load(FILE)["wsl"].get("no_wsl_runtime", []) or []:
        if version_key(e["rocm"]) == key:
            return tup(e.get("sources"))
    return None


def version_key(text: object) -> Tuple[int, ...]:
    """A dotted version as a tuple of integers (digits only; empty for none)."""
    return tuple(int(x) for x in re.findall(r"\d+", str(text or ""))[:4])


# ------------------------------------------------------------------ APUs and workloads
def apu_facts() -> Dict[str, object]:
    return dict(load(FILE)["apu"])


def _match(rows: Sequence[dict], text: str) -> List[str]:
    low = (text or "").lower()
    return [r["id"] for r in rows if any(p.lower() in low for p in r.get("patterns", []))]


def workload_lines(kind: str, text: str) -> List[Tuple[str, str]]:
    """(workload id, the line that shows it) for ``kind`` "not_torch" or "vendor_triton"."""
    out = []
    for r in load(FILE)["workloads"].get(kind, []):
        for line in (text or "").splitlines():
            if any(p.lower() in line.lower() for p in r.get("patterns", [])):
                out.append((r["id"], line.strip()[:200]))
                break
    return out


def not_torch_workloads(text: str) -> List[str]:
    return _match(load(FILE)["workloads"].get("not_torch", []), text)


def vendor_triton_containers(text: str) -> List[str]:
    return _match(load(FILE)["workloads"].get("vendor_triton", []), text)


def all_sources() -> List[str]:
    """Every source tag the file cites (for the lint test)."""
    data = load(FILE)
    tags: List[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k.endswith("sources") and isinstance(v, list):
                    tags.extend(str(x) for x in v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    return tags
