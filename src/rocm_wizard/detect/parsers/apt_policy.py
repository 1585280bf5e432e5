"""``apt-cache policy <packages>`` -> installed / candidate versions and where each comes from.

Answers the question that breaks many ROCm installs on Ubuntu 24.04: does the distribution
archive (``archive.ubuntu.com ... noble/universe``) also offer ROCm packages, and would apt pick
them over repo.radeon.com?  Example::

    rocminfo:
      Installed: (none)
      Candidate: 5.7.1-3build1
      Version table:
         6.2.4.60204-139~24.04 500
            500 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages
         5.7.1-3build1 500
            500 http://archive.ubuntu.com/ubuntu noble/universe amd64 Packages

The argument-less form (``Package files:`` / ``Pinned packages:``) is parsed for its origins too.
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, Iterable, List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import clamp, clean_lines
from .apt_sources import DEFAULT_RADEON_HOSTS, classify_uri

KIND = "apt-policy"


@lean_dataclass
class Origin:
    """One line under a version: a priority and where the version comes from."""

    priority: Optional[int] = None
    uri: Optional[str] = None  # "https://repo.radeon.com/rocm/apt/6.2.4" or "/var/lib/dpkg/status"
    dist: Optional[str] = None  # "noble/main"
    arch: Optional[str] = None

    @property
    def is_status(self) -> bool:
        return bool(self.uri and self.uri.endswith("/dpkg/status"))

    def radeon(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> bool:
        return classify_uri(self.uri, radeon_hosts)[0]


@lean_dataclass
class PolicyVersion:
    """One version in a package's version table, with its origins."""

    version: str
    priority: Optional[int] = None
    installed: bool = False  # marked "***"
    origins: List[Origin] = field(default_factory=list)

    def from_radeon(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> bool:
        return any(o.radeon(radeon_hosts) for o in self.origins)

    def from_other_archive(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> bool:
        return any(not o.is_status and not o.radeon(radeon_hosts) for o in self.origins)


@lean_dataclass
class PackagePolicy:
    """One package of ``apt-cache policy``: installed, candidate and versions."""

    name: str
    installed: Optional[str] = None  # None for "(none)"
    candidate: Optional[str] = None
    versions: List[PolicyVersion] = field(default_factory=list)

    def candidate_version(self) -> Optional[PolicyVersion]:
        for v in self.versions:
            if v.version == self.candidate:
                return v
        return None


@lean_dataclass
class AptPolicyOutput:
    """Every package (and, for the argument-less form, package file) listed."""

    packages: Dict[str, PackagePolicy] = field(default_factory=dict)
    origins: List[Origin] = field(default_factory=list)  # argument-less form: package files

    def distro_offers_rocm(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> Optional[bool]:
        """True when any listed ROCm package has a version from a non-radeon archive; None when
        nothing was listed."""
        if not self.packages:
            return None
        listed = False
        for p in self.packages.values():
            for v in p.versions:
                listed = True
                if v.from_other_archive(radeon_hosts):
                    return True
        return False if listed else None

    def candidates_from_other_archive(self, radeon_hosts: Iterable[str] = DEFAULT_RADEON_HOSTS) -> List[str]:
        """Packages whose *candidate* would come from a non-radeon archive."""
        bad = []
        for p in self.packages.values():
            cv = p.candidate_version()
            if cv is not None and cv.from_other_archive(radeon_hosts) and not cv.from_radeon(radeon_hosts):
                bad.append(p.name)
        return bad


# looks_like: each pattern is tried only when its literal part is in the text
_L_INSTALLED = lazy(r"^Installed:\s", re.M)
_L_CANDIDATE = lazy(r"^Candidate:\s", re.M)
_L_STATUS = lazy(r"^\d+\s+\S+/dpkg/status", re.M)
_L_ARCHIVE = lazy(r"^\d+\s+https?://\S+\s+\S+/\S+\s+\S+\s+Packages", re.M)


def looks_like(text: str) -> float:
    lines = [l.strip() for l in clean_lines(text) if l.strip()]
    if not lines:
        return 0.0
    score = 0.0
    body = "\n".join(lines[:3000])
    if "Installed:" in body and "Candidate:" in body and _L_INSTALLED.search(body) and _L_CANDIDATE.search(body):
        score += 0.6
    if "Version table:" in body:
        score += 0.3
    if "Package files:" in body or "Pinned packages:" in body:
        score += 0.6
    if ("/dpkg/status" in body and _L_STATUS.search(body)) or (
            "Packages" in body and "://" in body and _L_ARCHIVE.search(body)):
        score += 0.2
    return clamp(score)


def parse(text: str) -> AptPolicyOutput:
    out = AptPolicyOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


_ORIGIN = lazy(r"^(-?\d+)\s+(\S+)(?:\s+(\S+))?(?:\s+(\S+))?(?:\s+Packages)?\s*$")


def _parse(text: str, out: AptPolicyOutput) -> None:
    pkg: Optional[PackagePolicy] = None
    ver: Optional[PolicyVersion] = None
    mode = ""
    for raw in clean_lines(text, dedent=False):
        if not raw.strip():
            continue
        s = raw.strip()
        if s == "Package files:":
            mode, pkg, ver = "files", None, None
            continue
        if s == "Pinned packages:":
            mode, pkg, ver = "pinned", None, None
            continue
        m = re.match(r"^([a-z0-9][a-z0-9+.\-]*)(?::[a-z0-9]+)?:$", s)
        if m and not raw[:1].isspace():
            pkg = PackagePolicy(m.group(1))
            out.packages.setdefault(pkg.name, pkg)
            pkg = out.packages[pkg.name]
            ver, mode = None, "pkg"
            continue
        if mode == "files":
            m = _ORIGIN.match(s)
            if m and ("://" in m.group(2) or m.group(2).startswith("/")):
                out.origins.append(Origin(int(m.group(1)), m.group(2), m.group(3), m.group(4)))
            continue
        if pkg is None:
            continue
        m = re.match(r"^Installed:\s*(.*)$", s)
        if m:
            v = m.group(1).strip()
            pkg.installed = None if v in ("(none)", "") else v
            continue
        m = re.match(r"^Candidate:\s*(.*)$", s)
        if m:
            v = m.group(1).strip()
            pkg.candidate = None if v in ("(none)", "") else v
            continue
        if s.startswith("Version table"):
            continue
        toks = s.split()
        if toks[0] == "***" and len(toks) >= 3 and re.fullmatch(r"-?\d+", toks[2]):
            ver = PolicyVersion(toks[1], int(toks[2]), True)
            pkg.versions.append(ver)
            continue
        if len(toks) >= 2 and re.fullmatch(r"-?\d+", toks[0]) and ("://" in toks[1] or toks[1].startswith("/")):
            if ver is not None:
                ver.origins.append(Origin(int(toks[0]), toks[1], toks[2] if len(toks) > 2 else None,
                                          toks[3] if len(toks) > 3 and toks[3] != "Packages" else None))
            continue
        if len(toks) == 2 and re.fullmatch(r"-?\d+", toks[1]):
            ver = PolicyVersion(toks[0], int(toks[1]), False)
            pkg.versions.append(ver)
