"""Distribution identity from ``/etc/os-release`` and its look-alikes.

Accepted inputs (any of them, pasted with or without the prompt line):

* ``/etc/os-release`` / ``/usr/lib/os-release`` (``KEY=value`` lines, os-release(5));
* ``/etc/system-release``, ``/etc/redhat-release``, ``/etc/rocky-release``... one line such as
  ``Rocky Linux release 9.0 (Blue Onyx)``;
* ``lsb_release -a`` (``Distributor ID:`` / ``Release:`` / ``Codename:``);
* ``/etc/lsb-release`` (``DISTRIB_ID=Ubuntu`` / ``DISTRIB_RELEASE=24.10`` / ``DISTRIB_CODENAME=oracular`` /
  ``DISTRIB_DESCRIPTION="Ubuntu 24.10"``: the file Debian/Ubuntu's base-files ship and ``lsb_release`` reads);
* ``hostnamectl`` (``Operating System: Ubuntu 22.04.4 LTS``);
* a bare pretty name such as collect_env's ``OS: Ubuntu 24.04.2 LTS (x86_64)`` (see
  :func:`from_pretty`);
* ROCm's issue-form OS block, ``OS:`` then ``NAME=`` and (not on a rolling release) ``VERSION=`` (see
  :func:`form_os_block`).

When ``VERSION_ID`` is missing, it is derived from ``VERSION`` (Ubuntu pastes often carry only
``NAME`` and ``VERSION``); Arch-like rolling releases (``BUILD_ID=rolling``) get ``rolling``.
"""
from __future__ import annotations

import re
from ...model import field
from typing import Dict, Optional, Tuple

from ...model import lean_dataclass
from ._core_text import lazy, content_lines, unquote

KIND = "os-release"

# Distribution names as they appear in NAME / PRETTY_NAME / release files / lsb_release, mapped
# to os-release IDs (os-release(5) IDs as the distributions ship them).  Longest match first.
NAME_TO_ID: Tuple[Tuple[str, str], ...] = (
    ("red hat enterprise linux", "rhel"),
    ("redhatenterprise", "rhel"),
    ("rocky linux", "rocky"),
    ("almalinux", "almalinux"),
    ("centos stream", "centos"),
    ("centos", "centos"),
    ("oracle linux", "ol"),
    ("fedora", "fedora"),
    ("opensuse tumbleweed", "opensuse-tumbleweed"),
    ("opensuse leap", "opensuse-leap"),
    ("suse linux enterprise", "sles"),
    ("sles", "sles"),
    ("ubuntu", "ubuntu"),
    ("kubuntu", "ubuntu"),
    ("debian", "debian"),
    ("linux mint", "linuxmint"),
    ("pop!_os", "pop"),
    ("elementary os", "elementary"),
    ("zorin os", "zorin"),
    ("arch linux", "arch"),
    ("archlinux", "arch"),
    ("endeavouros", "endeavouros"),
    ("manjaro", "manjaro"),
    ("cachyos", "cachyos"),
    ("gentoo", "gentoo"),
    ("nixos", "nixos"),
    ("void", "void"),
    # pretty names of derivatives, with their os-release ID (a name read from an issue form, fastfetch or
    # hostnamectl, where no os-release is pasted):
    ("kde neon", "neon"),  # catalog/data/derivatives.toml (tests/data/os-release/neon-6.0)
    ("lmde", "linuxmint"),  # LMDE, Mint's Debian edition: ID=linuxmint, no UBUNTU_CODENAME (tests/data/os-release/lmde-6)
    ("nobara", "nobara"),  # chef/os_release nobara: NAME="Nobara Linux", ID=nobara, ID_LIKE="rhel centos fedora"
    ("bazzite", "bazzite"),  # ublue-os/bazzite build_files/image-info: ID=bazzite, ID_LIKE="fedora", PRETTY_NAME="Bazzite"
    ("steamos", "steamos"),  # chef/os_release steamos: NAME="SteamOS", ID=steamos, ID_LIKE=arch
    ("garuda linux", "garuda"),  # Garuda's /etc/os-release: NAME="Garuda Linux", ID=garuda, ID_LIKE=arch (observed)
    # a release typed without "Linux": "RHEL 9.6", "Rocky 9.5", "Tumbleweed" (os-release IDs as above)
    ("rhel", "rhel"),
    ("rocky", "rocky"),
    ("tumbleweed", "opensuse-tumbleweed"),
)

KNOWN_KEYS = ("NAME", "ID", "ID_LIKE", "VERSION", "VERSION_ID", "VERSION_CODENAME", "PRETTY_NAME",
              "BUILD_ID", "UBUNTU_CODENAME", "HOME_URL", "ANSI_COLOR", "LOGO", "SUPPORT_URL",
              "BUG_REPORT_URL", "PRIVACY_POLICY_URL", "DOCUMENTATION_URL", "PLATFORM_ID", "CPE_NAME",
              "VARIANT", "VARIANT_ID", "IMAGE_ID", "IMAGE_VERSION", "SUPPORT_END", "DEFAULT_HOSTNAME")

_KV = lazy(r"^\s*([A-Z][A-Z0-9_]*)=(.*)$")
# "NAME release VERSION (CODE)": NAME is [A-Za-z][\w !/.-]*, whitespace around "release" (any
# case).  Matched by release_line() in linear time (one pattern for the whole line backtracks
# quadratically over a long run of blanks).
_RELEASE_WORD = lazy(r"release", re.I)
_RELEASE_NAME_BAD = lazy(r"[^\w !/.-]")
_RELEASE_TAIL = lazy(r"\s+(?P<ver>\d+(?:\.\d+)*)(?:\s*\((?P<code>[^)]*)\))?\s*$")
_LSB = lazy(r"^\s*(Distributor ID|Description|Release|Codename)\s*:\s*(.*)$")
# (s18-helddi) /etc/lsb-release: lsb_release's own source (lsb-release's lsb_release.py get_lsb_information reads
# DISTRIB_ID, DISTRIB_RELEASE, DISTRIB_CODENAME and DISTRIB_DESCRIPTION from it); Ubuntu's base-files write it
LSB_FILE_KEYS = ("DISTRIB_ID", "DISTRIB_RELEASE", "DISTRIB_CODENAME", "DISTRIB_DESCRIPTION")
_HOSTNAMECTL = lazy(r"^\s*Operating System\s*:\s*(.+)$")
_VERSION_NUM = lazy(r"(\d+(?:\.\d+)*)")


@lean_dataclass
class OsRelease:
    """The distribution as an os-release, lsb_release or hostnamectl text names it."""

    id: Optional[str] = None
    id_like: Optional[str] = None
    name: Optional[str] = None
    version: Optional[str] = None
    version_id: Optional[str] = None
    codename: Optional[str] = None
    pretty_name: Optional[str] = None
    build_id: Optional[str] = None
    format: Optional[str] = None  # os-release | system-release | lsb_release | hostnamectl | pretty
    fields: Dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.id or self.name or self.pretty_name)


def release_line(line: str) -> Optional[Tuple[str, str, Optional[str]]]:
    """``"Rocky Linux release 9.0 (Blue Onyx)"`` -> ``("Rocky Linux", "9.0", "Blue Onyx")``;
    None when the line is not a release file's line.  Linear in the line's length."""
    t = line.lstrip()
    if not t[:1].isascii() or not t[:1].isalpha():
        return None
    bad = _RELEASE_NAME_BAD.search(t)
    name_ok_to = bad.start() if bad else len(t)  # a name may not reach past this
    for m in _RELEASE_WORD.finditer(t):
        i, j = m.start(), m.end()
        if i == 0 or not t[i - 1].isspace():
            continue
        name = t[:i].rstrip()
        if not name or len(name) > name_ok_to:
            return None  # later names only get longer
        tail = _RELEASE_TAIL.match(t, j)
        if tail:
            return name, tail.group("ver"), tail.group("code")
    return None


def name_to_id(name: Optional[str]) -> Optional[str]:
    if not name:
        return None
    low = name.strip().lower()
    # the name the text starts with first: "Linux Mint 22.2 (Ubuntu 24.04 base)" is Mint, whose base it names after
    for key, ident in NAME_TO_ID:
        if low.startswith(key):
            return ident
    for key, ident in NAME_TO_ID:
        if key in low and re.search(r"\b" + re.escape(key) + r"\b", low):
            return ident
    return None


def _version_id_from(dist_id: Optional[str], version: Optional[str]) -> Optional[str]:
    """``24.04.1 LTS (Noble Numbat)`` -> ``24.04`` for Ubuntu, ``9.0 (Blue Onyx)`` -> ``9.0``."""
    if not version:
        return None
    m = _VERSION_NUM.search(version)
    if not m:
        return None
    num = m.group(1)
    if dist_id == "ubuntu":
        parts = num.split(".")
        if len(parts) >= 2:
            return ".".join(parts[:2])
    if dist_id == "debian":
        return num.split(".")[0]
    if dist_id == "sles":  # "15 SP7" is VERSION_ID 15.7 (chef/os_release sles_15: VERSION="15-SP7", VERSION_ID="15.7")
        sp = re.search(r"\b(\d+)[ -]SP(\d+)\b", version)
        if sp:
            return "%s.%s" % (sp.group(1), sp.group(2))
    return num


def _codename_from(dist_id: Optional[str], text: Optional[str]) -> Optional[str]:
    """Ubuntu's ``(Noble Numbat)`` / ``(noble)`` -> ``noble``; Debian's ``12 (bookworm)``."""
    if not text:
        return None
    inner = _first_parenthesised(text)
    if inner is None:
        return None
    word = inner.strip().split()
    if not word:
        return None
    if dist_id in ("ubuntu", "debian"):
        return word[0].lower()
    return None


_ARCHES = ("x86_64", "aarch64", "arm64", "ppc64le", "s390x", "i686", "riscv64")
_ARCH_WORD = lazy(r"(?<![\w.])(?:x86_64|aarch64|arm64|ppc64le|s390x|i686|riscv64|amd64)(?![\w.])")


def _first_parenthesised(text: str) -> Optional[str]:
    """What the first non-empty ``(...)`` holds (linear: no pattern re-scans after each "(")."""
    pos = 0
    while True:
        i = text.find("(", pos)
        if i < 0:
            return None
        j = text.find(")", i + 1)
        if j < 0:
            return None
        if j > i + 1:
            return text[i + 1:j]
        pos = j + 1


# (s20-rocmwin) ROCm's issue form (ROCm/ROCm .github/ISSUE_TEMPLATE/issue_report.yml) asks for
#   echo "OS:" && cat /etc/os-release | grep -E "^(NAME=|VERSION=)";
# so its OS block is an "OS:" line, then os-release's NAME= line and its VERSION= line.  A rolling release's
# os-release has no VERSION= (Arch: NAME, PRETTY_NAME, ID, BUILD_ID=rolling...; likewise Manjaro, CachyOS,
# EndeavourOS, Tumbleweed), so there NAME= stands alone under "OS:" and looks_like() (which wants ID,
# PRETTY_NAME or NAME with VERSION) does not take it: form_os_block() reads it.
_FORM_OS_BLOCK = lazy(r"(?m)^[ \t]{0,8}OS:[ \t]{0,8}\n(?:[ \t]{0,8}\n){0,2}[ \t]{0,8}(NAME=[^\n]{1,80})"
                      r"(?:\n[ \t]{0,8}(VERSION=[^\n]{1,80}))?")


def form_os_block(text: object) -> OsRelease:
    """The distribution of ROCm's issue-form OS block ("OS:" then NAME= and, if the release has one,
    VERSION=); an empty OsRelease when the text holds none or its NAME is no known distribution."""
    if not isinstance(text, str) or "OS:" not in text or "NAME=" not in text:
        return OsRelease()
    m = _FORM_OS_BLOCK.search(text)
    if not m:
        return OsRelease()
    res = parse("\n".join(g for g in m.groups() if g))
    if not res.id:
        return OsRelease()
    if res.id == "arch" and not res.version_id:
        res.version_id = "rolling"  # (as from_pretty: Arch's own os-release says BUILD_ID=rolling)
    return res


def from_pretty(text: Optional[str]) -> OsRelease:
    """A one-line OS description (``Ubuntu 24.04.2 LTS (x86_64)``, ``Arch Linux (x86_64)``,
    ``Rocky Linux release 9.0 (Blue Onyx)``) -> id / version_id; never raises."""
    res = OsRelease(format="pretty")
    if not isinstance(text, str):
        return res
    t = text.strip()
    if not t or t.lower().startswith("could not collect"):
        return res
    m = release_line(t) if "release" in t.casefold() else None  # (the word's case does not matter)
    if m:
        res.name = m[0].strip()
        res.id = name_to_id(res.name)
        res.version_id = m[1]
        res.pretty_name = t
        return res
    # drop a trailing "(x86_64)" architecture
    t2 = t
    if t.endswith(")") and "(" in t:  # (t is stripped)
        i = t.rfind("(")
        if t[i + 1:-1] in _ARCHES:
            t2 = t[:i].rstrip()
    # and neofetch's / fastfetch's bare one ("OS: CachyOS x86_64", "OS: Linux Mint 22.1 x86_64")
    last = t2.rsplit(None, 1)
    if len(last) == 2 and last[1] in _ARCHES:
        t2 = last[0]
    res.pretty_name = t2
    res.id = name_to_id(t2)
    if res.id is None:
        return res
    # an architecture word is no version ("CachyOS x86_64 (Arch Linux based)": not 86)
    rest = _ARCH_WORD.sub(" ", t2) if "64" in t2 or "86" in t2 else t2
    res.version_id = _version_id_from(res.id, rest) if _VERSION_NUM.search(rest) else None
    if res.id == "arch" and res.version_id is None:
        res.version_id = "rolling"
    res.codename = _codename_from(res.id, rest)
    return res


def looks_like(text: object) -> float:
    """How much ``text`` looks like one of the accepted formats (0..1), by content."""
    if not isinstance(text, str) or text.count("\n") > 80:  # os-release files are short
        return 0.0
    if "=" not in text and "release" not in text and ":" not in text:
        return 0.0
    body = content_lines(text)
    if not body:
        return 0.0
    kv = [m.group(1) for m in (_KV.match(l) for l in body) if m]
    known = [k for k in kv if k in KNOWN_KEYS]
    if known:
        strong = sum(1 for k in known if k in ("ID", "NAME", "VERSION_ID", "PRETTY_NAME", "ID_LIKE", "VERSION"))
        if "ID" in known or "PRETTY_NAME" in known or ("NAME" in known and "VERSION" in known):
            share = len(known) / len(body)
            return round(min(0.95, 0.6 + 0.35 * share + 0.02 * strong), 3)
        if strong:
            return 0.3
    # (casefold: the word's case does not matter, and it must be in the line)
    if len(body) <= 3 and any("release" in l.casefold() and release_line(l)
                              and name_to_id(release_line(l)[0]) for l in body):
        return 0.9
    lsb = [l for l in body if _LSB.match(l)]
    if len(lsb) >= 2 and len(lsb) >= len(body) / 2:
        return 0.85
    lsb_file = [k for k in kv if k in LSB_FILE_KEYS]
    if len(set(lsb_file)) >= 2 and "DISTRIB_ID" in lsb_file and len(lsb_file) >= len(body) / 2:
        return 0.85
    if any(_HOSTNAMECTL.match(l) for l in body) and any("Kernel:" in l for l in body):
        return 0.7
    return 0.0


def parse(text: object) -> OsRelease:
    """Parse any accepted format; fields that are absent stay None.  Never raises."""
    res = OsRelease()
    body = content_lines(text)
    if not body:
        return res
    fields: Dict[str, str] = {}
    for line in body:
        m = _KV.match(line)
        if m and m.group(1) in KNOWN_KEYS and m.group(1) not in fields:
            fields[m.group(1)] = unquote(m.group(2))
    if fields:
        res.format = "os-release"
        res.fields = fields
        res.name = fields.get("NAME") or None
        res.id = (fields.get("ID") or "").strip().lower() or name_to_id(res.name)
        res.id_like = fields.get("ID_LIKE") or None
        res.version = fields.get("VERSION") or None
        res.pretty_name = fields.get("PRETTY_NAME") or None
        res.build_id = fields.get("BUILD_ID") or None
        res.version_id = fields.get("VERSION_ID") or None
        if res.id is None and res.pretty_name:
            res.id = name_to_id(res.pretty_name)
        if not res.version_id:
            res.version_id = _version_id_from(res.id, res.version) or (
                _version_id_from(res.id, res.pretty_name) if res.pretty_name and _VERSION_NUM.search(res.pretty_name)
                else None)
        if not res.version_id and (res.build_id or "").lower() == "rolling":
            res.version_id = "rolling"
        if not res.version_id and res.id == "arch":
            res.version_id = "rolling"
        res.codename = (fields.get("VERSION_CODENAME") or fields.get("UBUNTU_CODENAME") or None)
        if not res.codename:
            res.codename = _codename_from(res.id, res.version) or _codename_from(res.id, res.pretty_name)
        if res.codename:
            res.codename = res.codename.lower()
        return res
    lsb_file: Dict[str, str] = {}
    for line in body:
        m = _KV.match(line)
        if m and m.group(1) in LSB_FILE_KEYS and m.group(1) not in lsb_file:
            lsb_file[m.group(1)] = unquote(m.group(2)).strip()
    if lsb_file.get("DISTRIB_ID"):
        res.format = "lsb-release"
        res.fields = dict(lsb_file)
        res.name = lsb_file["DISTRIB_ID"]
        res.pretty_name = lsb_file.get("DISTRIB_DESCRIPTION") or None
        res.id = name_to_id(res.name) or name_to_id(res.pretty_name) or res.name.lower()
        rel = lsb_file.get("DISTRIB_RELEASE")
        res.version_id = _version_id_from(res.id, rel) if rel and rel.lower() not in ("n/a", "rolling") else (
            "rolling" if rel and rel.lower() == "rolling" else None)
        code = lsb_file.get("DISTRIB_CODENAME")
        res.codename = code.lower() if code and code.lower() != "n/a" else None
        return res
    lsb: Dict[str, str] = {}
    for line in body:
        m = _LSB.match(line)
        if m:
            lsb[m.group(1)] = m.group(2).strip()
    if lsb:
        res.format = "lsb_release"
        res.name = lsb.get("Distributor ID") or None
        res.pretty_name = lsb.get("Description") or None
        res.id = name_to_id(res.name) or name_to_id(res.pretty_name) or (res.name.lower() if res.name else None)
        rel = lsb.get("Release")
        res.version_id = _version_id_from(res.id, rel) if rel and rel.lower() not in ("n/a", "rolling") else (
            "rolling" if rel and rel.lower() == "rolling" else None)
        code = lsb.get("Codename")
        res.codename = code.lower() if code and code.lower() != "n/a" else None
        return res
    for line in body:
        m = _HOSTNAMECTL.match(line)
        if m:
            pretty = from_pretty(m.group(1))
            pretty.format = "hostnamectl"
            return pretty
    for line in body[:3]:
        m = release_line(line)
        if m:
            res.format = "system-release"
            res.name = m[0].strip()
            res.pretty_name = line.strip()
            res.id = name_to_id(res.name)
            res.version_id = m[1]
            res.codename = m[2].strip() if m[2] else None
            return res
    return res
