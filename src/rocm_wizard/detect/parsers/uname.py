"""Kernel identity from ``uname -a`` / ``uname -r`` / ``uname -srm`` / ``/proc/version``.

* ``uname -a``: ``Linux host 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC ... x86_64 x86_64 x86_64 GNU/Linux``
* ``uname -r``: ``6.8.0-45-generic``
* ``/proc/version``: ``Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (gcc ...) #45-Ubuntu SMP ...``

The kernel *flavour* (``generic``, ``oem``, ``microsoft-standard-WSL2``, ``arch``, ``el9``...) is
derived from the release string by :func:`flavour`.  ``hostname`` is only filled from ``uname -a``
(the snapshot command scrubs it).
"""
from __future__ import annotations

import re
from typing import Optional

from ...model import lean_dataclass
from ._core_text import lazy, content_lines, lines, prompt_command

KIND = "uname"

ARCHES = ("x86_64", "aarch64", "arm64", "ppc64le", "ppc64", "s390x", "riscv64", "i686", "i386", "armv7l",
          "loongarch64")

# a kernel release: 6.8.0-45-generic, 5.17.0, 6.6.87.2-microsoft-standard-WSL2, 7.1.4-arch1-1,
# 5.14.0-70.30.1.el9_0.x86_64, 4.4.0-19041-Microsoft, 6.1.0-25-amd64
RELEASE_RE = r"\d+\.\d+(?:\.\d+){0,2}(?:[-+_~][0-9A-Za-z][0-9A-Za-z._+~-]*)?"
_RELEASE = lazy(r"^" + RELEASE_RE + r"$")
_UNAME_A = lazy(r"^\s*Linux\s+(?P<host>\S+)\s+(?P<rel>" + RELEASE_RE + r")\s+(?P<rest>#.*)$")
_PROC_VERSION = lazy(r"^\s*Linux version\s+(?P<rel>" + RELEASE_RE + r")\s+\((?P<rest>.*)$")
_UNAME_SRM = lazy(r"^\s*Linux\s+(?P<rel>" + RELEASE_RE + r")(?:\s+(?P<arch>" + "|".join(ARCHES) + r"))?\s*$")
# Ubuntu / Debian style: 6.8.0-45-generic, 6.17.0-1012-oem, 6.1.0-25-amd64, 5.15.0-1050-azure
# (s19-detgen) HIP's version as hipconfig --version / torch.version.hip print it: 6.2.41133-dd7f95766
_HIP_VERSION = lazy(r"^\d+\.\d+\.\d{4,}(?:-[0-9a-f]{6,})?$")
_UBUNTU_FLAVOUR = lazy(r"^\d+\.\d+\.\d+-\d+(?:\.\d+)?-(?P<flavour>[a-z][a-z0-9-]*)$")


@lean_dataclass
class Uname:
    """The kernel release, host and machine of a ``uname`` / ``/proc/version`` text."""

    release: Optional[str] = None  # uname -r
    hostname: Optional[str] = None
    version: Optional[str] = None  # "#45-Ubuntu SMP PREEMPT_DYNAMIC ..."
    machine: Optional[str] = None  # x86_64
    flavour: Optional[str] = None
    wsl: Optional[bool] = None
    format: Optional[str] = None  # uname-a | uname-r | uname-srm | proc-version

    @property
    def ok(self) -> bool:
        return self.release is not None


def flavour(release: Optional[str]) -> Optional[str]:
    """Kernel flavour of a release string; None when it has no recognisable one."""
    if not release:
        return None
    r = release.strip()
    low = r.lower()
    if "microsoft" in low:
        m = re.search(r"(microsoft-standard-wsl2|microsoft-standard|microsoft)", low)
        idx = low.find(m.group(1)) if m else -1
        return r[idx:] if idx >= 0 else "microsoft"
    m = _UBUNTU_FLAVOUR.match(r)
    if m:
        return m.group("flavour")
    m = re.search(r"\.el(\d+)", low)
    if m:
        return "el" + m.group(1)
    m = re.search(r"\.fc(\d+)", low)
    if m:
        return "fc" + m.group(1)
    for tag in ("arch", "zen", "lts", "hardened", "cachyos", "xanmod", "liquorix", "valve", "rt"):
        if re.search(r"-" + tag + r"\d*(?:[-.]|$)", low):
            return tag
    if "-default" in low:
        return "default"  # openSUSE
    return None


def is_wsl(release: Optional[str]) -> Optional[bool]:
    if not release:
        return None
    return "microsoft" in release.lower()


def looks_like(text: object) -> float:
    if not isinstance(text, str) or text.count("\n") > 12:  # uname output is a line or two
        return 0.0
    body = content_lines(text)
    if not body or len(body) > 3:
        return 0.0
    first = body[0].strip()
    if "Linux" in first:  # all three patterns start with it
        if _UNAME_A.match(first):
            return 0.95
        if _PROC_VERSION.match(first):
            return 0.9
        if _UNAME_SRM.match(first):
            return 0.85
    if len(body) == 1 and first[:1].isdecimal() and _RELEASE.match(first):
        # (the prompt lines' commands, looked for only here: nothing above reads them)
        cmds = [c for c in (prompt_command(l) for l in lines(text)) if c]
        if any(c.startswith("uname") for c in cmds) or any("/proc/version" in c for c in cmds):
            return 0.95
        if cmds:
            # (s19-detgen) the bare value answers another command the paste shows ('$ hipconfig --version' ->
            # '6.2.41133-dd7f95766', '$ cat /etc/debian_version' -> '12.7'): not the kernel's release
            return 0.0
        if _HIP_VERSION.match(first):
            # HIP's own version string, <major>.<minor>.<build>-<git hash> (hipconfig --version; HIP's
            # hip_version.h HIP_VERSION_GITHASH): a kernel's patch level never has four digits
            return 0.0
        # a bare release with a flavour is a kernel; a bare x.y.z(-n) could be many things
        return 0.75 if flavour(first) or re.search(r"[A-Za-z]", first) else 0.35
    return 0.0


def parse(text: object) -> Uname:
    res = Uname()
    for line in content_lines(text):
        s = line.strip()
        m = _UNAME_A.match(s)
        if m:
            res.format = "uname-a"
            res.hostname = m.group("host")
            res.release = m.group("rel")
            rest = m.group("rest").strip()
            toks = rest.split()
            arch = next((t for t in toks if t in ARCHES), None)
            res.machine = arch
            if arch:
                res.version = rest[: rest.find(" " + arch)].strip() if (" " + arch) in rest else rest
            else:
                res.version = rest
            break
        m = _PROC_VERSION.match(s)
        if m:
            res.format = "proc-version"
            res.release = m.group("rel")
            hm = re.search(r"(#\d+\S*\s.*)$", s)
            res.version = hm.group(1).strip() if hm else None
            break
        m = _UNAME_SRM.match(s)
        if m:
            res.format = "uname-srm"
            res.release = m.group("rel")
            res.machine = m.group("arch")
            break
        if _RELEASE.match(s):
            res.format = "uname-r"
            res.release = s
            break
    res.flavour = flavour(res.release)
    res.wsl = is_wsl(res.release)
    return res
