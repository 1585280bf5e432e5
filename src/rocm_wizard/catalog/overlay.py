"""The local catalog overlay: what ``rocm-wizard catalog refresh`` learnt, kept beside the bundled
catalog and merged into it when the catalog's data files are loaded.

Where it lives (:func:`path`): ``$ROCM_WIZARD_CATALOG_OVERLAY`` when set; else, for root,
``/var/lib/rocm-wizard/catalog-overlay.json``; else ``$XDG_CACHE_HOME/rocm-wizard/catalog-overlay.json``
(``~/.cache/...``).  ``$ROCM_WIZARD_CATALOG_OVERLAY=/dev/null`` (:func:`bundled_only`, which ``--demo``
calls) means no overlay: the bundled catalog alone, this machine's overlay never read.  Root reads only a file owned by root that nobody else can write: root never
acts on what another user controls.  The file is JSON with its own versioned schema
(:data:`SCHEMA`); it is written whole by :func:`save` (atomic replace), so a failed refresh leaves
the previous overlay as it was.  A damaged or foreign file is ignored and reported by
:func:`problems` (``catalog status``, ``doctor``), never fatal.

**The one merge point** is :func:`apply`, called by ``_data.load`` for every catalog data file.
It maps learnt facts onto the bundled files' current layout:

* ``torch_wheels.toml``: a learnt index becomes ``[indexes."rocmX.Y"]`` — its gfx list only when it
  was read from a wheel (``gfx_status = "observed"``); an *inferred* list stays in the overlay and
  the index gets ``gfx_status = "unknown"``, so the resolver treats its coverage as unknown.  A
  learnt torch release becomes a ``[[torch]]`` entry (``status = "observed"``, sources = the URLs it
  was read from), or adds its index to the bundled entry of that version.
* ``docker.toml``: a learnt ``rocm/pytorch`` tag becomes a ``[[pytorch.tag]]`` (``status = "observed"``).
* Other learnt facts (ROCm releases seen in AMD's apt repositories, AMD's pip index) are listed by
  ``catalog status`` only: a Release file says nothing about gfx support or kernels, so they are
  not plannable facts.

When the catalog's schema changes, only :func:`apply` has to follow it.

API::

    overlay.path() -> str
    overlay.read() -> dict | None           # the overlay as written (None: none or unusable)
    overlay.save(data, path=None)            # atomic; raises OSError
    overlay.apply(name, data) -> data        # the merge point (see above)
    overlay.problems() -> [str]              # why an overlay present was ignored
    overlay.bundled_date() -> "2026-11-21"
    overlay.knowledge_date() -> date         # newest of bundled and overlay dates
    overlay.knowledge() -> {"knowledge_date", "bundled", "overlay", "stale"}   # for doctor --json, the TUI
    overlay.stale_warning(on=None) -> str | None   # older than STALE_DAYS on that day (default today()),
                                                   # with how to refresh; $ROCM_WIZARD_TODAY sets today
"""
from __future__ import annotations

import functools
import json
import os
import re
from typing import TYPE_CHECKING, Any, Dict, List, Optional

if TYPE_CHECKING:  # datetime and copy are imported where used: loading the catalog stays lean
    import datetime as _dt

SCHEMA = "rocm-wizard-catalog-overlay/1"
ENV = "ROCM_WIZARD_CATALOG_OVERLAY"
SYSTEM_PATH = "/var/lib/rocm-wizard/catalog-overlay.json"
STALE_DAYS = 90
MAX_BYTES = 8 * 1024 * 1024
_MERGED = ("torch_wheels.toml", "docker.toml")
_problems: List[str] = []


def path() -> str:
    env = os.environ.get(ENV)
    if env:
        return env
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return SYSTEM_PATH
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rocm-wizard", "catalog-overlay.json")


def bundled_only() -> None:
    """From now on, this process and the processes it starts use the bundled catalog alone, never
    this machine's overlay (``--demo``: the demo system's advice does not depend on the machine)."""
    os.environ[ENV] = os.devnull
    read.cache_clear()
    from ._data import load

    load.cache_clear()


def problems() -> List[str]:
    read()
    return list(_problems)


def _valid(data: Any) -> bool:
    return (isinstance(data, dict) and data.get("schema") == SCHEMA and isinstance(data.get("created"), str)
            and all(isinstance(data.get(k, []), list) for k in ("torch", "docker_tags", "rocm_releases"))
            and isinstance(data.get("torch_indexes", {}), dict))


@functools.lru_cache(maxsize=None)
def read() -> Optional[Dict[str, Any]]:
    """The overlay (cached for the process), or None when there is none or it cannot be used."""
    _problems.clear()
    p = path()
    if p == os.devnull:  # bundled_only()
        return None
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        _problems.append(f"overlay {p} cannot be read: {exc.strerror or exc}")
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if hasattr(os, "geteuid") and os.geteuid() == 0 and (st.st_uid != 0 or st.st_mode & 0o022):
            _problems.append(f"overlay {p} ignored: root reads only a file owned by root and writable by root alone")
            return None
        raw = fh.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        _problems.append(f"overlay {p} ignored: larger than {MAX_BYTES} bytes")
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        _problems.append(f"overlay {p} ignored: not valid JSON")
        return None
    if not _valid(data):
        _problems.append(f"overlay {p} ignored: not a {SCHEMA} file")
        return None
    return data


def _state_root(directory: str) -> None:
    """Root's state root (``/var/lib/rocm-wizard``) follows the log root's rule
    (``execute.paths.open_trusted``): made 0700 from held directory fds, a link or another user's
    directory refused; the refusal is an OSError naming the fix, as save's callers expect."""
    import errno

    from ..execute import paths

    try:
        paths.ensure_dir(directory, 0o700)
    except paths.UntrustedPath as exc:
        raise PermissionError(errno.EPERM, str(exc).replace("for run logs", "for rocm-wizard's state")) from None


def save(data: Dict[str, Any], target: Optional[str] = None) -> str:
    """Write the overlay whole (temporary file, fsync, rename); returns the path."""
    from ..fsutil import write_atomic

    target = target or path()
    if os.path.abspath(target) == SYSTEM_PATH and hasattr(os, "geteuid") and os.geteuid() == 0:
        _state_root(os.path.dirname(SYSTEM_PATH))
    write_atomic(target, json.dumps(data, indent=1, sort_keys=True) + "\n", 0o644)
    read.cache_clear()
    return target


def apply(name: str, data: Dict[str, Any]) -> Dict[str, Any]:
    """``data`` (the parsed bundled file ``name``) with the overlay's facts merged in; ``data``
    itself is never changed.  Without an overlay, ``data`` is returned as is."""
    if name not in _MERGED:
        return data
    ov = read()
    if ov is None:
        return data
    import copy

    data = copy.deepcopy(data)
    if name == "torch_wheels.toml":
        _apply_wheels(ov, data)
    else:
        _apply_docker(ov, data)
    return data


def _python_versions(tags: Any) -> List[str]:
    """``cp311`` -> ``3.11`` (free-threaded ``cp313t`` counts as its version); others dropped."""
    out: List[str] = []
    for tag in tags or []:
        m = re.fullmatch(r"cp3(\d+)t?", str(tag))
        if m and f"3.{m.group(1)}" not in out:
            out.append(f"3.{m.group(1)}")
    return sorted(out, key=lambda v: int(v.split(".")[1]))


def _gfx_set(data: Dict[str, Any], name: str, gfx: Any, status: str, source: str, note: str) -> str:
    data.setdefault("gfx_sets", {})[name] = {"gfx": [str(g) for g in gfx or []], "status": status,
                                             "sources": [source], "note": note}
    return name


def _apply_wheels(ov: Dict[str, Any], data: Dict[str, Any]) -> None:
    """Learnt indexes and torch releases in the bundled file's schema: the gfx targets of a learnt
    release become a gfx set of its own, *observed* when read from its wheel's zip directory, else
    *inferred* (carried over from an index; the resolver treats inferred coverage as unknown) or
    empty and unknown; the Python versions come from the wheels' tags."""
    indexes = data.setdefault("indexes", {})
    learnt_idx = {name: e for name, e in ov.get("torch_indexes", {}).items() if isinstance(e, dict)}
    for name, e in learnt_idx.items():
        if name in indexes:
            continue
        indexes[name] = {"rocm": str(e.get("rocm", name[4:])), "status": "observed",
                         "sources": [e.get("source", "catalog refresh")], "note": "learnt by catalog refresh"}
    known = {str(t.get("version")): t for t in data.setdefault("torch", [])}
    for t in ov.get("torch", []):
        if not isinstance(t, dict) or t.get("index") not in indexes:
            continue
        version, idx = str(t.get("version")), t["index"]
        source = t.get("source") or "catalog refresh"
        sources = [s for s in (t.get("source"), t.get("triton_source")) if s]
        idx_e = learnt_idx.get(idx, {})
        if t.get("gfx_method") == "wheel-directory" and t.get("gfx"):
            gfx_set = _gfx_set(data, f"learnt-{version}-{idx}", t["gfx"], "observed", source,
                               "read from the wheel's zip directory by catalog refresh")
            gaps = t.get("library_gaps")
            for lib, lacks in (gaps.items() if isinstance(gaps, dict) else []):
                if isinstance(lib, str) and isinstance(lacks, list) and lacks:
                    data.setdefault("library", []).append({
                        "library": lib, "part": "read from the wheel's zip directory by catalog refresh",
                        "indexes": [idx], "torch": [version], "lacks": [str(g) for g in lacks],
                        "status": "observed", "sources": [source]})
        elif idx_e.get("gfx") and idx_e.get("gfx_status") in ("observed", "inferred"):
            status = "observed" if idx_e.get("gfx_status") == "observed" else "inferred"
            gfx_set = _gfx_set(data, f"learnt-{version}-{idx}", idx_e["gfx"], "inferred", source,
                               f"the {idx} index's newest list ({status}), not read from this release's wheel")
        else:
            gfx_set = _gfx_set(data, f"learnt-{version}-{idx}", [], "unknown", source,
                               "not read from a wheel: coverage unknown")
        entry = known.get(version)
        if entry is not None:
            if idx not in entry.get("indexes", []):
                entry["indexes"] = list(entry.get("indexes", [])) + [idx]
                entry["index_status"] = dict(entry.get("index_status", {}), **{idx: "observed"})
                entry["gfx_set_on"] = dict(entry.get("gfx_set_on", {}), **{idx: gfx_set})
                entry["sources"] = list(entry.get("sources", [])) + sources
            continue
        python = _python_versions(t.get("python_tags"))
        entry = {"version": version, "torchvision": t.get("torchvision"), "torchaudio": t.get("torchaudio"),
                 "indexes": [idx], "index_status": {idx: "observed"}, "triton_dist": t.get("triton_dist"),
                 "triton_version": t.get("triton_version"),
                 "triton_status": "observed" if t.get("triton_version") else "unknown",
                 "gfx_set": gfx_set, "python": python, "python_status": "observed" if python else "unknown",
                 "status": "observed", "sources": sources, "note": "learnt by catalog refresh"}
        data["torch"].append({k: v for k, v in entry.items() if v is not None})
        known[version] = data["torch"][-1]


def _apply_docker(ov: Dict[str, Any], data: Dict[str, Any]) -> None:
    pt = data.setdefault("pytorch", {})
    tags = pt.setdefault("tag", [])
    have = {str(t.get("tag")) for t in tags}
    for t in ov.get("docker_tags", []):
        if isinstance(t, dict) and isinstance(t.get("tag"), str) and t["tag"] not in have:
            tags.append({"tag": t["tag"], "status": "observed", "sources": [t.get("source", "catalog refresh")],
                         "note": "learnt by catalog refresh"})
            have.add(t["tag"])


# ------------------------------------------------------------------------------ dates
def bundled_date() -> str:
    from ._data import load

    return str(load("catalog.toml")["updated"])


def _date(text: Optional[str]) -> Optional["_dt.date"]:
    import datetime as _dt

    try:
        return _dt.date.fromisoformat(str(text)[:10])
    except (TypeError, ValueError):
        return None


def knowledge_date() -> "_dt.date":
    ov = read()
    dates = [d for d in (_date(bundled_date()), _date(ov.get("created") if ov else None)) if d]
    return max(dates)


def knowledge() -> Dict[str, Any]:
    """The catalog's date of knowledge as data: ``knowledge_date`` (the newest of the bundled date
    and the overlay's), ``bundled`` (catalog.toml ``updated``), ``overlay`` (when ``catalog refresh``
    wrote one, else None) and ``stale`` (older than :data:`STALE_DAYS` today)."""
    ov = read()
    created = _date(ov.get("created")) if ov else None
    return {"knowledge_date": knowledge_date().isoformat(), "bundled": bundled_date(),
            "overlay": created.isoformat() if created else None, "stale": stale_warning() is not None}


def today() -> "_dt.date":
    """Today (UTC); ``$ROCM_WIZARD_TODAY`` (YYYY-MM-DD) stands in for it, for reports made as of a
    day and for tests."""
    import datetime as _dt

    return _date(os.environ.get("ROCM_WIZARD_TODAY")) or _dt.datetime.now(_dt.timezone.utc).date()


def stale_warning(on: Optional["_dt.date"] = None) -> Optional[str]:
    """A warning when the knowledge is more than :data:`STALE_DAYS` old on ``on`` (default today)."""
    today_ = on or today()
    when = knowledge_date()
    age = (today_ - when).days
    if age <= STALE_DAYS:
        return None
    return (f"the catalog's knowledge of releases is from {when.isoformat()} ({age} days old): newer ROCm, "
            "PyTorch and image releases may be missing; run 'rocm-wizard catalog refresh' "
            "(add --pytorch-mirror/--docker-hub URL for mirrors)")
