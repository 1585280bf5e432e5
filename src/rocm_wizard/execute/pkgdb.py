"""Which package database a run changes, and what it holds before and after.

A plan's steps say which package manager it drives: ``apt-*`` steps change dpkg's database,
``dnf-install``/``rpm-key`` and ``zypper-*`` steps change rpm's.  The engine saves the database's
``name -> version`` before the first step (``dpkg-before.json`` or ``rpm-before.json`` in the run's
directory); the journal's ``packages`` and ``rollback`` compare it with the database afterwards.

rpm's database is read with ``rpm -qa`` (``--root`` for a run on another root).  rpm can hold
several versions of one name (kernels, ``gpg-pubkey``): those are joined with ``", "``.  Each
imported signing key is its own entry, ``gpg-pubkey-<key id>`` (rpm's own name for it is
``gpg-pubkey-<version>-<release>``), so a key the run imported shows up as added.
"""
from __future__ import annotations

import os
import subprocess
from typing import Dict, Iterable, Optional

APT, DNF, ZYPPER = "apt", "dnf", "zypper"
DPKG, RPM = "dpkg", "rpm"
BEFORE_FILES = {DPKG: "dpkg-before.json", RPM: "rpm-before.json"}
DNF_KINDS = {"rpm-key", "dnf-install"}
# epoch only where a package has one (rpm prints "(none)" otherwise)
RPM_QF = "%{NAME}\\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\\n"
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def tool_of(kinds: Iterable[str]) -> str:
    """The package manager a plan with steps of these kinds drives: ``zypper``, ``dnf`` or ``apt``."""
    kinds = set(kinds)
    if any(k.startswith("zypper-") for k in kinds):
        return ZYPPER
    if kinds & DNF_KINDS or any(k.startswith("dnf-") for k in kinds):
        return DNF
    return APT


def db_of(tool: str) -> str:
    return RPM if tool in (DNF, ZYPPER) else DPKG


def parse_dpkg_status(text: str) -> Dict[str, str]:
    """Installed package -> version from the text of dpkg's status file."""
    out: Dict[str, str] = {}
    pkg = ver = status = None
    for raw in (text or "").split("\n") + [""]:
        if not raw:
            if pkg and ver and status and status.endswith(" installed"):
                out[pkg] = ver
            pkg = ver = status = None
        elif raw.startswith("Package: "):
            pkg = raw[9:].strip()
        elif raw.startswith("Version: "):
            ver = raw[9:].strip()
        elif raw.startswith("Status: "):
            status = raw[8:].strip()
    return out


def dpkg_versions(root: str = "/") -> Optional[Dict[str, str]]:
    """Installed package -> version from dpkg's status file (None without dpkg)."""
    path = "/var/lib/dpkg/status" if root in ("", "/") else os.path.join(root, "var/lib/dpkg/status")
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as fh:
            return parse_dpkg_status(fh.read())
    except OSError:
        return None


def parse_rpm_qa(text: str) -> Dict[str, str]:
    """``name -> version`` from ``rpm -qa --qf RPM_QF`` output (see the module's note)."""
    many: Dict[str, list] = {}
    for line in (text or "").splitlines():
        name, sep, evr = line.partition("\t")
        name, evr = name.strip(), evr.strip()
        if not sep or not name or not evr or " " in name or " " in evr:
            continue
        if name == "gpg-pubkey":
            name = "gpg-pubkey-" + evr.split("-", 1)[0]
        many.setdefault(name, [])
        if evr not in many[name]:
            many[name].append(evr)
    return {name: ", ".join(sorted(v)) for name, v in many.items()}


def rpm_versions(root: str = "/", timeout: float = 300) -> Optional[Dict[str, str]]:
    """Installed package -> version from rpm's database (None when rpm cannot be run or fails)."""
    argv = ["rpm", "-qa", "--qf", RPM_QF]
    if root not in ("", "/"):
        argv[1:1] = ["--root", root]
    try:
        res = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                             env={"PATH": _PATH, "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0:
        return None
    return parse_rpm_qa(res.stdout.decode("utf-8", "replace"))


def versions(db: str, root: str = "/") -> Optional[Dict[str, str]]:
    return rpm_versions(root) if db == RPM else dpkg_versions(root)
