"""Package lists -> installed packages and the ROCm release they belong to.

Formats (recognised by content, one parser for all):

* ``dpkg -l`` table (``ii  rocm-core  6.2.2.60202-116~24.04  amd64  description``);
* ``dpkg-query -W`` tab output (``name<TAB>version[<TAB>status-abbrev]``, e.g. ``ii ``);
* ``apt list [--installed]`` (``rocm-core/jammy,now 5.4.3.50403-121~22.04 amd64 [installed]``),
  with apt's ``WARNING: apt does not have a stable CLI interface`` line;
* ``dnf list`` / ``yum list`` (``rocm-core.x86_64  5.3.0.50300-63.el9  @rocm``) and ``rpm -qa``
  (``rocm-core-5.3.0.50300-63.el9.x86_64``);
* ``pacman -Q`` (``rocm-core 6.4.1-1``; Arch's own packages, no libpatch);
* ``dpkg -s`` / ``apt show`` stanzas (``Package:`` / ``Version:`` / ``Status:`` lines).

ROCm package versions encode the release twice: ``6.4.3.60403-128~22.04`` = upstream ``6.4.3``
plus the "libpatch" ``60403`` (major*10000 + minor*100 + patch).  Component packages carry their
own upstream version (``rocm-cmake 0.13.0.60202``, ``rocm-llvm 18.0.0.24355.60202``) but the same
libpatch, so :func:`release_of` decodes the libpatch.  Side-by-side installs append the release to
the name (``rocm-core5.3.0``, ``rocminfo5.3.0``).

The ROCm Core SDK (7.14 and later, TheRock-built) names its packages ``amdrocm-<component><X.Y>``
with an optional ``-gfxNNNN`` suffix (``amdrocm-core-sdk10.0-gfx1201``, ``amdrocm7.14``) and versions
them plainly (``10.0.0-4``, nightlies ``7.14.0~20260622-27922350966``): no libpatch, so
:func:`release_of` says None for them and :func:`core_sdk_name` reads the name instead.
"""
from __future__ import annotations

import functools
import re
from ...model import field
from typing import Dict, List, Optional, Tuple

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import CACHE_MAX_CHARS, clamp, clean_lines

KIND = "dpkg"
# every kind kind_of() can give (the recogniser does not ask this parser about a command hint none of
# them can take)
KINDS = ("dpkg", "apt-list", "dnf-list", "pacman-list")

# packages whose release is the ROCm release itself (the first one found wins)
RELEASE_PACKAGES = ("rocm-core", "rocm", "rocm-hip-runtime", "rocm-language-runtime", "rocm-dev", "rocm-libs",
                    "rocm-utils", "rocm-hip-libraries", "rocm-opencl-runtime", "hip-runtime-amd", "rocminfo",
                    "rocm-smi-lib", "hsa-rocr")
# names that belong to the ROCm / amdgpu stack (others are filtered out by probes)
_ROCM_NAME = lazy(
    r"^(rocm|roc[a-z]|hip|hsa|miopen|mivisionx|rccl|rpp|migraphx|amdgpu|amd-smi|amdsmi|half|composablekernel|"
    r"openmp-extras|llvm-amdgpu|comgr|rocprofiler|roctracer|aqlprofile|mesa-amdgpu|libdrm-amdgpu|"
    r"libdrm2-amdgpu|amdgpu-install|amdgpu-dkms|hipblas|hipsparse|hipfft|hiprand|hipsolver|hipcub|hipify|"
    r"hipcc|rocm-smi|python3-amdgpu|libamdhip|libhsa|librocm|librccl|librocblas|libhipblas|libmiopen|"
    r"librocsolver|libroc|amdgpu-core|amdgpu-lib|amdrocm)", re.I)
# the ROCm Core SDK: amdrocm[-component...][X.Y][-gfxNNNN]; components are letters only
_AMDROCM = lazy(r"^amdrocm(?P<comp>(?:-[a-z]+)*)(?P<rel>\d+\.\d+)?(?:-(?P<gfx>gfx[0-9a-z]+))?$")
# a distribution's own ROCm packages (no libpatch in their versions): the first one found gives the release
DISTRO_RELEASE_PACKAGES = ("rocm-core", "librocm-core1", "rocm-runtime", "rocminfo", "hip-runtime-amd", "rocm-hip-runtime",
                           "libhsa-runtime64-1", "hipcc", "rocm-smi", "libamdhip64-5", "libamdhip64-6", "libamdhip64-7",
                           "rocm-device-libs")

_DPKG_L = lazy(r"^([a-zA-Z][a-zA-Z ]?[a-zA-Z ]?)\s+([a-z0-9][a-z0-9+.\-]*)(?::[a-z0-9]+)?\s+(\S+)\s+(\S+)(?:\s+(.*))?$")
_QUERY = lazy(r"^([a-z0-9][a-z0-9+.\-]*)(?::[a-z0-9]+)?\t(\S*)(?:\t(.*))?$")
_APT = lazy(r"^([a-z0-9][a-z0-9+.\-]*)/(\S+)\s+(\S+)\s+(\S+)(?:\s+\[([^\]]*)\])?\s*$")
_DNF = lazy(r"^([A-Za-z0-9][\w+.\-]*?)\.(x86_64|noarch|i686|aarch64|ppc64le|s390x|src|amd64)\s+(\S+)\s+(@?\S+)\s*$")
_DNF_WRAPPED = lazy(r"^([A-Za-z0-9][\w+.\-]*?)\.(x86_64|noarch|i686|aarch64|ppc64le|s390x|src|amd64)\s*$")
_RPM = lazy(r"^([A-Za-z0-9][\w+.\-]*?)-(\d[\w.+~:]*)-(\d[\w.+~]*)\.(x86_64|noarch|i686|aarch64|ppc64le)$")
# apt-get / apt install output about packages that are installed: "rocm-hip-libraries is already the newest
# version (6.1.3.60103-122~22.04)." and "Setting up amdgpu-dkms (1:6.12.12.60401-2164967.24.04) ..."
_APT_NEWEST = lazy(r"^(?P<name>[a-z0-9][a-z0-9+.\-]*) is already the newest version \((?P<ver>[^()\s]+)\)\.?$")
_APT_SETUP = lazy(r"^`?Setting up (?P<name>[a-z0-9][a-z0-9+.\-]*)(?::[a-z0-9]+)? \((?P<ver>[^()\s]+)\) \.\.\.$")
# dnf transaction logs: "(6/8): rocm-runtime-5.7.1-1.fc39.x86_64.rpm   2.0 MB/s | 495 kB  00:00" and the
# transaction table " rocm-core   x86_64   6.0.2.60002-115.el9   ROCm-6.0.2   15 k"
_DNF_DOWNLOAD = lazy(r"^\(\d+/\d+\): (?P<nevra>[A-Za-z0-9][\w+.\-]*)\.rpm\s")
_DNF_TABLE = lazy(r"^(?P<name>[A-Za-z0-9][\w+.\-]*)\s+(?P<arch>x86_64|noarch|i686|aarch64|ppc64le)\s+"
                  r"(?P<ver>(?:\d+:)?\d[\w.+~:\-]*)\s+(?P<repo>\S+)\s+\d+(?:\.\d+)?\s*[kMG]\s*$")
_PACMAN = lazy(r"^([a-z0-9@_+][a-z0-9@._+\-]*)\s+((?:\d+:)?[0-9][\w.+~]*-\d+(?:\.\d+)?)$")
# (s16-helddd, set DD 2080) ``pacman -Qs <word>`` (pacman src/pacman/package.c print_packages for a query of the local
# database): "local/<name> <version>", then " (<groups>)" when the package is in groups, and the description on an
# indented line under it; only the local database's entries are installed ("extra/..." of -Ss are the repositories')
_PACMAN_QS = lazy(r"^local/([a-z0-9@_+][a-z0-9@._+\-]*)\s+((?:\d+:)?[0-9][\w.+~]*-\d+(?:\.\d+)?)(?:\s+\([^()\n]{0,200}\))?$")
_VERSIONED_NAME = lazy(r"^(?P<base>[a-z][a-z0-9+\-]*?[a-z\-])(?P<rel>\d+\.\d+\.\d+)$")
_LIBPATCH = lazy(r"^(?:\d+:)?[\d.]*?(?:^|\.)(\d{5,6})(?:-|~|$)")


@lean_dataclass
class Package:
    """One package of a package list."""

    name: str
    version: Optional[str] = None
    arch: Optional[str] = None
    status: Optional[str] = None  # dpkg "ii", "rc", "iU"...; apt "[installed,automatic]"; dnf "@rocm"
    installed: bool = True
    origin: Optional[str] = None  # apt suite ("jammy,now"), dnf repo ("@rocm")

    @property
    def base_name(self) -> str:
        """``rocm-core5.3.0`` -> ``rocm-core``; other names unchanged."""
        m = _VERSIONED_NAME.match(self.name)
        return m.group("base") if m else self.name

    @property
    def name_release(self) -> Optional[str]:
        m = _VERSIONED_NAME.match(self.name)
        return m.group("rel") if m else None

    @property
    def release(self) -> Optional[str]:
        return self.name_release or release_of(self.version)


@lean_dataclass
class PackagesOutput:
    """The packages of a list, and which format it was in."""

    format: Optional[str] = None  # dpkg-l | dpkg-query | apt-list | dnf | rpm | pacman | control
    packages: List[Package] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)

    def installed(self) -> List[Package]:
        return [p for p in self.packages if p.installed]

    def rocm_packages(self) -> List[Package]:
        return [p for p in self.installed() if is_rocm_package(p.name)]

    def get(self, name: str) -> Optional[Package]:
        for p in self.packages:
            if p.name == name and p.installed:
                return p
        return None


def is_rocm_package(name: str) -> bool:
    return bool(_ROCM_NAME.match(name or ""))


def release_of(version: Optional[str]) -> Optional[str]:
    """ROCm release of a package version: ``6.4.3.60403-128~22.04`` -> ``6.4.3``,
    ``18.0.0.24355.60202-116~24.04`` -> ``6.2.2``, ``1:5.18.2.22.40.50300-1483871.el9`` -> ``5.3.0``.
    None when the version carries no ROCm libpatch (a distribution's own package)."""
    if not version:
        return None
    v = version.strip()
    v = v.split(":", 1)[1] if re.match(r"^\d+:", v) else v
    upstream = re.split(r"[-~]", v, maxsplit=1)[0]
    parts = upstream.split(".")
    for p in reversed(parts):
        if re.fullmatch(r"\d{5,6}", p):
            n = int(p)
            major, rest = divmod(n, 10000)
            minor, patch = divmod(rest, 100)
            if 1 <= major <= 20:
                return "%d.%d.%d" % (major, minor, patch)
    return None


@lean_dataclass
class CoreSdkName:
    """What an ``amdrocm*`` package name says: component, stream (X.Y) and gfx target."""

    component: str  # "core-sdk", "" for the runtime base (amdrocm10.0)
    stream: Optional[str] = None  # "10.0"; None for the unversioned pointer packages (nightlies)
    gfx: Optional[str] = None  # "gfx1201"


def core_sdk_name(name: Optional[str]) -> Optional[CoreSdkName]:
    """``amdrocm-core-sdk10.0-gfx1201`` -> (core-sdk, 10.0, gfx1201); None for other names."""
    if not name or not name.startswith("amdrocm"):
        return None
    m = _AMDROCM.match(name)
    if not m:
        return None
    if re.match(r"^-repo(?:-|$)", m.group("comp")):
        # AMD's repository-setup packages (amdrocm-repo-stable, -stablerc, -nightly, -dev; TheRock's
        # draft RFC): apt sources and a keyring, no ROCm -- their version says nothing installed
        return None
    return CoreSdkName(m.group("comp").lstrip("-"), m.group("rel"), m.group("gfx"))


def core_sdk_release(version: Optional[str]) -> Optional[str]:
    """The release of a Core SDK package version: ``10.0.0-4`` -> ``10.0.0``,
    ``7.14.0~20260622-27922350966`` -> ``7.14.0``; None when it is not X.Y.Z."""
    m = re.match(r"^(?:\d+:)?(\d+\.\d+\.\d+)(?:$|[-~+.])", (version or "").strip())
    return m.group(1) if m else None


def stream_of_package(p: "Package") -> Optional[str]:
    """``core-sdk`` (amdrocm*), ``legacy`` (AMD's rocm-* packages: a libpatch in the version),
    ``distro`` (a distribution's own ROCm packages) or None (driver packages, other names)."""
    if core_sdk_name(p.name) is not None:
        return "core-sdk"
    if not is_rocm_package(p.name) or p.name.startswith("amdgpu") or "-amdgpu" in p.name:
        return None
    if p.release:
        return "legacy"
    if p.base_name in DISTRO_RELEASE_PACKAGES and re.match(r"^(?:\d+:)?\d+\.\d+", p.version or ""):
        return "distro"
    return None


def split_release(version: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(release, build) of ``6.4.3.60403-128~22.04`` -> (``6.4.3``, ``128``)."""
    rel = release_of(version)
    if not rel or not version:
        return rel, None
    m = re.search(r"-(\d+)", version)
    return rel, (m.group(1) if m else None)


def looks_like(text: str) -> float:
    fmt, hits, total = _sniff(text)
    if not fmt or not total:
        return 0.0
    score = 0.3 + 0.7 * hits / total
    return clamp(score)


def kind_of(text: str) -> str:
    fmt, _, _ = _sniff(text)
    if fmt == "apt-list":
        return "apt-list"
    if fmt in ("dnf", "rpm"):
        return "dnf-list"
    if fmt == "pacman":
        return "pacman-list"
    if fmt == "control" and re.search(r"^APT-(Sources|Manual-Installed):", text or "", re.M):
        return "apt-list"
    return KIND


def _sniff(text: str):
    # looks_like and kind_of both ask, for every segment of a paste: the answer is kept
    if isinstance(text, str) and len(text) <= CACHE_MAX_CHARS:
        return _sniff_cached(text)
    return _sniff_text(text)


@functools.lru_cache(maxsize=16)
def _sniff_cached(text: str):
    return _sniff_text(text)


_S_PACKAGE = lazy(r"^Package:\s*\S")
_S_VERSION = lazy(r"^Version:\s*\d")
_S_CONTROL_KEY = lazy(r"^(Package|Version|Status|Architecture|Maintainer|Depends|"
                      r"Description|Section|Priority|Source|Installed-Size|Homepage|"
                      r"APT-[\w-]+|Download-Size|Provides|Recommends|Suggests|"
                      r"Conflicts|Breaks|Replaces|Pre-Depends|Origin|Multi-Arch):")
_S_DPKG_STATE = lazy(r"[uihrpU][ncHUFWthiR ]?[R ]?")
_S_DPKG_FIRST = frozenset("uihrpU")
# the characters _APT's and _PACMAN's names can start with (the patterns match from the line's start;
# a _PACMAN row ends with a digit of its release)
_S_NAME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_S_PACMAN_FIRST = _S_NAME_FIRST | frozenset("@_+")
_S_ARCHES = (".x86_64", ".noarch", ".i686", ".aarch64", ".ppc64le", ".s390x", ".src", ".amd64")  # dnf / rpm names
_S_SKIP = ("WARNING:", "Listing...", "Desired=", "| Status", "|/ Err", "||/", "+++-", "Installed Packages",
           "Available Packages", "Last metadata")
_S_SKIP_FIRST = frozenset(w[0] for w in _S_SKIP)
# any of _S_ARCHES in a line, in one search
_S_ARCH_ANY = lazy("|".join(re.escape(a) for a in _S_ARCHES))


def _sniff_text(text: object):
    counts = {"dpkg-l": 0, "dpkg-query": 0, "apt-list": 0, "dnf": 0, "rpm": 0, "pacman": 0, "control": 0}
    total = 0
    lines = clean_lines(text)[:5000]
    if any(l.startswith("Package:") and _S_PACKAGE.match(l) for l in lines) and any(
            l.startswith("Version:") and _S_VERSION.match(l) for l in lines):
        key_rx = _S_CONTROL_KEY.get()
        hits = sum(1 for l in lines if key_rx.match(l))
        body = [l for l in lines if l.strip() and not l.startswith((" ", "\t"))]
        return "control", hits, max(len(body), 1)
    query, apt, dnf, rpm, dnf_wrapped, pacman, dpkg_l = _QUERY, _APT, _DNF, _RPM, _DNF_WRAPPED, _PACMAN, _DPKG_L
    arch_rx = _S_ARCH_ANY.search
    qs_entry = False  # the line before was a ``pacman -Qs`` entry: an indented line under it is its description
    for raw in lines:
        s = raw.strip()
        if not s or (s[0] in _S_SKIP_FIRST and s.startswith(_S_SKIP)):
            continue
        if qs_entry and raw[:1] in (" ", "\t"):
            qs_entry = False
            continue
        qs_entry = False
        total += 1
        if s.startswith("local/") and _PACMAN_QS.match(s):
            counts["pacman"] += 1
            qs_entry = True
            continue
        # the substring tests are necessary conditions of the patterns after them
        arch = "." in s and arch_rx(s) is not None  # (one of _S_ARCHES in s; every one starts with a dot)
        if "\t" in raw and query.match(raw.strip("\n")):
            counts["dpkg-query"] += 1
        elif "/" in s and s[0] in _S_NAME_FIRST and apt.match(s):
            counts["apt-list"] += 1
        elif arch and dnf.match(s):
            counts["dnf"] += 1
        elif arch and rpm.match(s):
            counts["rpm"] += 1
        elif arch and dnf_wrapped.match(s):
            counts["dnf"] += 1
        elif ("newest version" in s and _APT_NEWEST.match(s)) or ("Setting up" in s and _APT_SETUP.match(s)):
            counts["apt-list"] += 1
        elif arch and s.startswith("(") and _DNF_DOWNLOAD.match(s):
            counts["dnf"] += 1
        elif (" x86_64 " in s or " noarch " in s or " aarch64 " in s) and _DNF_TABLE.match(s):
            counts["dnf"] += 1
        elif "-" in s and s[0] in _S_PACMAN_FIRST and s[-1].isdecimal() and pacman.match(s):
            counts["pacman"] += 1
        elif s[0] in _S_DPKG_FIRST:  # the state column's first letter (_S_DPKG_STATE)
            m = dpkg_l.match(s)
            if m and _S_DPKG_STATE.fullmatch(m.group(1).strip() or "x") and _versionish(m.group(3)):
                counts["dpkg-l"] += 1
    fmt = max(counts, key=lambda k: counts[k])
    if counts[fmt] == 0:
        return None, 0, total
    return fmt, counts[fmt], total


_VERSIONISH = lazy(r"^(\d+:)?\d[\w.+~:\-]*$")


def _versionish(v: str) -> bool:
    return bool(_VERSIONISH.match(v))


def parse(text: str) -> PackagesOutput:
    out = PackagesOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive
        pass
    return out


def from_query_rows(rows: List[Tuple[str, str, str]]) -> PackagesOutput:
    """What :func:`parse` gives for the ``dpkg-query -W -f='${Package}\\t${Version}\\t
    ${db:Status-Abbrev}\\n'`` text made of ``rows`` (``(package, version, status abbreviation)``,
    as ``detect/dpkg_db.py``'s query_rows gives them: names and versions without blanks), without
    writing and reading that text."""
    out = PackagesOutput()
    if rows:
        out.format = "dpkg-query"
    add = out.packages.append
    for name, version, abbrev in rows:
        status = abbrev.strip() or None
        add(Package(name, version or None, None, status, _dpkg_installed(status) if status else bool(version)))
    return out


def _parse(text: str, out: PackagesOutput) -> None:
    fmt, _, _ = _sniff(text)
    out.format = fmt
    lines = clean_lines(text)
    if fmt == "control":
        _control(lines, out)
        return
    pending: Optional[str] = None  # dnf wraps long names onto their own line
    for raw in lines:
        s = raw.strip()
        if not s:
            continue
        if s.startswith("WARNING:"):
            out.warnings.append(s)
            continue
        if fmt == "pacman" and s.startswith("local/"):  # (s16-helddd) pacman -Qs, before apt's "name/suite" form
            m = _PACMAN_QS.match(s)
            if m:
                out.packages.append(Package(m.group(1), m.group(2), None, None, True))
                continue
        if "\t" in raw:
            m = _QUERY.match(raw.strip())
            if m:
                status = (m.group(3) or "").strip() or None
                installed = _dpkg_installed(status) if status else bool(m.group(2))
                out.packages.append(Package(m.group(1), m.group(2) or None, None, status, installed))
                continue
        m = (_APT_NEWEST.match(s) if "newest version" in s else None) or (
            _APT_SETUP.match(s) if "Setting up" in s else None)
        if m:
            out.packages.append(Package(m.group("name"), m.group("ver"), None, "apt: installed", True))
            continue
        m = _APT.match(s)
        if m:
            flags = m.group(5)
            installed = bool(flags and ("installed" in flags or "upgradable" in flags))
            out.packages.append(Package(m.group(1), m.group(3), m.group(4), flags, installed, m.group(2)))
            continue
        m = _DNF.match(s)
        if m:
            repo = m.group(4)
            out.packages.append(Package(m.group(1), m.group(3), m.group(2), repo,
                                        repo.startswith("@") or fmt == "dnf", repo.lstrip("@")))
            pending = None
            continue
        if pending:
            m2 = re.match(r"^(\S+)\s+(@?\S+)$", s)
            if m2 and _versionish(m2.group(1)):
                name, arch = pending.rsplit(".", 1)
                out.packages.append(Package(name, m2.group(1), arch, m2.group(2), m2.group(2).startswith("@"),
                                            m2.group(2).lstrip("@")))
                pending = None
                continue
        m = _RPM.match(s)
        if m:
            out.packages.append(Package(m.group(1), "%s-%s" % (m.group(2), m.group(3)), m.group(4), None, True))
            continue
        if s.startswith("("):
            d = _DNF_DOWNLOAD.match(s)
            m = _RPM.match(d.group("nevra")) if d else None
            if m:  # a package of a dnf transaction (installed once the transaction ran)
                out.packages.append(Package(m.group(1), "%s-%s" % (m.group(2), m.group(3)), m.group(4),
                                            "dnf transaction", True))
                continue
        if fmt == "dnf":
            m = _DNF_TABLE.match(s)
            if m:
                out.packages.append(Package(m.group("name"), m.group("ver"), m.group("arch"), "dnf transaction", True,
                                            m.group("repo")))
                continue
        m = _DNF_WRAPPED.match(s)
        if m:
            pending = s
            continue
        m = _DPKG_L.match(s)
        if m:
            status = m.group(1).strip()
            if re.fullmatch(r"[uihrpU][ncHUFWthiR ]?[R ]?", status) and _versionish(m.group(3)):
                out.packages.append(Package(m.group(2), m.group(3), m.group(4), status, _dpkg_installed(status)))
                continue
        if fmt == "pacman":
            m = _PACMAN.match(s)
            if m:
                out.packages.append(Package(m.group(1), m.group(2), None, None, True))


def _control(lines: List[str], out: PackagesOutput) -> None:
    """``dpkg -s`` / ``apt show [-a]`` stanzas.  ``apt show -a`` also lists versions that are only
    available: a stanza counts as installed when its Status says so or apt marks it installed."""
    cur: Dict[str, str] = {}

    def flush() -> None:
        if cur.get("package") and cur.get("version"):
            status = cur.get("status")
            installed = bool(status and re.search(r"\binstalled\b", status) and "not-installed" not in status) or (
                "apt-manual-installed" in cur)
            out.packages.append(Package(cur["package"], cur["version"], cur.get("architecture"), status, installed,
                                        cur.get("apt-sources")))
        cur.clear()

    for raw in lines + [""]:
        if not raw.strip():
            flush()
            continue
        if raw.startswith((" ", "\t")):
            continue
        m = re.match(r"^([A-Za-z][\w-]*):\s*(.*)$", raw)
        if m:
            key = m.group(1).lower()
            if key == "package" and cur.get("package"):
                flush()
            cur[key] = m.group(2).strip()


def _dpkg_installed(status: Optional[str]) -> bool:
    """dpkg abbreviation: desired + state (+ error); state i = installed (h/F/W/t partly)."""
    if not status:
        return False
    s = status.strip()
    if len(s) >= 2:
        return s[1] in "iFHWt" and s[1] != " "
    return s in ("i",)


def rocm_release(packages: List[Package]) -> Optional[Tuple[str, Package]]:
    """(release, package) of the ROCm stack among installed packages, from the best package."""
    inst = [p for p in packages if p.installed]
    for name in RELEASE_PACKAGES:
        for p in inst:
            if p.base_name == name and p.release:
                return p.release, p
    for p in inst:
        if is_rocm_package(p.name) and not p.name.startswith("amdgpu") and release_of(p.version):
            return release_of(p.version), p  # type: ignore[return-value]
    return None


def releases(packages: List[Package]) -> List[str]:
    """Every ROCm release with an installed rocm-core (side-by-side installs give several)."""
    seen: List[str] = []
    for p in packages:
        if p.installed and p.base_name == "rocm-core" and p.release and p.release not in seen:
            seen.append(p.release)
    return seen
