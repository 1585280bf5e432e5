"""APT source lists -> entries, with repo.radeon.com repositories classified.

Reads one-line ``.list`` files (``deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg]
https://repo.radeon.com/rocm/apt/6.2.4 jammy main``, commented ``# deb`` lines count as disabled
entries) and deb822 ``.sources`` stanzas (``Types:``, ``URIs:``, ``Suites:``, ``Components:``,
``Signed-By:``, ``Enabled: no``).  Each radeon URL is classified by its path:

``rocm/apt/<ver>`` -> rocm, ``amdgpu/<ver>/ubuntu`` -> amdgpu, ``graphics/<ver>/ubuntu`` ->
graphics, ``amdgpu-install/...`` -> amdgpu-install; ``rocm/rhel9/<ver>`` and
``amdgpu/<ver>/rhel/...`` (yum/dnf ``baseurl=``) are recognised as well.

The set of hosts that count as radeon can be widened for local mirrors (``radeon_hosts``).
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, Iterable, List, Optional, Tuple

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines

KIND = "apt-sources"  # not a command kind: files under /etc/apt (pastes of them are rare)

DEFAULT_RADEON_HOSTS = ("repo.radeon.com",)

_URI_RE = lazy(r"^(?P<scheme>[a-z][a-z0-9+.\-]*):(?://(?P<host>[^/\s]*))?(?P<path>/\S*)?$", re.I)


@lean_dataclass
class SourceEntry:
    """One apt source (a one-line entry or a deb822 stanza, per suite)."""

    type: str = "deb"  # deb | deb-src
    uri: Optional[str] = None
    suite: Optional[str] = None
    components: List[str] = field(default_factory=list)
    options: Dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    radeon: bool = False
    repo_kind: Optional[str] = None  # rocm | amdgpu | graphics | amdgpu-install | other
    release: Optional[str] = None  # "6.2.4", "7.0", "latest", "30.10.1"
    line: Optional[str] = None
    lineno: Optional[int] = None
    file: Optional[str] = None

    @property
    def signed_by(self) -> Optional[str]:
        return self.options.get("signed-by")

    @property
    def arch(self) -> Optional[str]:
        return self.options.get("arch") or self.options.get("architectures")


@lean_dataclass
class AptSourcesOutput:
    """The entries of a sources.list / .sources file and its format."""

    entries: List[SourceEntry] = field(default_factory=list)
    format: Optional[str] = None  # list | deb822

    @property
    def radeon(self) -> List[SourceEntry]:
        return [e for e in self.entries if e.radeon]


def classify_uri(uri: Optional[str], radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> Tuple[bool, Optional[str], Optional[str]]:
    """(radeon, repo_kind, release) of a repository URL."""
    if not uri:
        return False, None, None
    m = _URI_RE.match(uri.strip())
    if not m:
        return False, None, None
    host = (m.group("host") or "").lower().split("@")[-1].split(":")[0]
    path = m.group("path") or "/"
    hosts = [h.lower() for h in radeon_hosts]
    radeon = host in hosts or any(host.endswith("." + h) for h in hosts)
    if not radeon:
        # a mirror that keeps the upstream layout under a prefix: https://mirror.example/repo.radeon.com/rocm/apt/6.2
        for h in hosts:
            i = path.lower().find("/" + h + "/")
            if i >= 0:
                radeon, path = True, path[i + len(h) + 1:]
                break
    if not radeon:
        return False, None, None
    segs = [s for s in path.split("/") if s]
    kind, release = "other", None
    for i, s in enumerate(segs):
        low = s.lower()
        if low == "rocm" and i + 2 < len(segs) + 1:
            nxt = segs[i + 1] if i + 1 < len(segs) else None
            if nxt and nxt.lower() in ("apt", "zyp") and i + 2 < len(segs):
                kind, release = "rocm", segs[i + 2]
                break
            if nxt and re.match(r"^(rhel|el|centos|sles|azurelinux)\d*", nxt.lower()) and i + 2 < len(segs):
                kind, release = "rocm", segs[i + 2]
                break
            if nxt and _is_release(nxt):
                kind, release = "rocm", nxt
                break
            kind = "rocm"
            break
        if low == "amdgpu-install":
            kind = "amdgpu-install"
            release = segs[i + 1] if i + 1 < len(segs) else None
            break
        if low in ("amdgpu", "graphics"):
            kind = low
            release = segs[i + 1] if i + 1 < len(segs) else None
            break
    if release is not None and not _is_release(release):
        release = None
    return True, kind, release


def _is_release(s: str) -> bool:
    return bool(re.fullmatch(r"\d+(\.\d+){0,3}|latest", s.lower()))


_L_ONE_LINE = lazy(r"^#?\s*deb(-src)?\s+(\[[^\]]*\]\s+)?[a-z]+://")
_DEB822_KEYS = ("Types:", "URIs:", "Suites:", "Components:", "Signed-By:", "Enabled:", "Architectures:")


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if not lines:
        return 0.0
    hits = sum(1 for l in lines if "deb" in l and "://" in l and _L_ONE_LINE.match(l))
    d822 = sum(1 for l in lines if l.startswith(_DEB822_KEYS))
    if not hits and d822 < 2:
        return 0.0
    return clamp(0.3 + 0.7 * (hits + d822) / len(lines))


def parse(text: str, file: Optional[str] = None, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> AptSourcesOutput:
    out = AptSourcesOutput()
    hosts = tuple(radeon_hosts)
    try:
        lines = clean_lines(text, dedent=False)
        deb822 = (file or "").endswith(".sources") or (
            any(re.match(r"^\s*(#\s*)?(Types|URIs)\s*:", l, re.I) for l in lines)
            and not any(re.match(r"^\s*deb(-src)?\s", l) for l in lines))
        if deb822:
            out.format = "deb822"
            _deb822(lines, out, file, hosts)
        else:
            out.format = "list"
            _one_line(lines, out, file, hosts)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def _one_line(lines: List[str], out: AptSourcesOutput, file: Optional[str], hosts: Tuple[str, ...]) -> None:
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        enabled = True
        if s.startswith("#"):
            s = s.lstrip("#").strip()
            enabled = False
        m = re.match(r"^(deb|deb-src)\s+(.*)$", s)
        if not m:
            continue
        rest = m.group(2).strip()
        options: Dict[str, str] = {}
        om = re.match(r"^\[([^\]]*)\]\s*(.*)$", rest)
        if om:
            options = _options(om.group(1))
            rest = om.group(2)
        rest = rest.split("#", 1)[0].strip()
        parts = rest.split()
        if not parts or "://" not in parts[0] and not parts[0].startswith(("file:", "cdrom:")):
            continue
        e = SourceEntry(type=m.group(1), uri=parts[0], suite=parts[1] if len(parts) > 1 else None,
                        components=parts[2:], options=options, enabled=enabled, line=raw.strip(), lineno=no, file=file)
        e.radeon, e.repo_kind, e.release = classify_uri(e.uri, hosts)
        out.entries.append(e)


def _options(s: str) -> Dict[str, str]:
    opts: Dict[str, str] = {}
    for tok in s.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            opts[k.strip().lower().rstrip("+-")] = v.strip()
    return opts


def _deb822(lines: List[str], out: AptSourcesOutput, file: Optional[str], hosts: Tuple[str, ...]) -> None:
    stanzas: List[Tuple[int, Dict[str, str], bool]] = []
    cur: Dict[str, str] = {}
    start = 0
    commented = True
    last_key: Optional[str] = None
    for no, raw in enumerate(lines + [""], 1):
        if not raw.strip():
            if cur:
                stanzas.append((start, cur, commented))
            cur, last_key, commented = {}, None, True
            continue
        s = raw.rstrip()
        is_comment = s.lstrip().startswith("#")
        body = s.lstrip().lstrip("#").strip() if is_comment else s
        m = re.match(r"^([A-Za-z][A-Za-z0-9\-]*)\s*:\s*(.*)$", body)
        if m and not body.startswith(" "):
            if not cur:
                start = no
            last_key = m.group(1).lower()
            cur[last_key] = m.group(2).strip()
            if not is_comment:
                commented = False
        elif last_key and raw[:1].isspace():
            cur[last_key] = (cur[last_key] + "\n" + body).strip()
    for start, st, commented in stanzas:
        if "uris" not in st:
            continue
        enabled = not commented and st.get("enabled", "yes").strip().lower() not in ("no", "false", "0")
        options: Dict[str, str] = {}
        if "signed-by" in st:
            sb = st["signed-by"]
            options["signed-by"] = sb if "\n" not in sb else "(inline key)"
        if "architectures" in st:
            options["arch"] = st["architectures"]
        types = st.get("types", "deb").split() or ["deb"]
        suites = st.get("suites", "").split() or [None]
        for t in types:
            for uri in st["uris"].split():
                for suite in suites:
                    e = SourceEntry(type=t, uri=uri, suite=suite, components=st.get("components", "").split(),
                                    options=dict(options), enabled=enabled, lineno=start, file=file,
                                    line="%s %s %s %s" % (t, uri, suite or "", st.get("components", "")))
                    e.line = " ".join(e.line.split())
                    e.radeon, e.repo_kind, e.release = classify_uri(uri, hosts)
                    out.entries.append(e)
