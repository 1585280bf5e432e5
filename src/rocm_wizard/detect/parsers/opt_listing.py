"""Where ROCm trees sit under ``/opt``, as users paste it: ``ls /opt`` (``amdgpu  rocm  rocm-6.4.1``),
``ls -l /opt`` (``rocm -> /opt/rocm-6.4.1``, ``rocm-6.4.1``) and ``update-alternatives --display rocm``
(``link currently points to /opt/rocm-6.3.1``, ``/opt/rocm-6.3.1 - priority 633299994``).

A versioned directory name is the release it holds (the multi-version layout AMD installs); the
``/opt/rocm`` link target, when shown, says which one is in use.  Every pattern is anchored and
has no ambiguous repetition (a paste is read in linear time).

The ROCm Core SDK keeps its trees inside ``/opt/rocm`` (``core-10.0``, linked from ``core`` and
``core-10``): ``ls /opt/rocm``, ``ls -l /opt/rocm`` and ``update-alternatives --display core`` show
them; a ``core-X.Y`` name gives the stream X.Y only (research sheet section 1.4).
"""
from __future__ import annotations

from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines
from .rocm_version import version_from_dirname

KIND = "opt-listing"

_ALT_TARGET = lazy(r"^\s*link currently points to (?P<path>/opt/rocm-\d[\w.+-]*)/?\s*$")
_ALT_CHOICE = lazy(r"^\s*(?P<path>/opt/rocm-\d[\w.+-]*)/? - priority -?\d+\s*$")
_ALT_HEAD = lazy(r"^\s*(?:rocm|core(?:-\d+)?) - (?:auto|manual) mode\s*$")
_ALT_CORE_TARGET = lazy(r"^\s*link currently points to (?P<path>/opt/rocm/core-\d+\.\d+)/?\s*$")
_ALT_CORE_CHOICE = lazy(r"^\s*(?P<path>/opt/rocm/core-\d+\.\d+)/? - priority -?\d+\s*$")
_CORE_NAME = lazy(r"^core-(?P<xy>\d+\.\d+)$")
_CORE_TOKEN = lazy(r"(?<!\S)core-\d+\.\d+(?!\S)")
# ls -l: "lrwxrwxrwx 1 root root 22 Jun  3 10:00 rocm -> /etc/alternatives/rocm" / "drwxr-xr-x ... rocm-6.4.1"
_LONG = lazy(r"^[dl-][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d+\s+\w{3}\s+\d{1,2}\s+[\d:]{4,5}\s+"
             r"(?P<name>[\w.+-]+)/?(?: -> (?P<target>\S+))?\s*$")
_ROCM_TOKEN = lazy(r"(?<!\S)rocm-\d[\w.+-]*")
_TOTAL = lazy(r"^total \d+\s*$")
# plain ls: names only, several to a line (a character-set test, not a pattern: linear and cheap)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+@-/ \t")


def _names_only(line: str) -> bool:
    return bool(line.strip()) and set(line) <= _NAME_CHARS


@lean_dataclass
class OptListing:
    """The ROCm trees a listing of ``/opt`` (or ``/opt/rocm``) shows, and where its links point."""

    releases: List[str] = field(default_factory=list)  # "6.4.1", from /opt/rocm-6.4.1
    target: Optional[str] = None  # "/opt/rocm-6.4.1": where /opt/rocm points, when shown
    core_streams: List[str] = field(default_factory=list)  # "10.0", from /opt/rocm/core-10.0 (Core SDK)
    core_target: Optional[str] = None  # "/opt/rocm/core-10.0": where /opt/rocm/core points, when shown
    lines: List[str] = field(default_factory=list)  # the lines the facts came from


MAX_RELEASES = 64  # more ROCm trees than this under one /opt is not a real listing


def _add(out: OptListing, name: str, line: str) -> None:
    if len(out.releases) >= MAX_RELEASES:
        return
    ver = version_from_dirname(name.rstrip("/").rsplit("/", 1)[-1])
    if ver and ver not in out.releases:
        out.releases.append(ver)
        out.lines.append(line.strip())


def _add_core(out: OptListing, name: str, line: str) -> None:
    m = _CORE_NAME.match(name.rstrip("/").rsplit("/", 1)[-1])
    if m and m.group("xy") not in out.core_streams and len(out.core_streams) < MAX_RELEASES:
        out.core_streams.append(m.group("xy"))
        out.lines.append(line.strip())


def parse(text: object) -> OptListing:
    """The ROCm releases under /opt and the /opt/rocm target; never raises."""
    out = OptListing()
    seen = set()  # names already read from plain listings
    lines = [l for l in clean_lines(text) if l.strip()]
    for line in lines:
        if len(out.releases) >= MAX_RELEASES:
            break
        if len(line) > 2000 or ("rocm" not in line and "core-" not in line):
            continue
        if "core-" in line:
            m = _ALT_CORE_TARGET.match(line) or _ALT_CORE_CHOICE.match(line)
            if m:
                if "currently" in line:
                    out.core_target = m.group("path").rstrip("/")
                _add_core(out, m.group("path"), line)
                continue
        m = _ALT_TARGET.match(line)
        if m:
            out.target = m.group("path").rstrip("/")
            _add(out, out.target, line)
            continue
        m = _ALT_CHOICE.match(line)
        if m:
            _add(out, m.group("path"), line)
            continue
        m = _LONG.match(line)
        if m:
            name, target = m.group("name"), m.group("target")
            if name == "rocm" and target and target.startswith("/opt/rocm-"):
                out.target = target.rstrip("/")
                _add(out, target, line)
            if name == "core" and target and _CORE_NAME.match(target.rstrip("/").rsplit("/", 1)[-1]):
                out.core_target = "/opt/rocm/" + target.rstrip("/").rsplit("/", 1)[-1]
            _add(out, name, line)
            _add_core(out, name, line)
            continue
        if "rocm-" in line and _names_only(line):
            for tok in dict.fromkeys(_ROCM_TOKEN.findall(line)):
                if tok not in seen:
                    seen.add(tok)
                    _add(out, tok, line)
        if "core-" in line and _names_only(line):
            for tok in dict.fromkeys(_CORE_TOKEN.findall(line)):
                _add_core(out, tok, line)
    return out


def looks_like(text: str) -> float:
    """``update-alternatives --display rocm`` is unmistakable (0.9); ``ls -l`` rows with a
    ``rocm-X.Y`` among them are likely (0.6); bare names with one (0.3) could be a line of prose, so
    they need the ``ls /opt`` prompt line (the recogniser's hint) to count; anything else 0."""
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if not lines or len(lines) > 200:
        return 0.0
    if any(_ALT_HEAD.match(l) or _ALT_TARGET.match(l) for l in lines[:5]):
        return clamp(0.9)
    if not any("rocm-" in l or "core-" in l for l in lines):
        return 0.0
    long_rows = 0
    for l in lines:
        if _TOTAL.match(l):
            continue
        if _LONG.match(l):
            long_rows += 1
        elif not (len(l) <= 400 and _names_only(l)):
            return 0.0
    res = parse(text)
    if not (res.releases or res.core_streams):
        return 0.0
    return 0.6 if long_rows else 0.3
