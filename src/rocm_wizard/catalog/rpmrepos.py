"""AMD's rpm repositories for RHEL and its rebuilds, and Fedora's own ROCm (``data/rpm_repos.toml``).

* :func:`family` -- ``"el"`` (RHEL, Rocky, AlmaLinux, Oracle Linux: AMD's repositories), ``"fedora"``
  (the distribution's own ``rocm-*`` packages) or None (not a dnf host this module plans for);
* :func:`el_release` -- (major, point) of an EL system (``"9.4"`` -> ("9", "9.4"));
* :func:`layout` / :func:`repo_urls` -- the ROCm (and kernel driver) repository of a release;
* :func:`os_supported` -- True / False / None (not known) for a ROCm release on an EL point release;
* :func:`driver_el_7x` -- where AMD's page installs a 7.x release's kernel driver from on EL (facts
  for the ``--no-dkms`` guidance; no plan installs it yet);
* :func:`coresdk_repo` -- the Core SDK's rpm repository of a series for an OS (facts only: no plan
  uses it yet).
"""
from __future__ import annotations

import functools
import re
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import data_path

# os-release IDs (and ID_LIKE words) of the EL family: AMD publishes RHEL and Oracle Linux pages,
# lists Rocky for 7.0.0; AlmaLinux is a RHEL rebuild (the same packages, the same point releases)
EL_IDS = ("rhel", "rocky", "almalinux", "ol")
FEDORA_IDS = ("fedora",)
NAMES = {"rhel": "RHEL", "rocky": "Rocky Linux", "almalinux": "AlmaLinux", "ol": "Oracle Linux", "fedora": "Fedora"}


@functools.lru_cache(maxsize=None)
def data() -> Dict[str, Any]:
    from ._data import load_path

    return load_path(data_path("rpm_repos.toml"))


def family(osi) -> Optional[str]:
    """``"el"``, ``"fedora"`` or None for a detected OS (its ``ID``; ``ID_LIKE`` is not enough: a
    CentOS Stream or a Fedora remix is not the release AMD built for)."""
    ident = ((getattr(osi, "id", None) or "") if osi is not None else "").lower()
    if ident in EL_IDS:
        return "el"
    if ident in FEDORA_IDS:
        return "fedora"
    return None


def el_release(osi) -> Optional[Tuple[str, str]]:
    """(major, point) of an EL system, e.g. ("9", "9.4"); None when VERSION_ID has no point release."""
    m = re.match(r"^(\d+)\.(\d+)", (getattr(osi, "version_id", None) or "").strip())
    if not m:
        return None
    return m.group(1), f"{m.group(1)}.{m.group(2)}"


class Layout(NamedTuple):
    name: str
    rocm: str  # path template under the base URL
    driver: Optional[str]  # the kernel driver's repository (6.x: amdgpu/...), None when not known
    status: str
    sources: Tuple[str, ...]
    note: str


def layout(series: str) -> Optional[Layout]:
    """The repository layout AMD uses for ROCm series ``series`` ("6.4"), None when not known."""
    d = data()
    for entry in d.get("series", []):
        if series in entry["series"]:
            lay = d["layout"][entry["layout"]]
            return Layout(entry["layout"], lay["rocm"], lay.get("amdgpu"), lay["status"] if entry["status"] ==
                          "documented" else entry["status"], tuple(lay["sources"]) + tuple(entry["sources"]),
                          lay.get("note", ""))
    return None


def repo_urls(base: str, apt_dir: str, series: str, major: str, point: str) -> Optional[Tuple[str, Optional[str]]]:
    """(ROCm repository URL, kernel driver repository URL or None) of a release for an EL major and
    point release, under ``base`` (repo.radeon.com or a mirror of it)."""
    lay = layout(series)
    if lay is None:
        return None
    values = {"major": major, "point": point, "dir": apt_dir}
    rocm = base.rstrip("/") + "/" + lay.rocm.format(**values)
    drv = base.rstrip("/") + "/" + lay.driver.format(**values) if lay.driver else None
    return rocm, drv


def os_supported(rocm: str, os_id: str, point: str) -> Optional[bool]:
    """Whether AMD lists ``os_id`` ``point`` (an EL point release) for ROCm ``rocm``: None when no
    list for that release is recorded.  Rocky and AlmaLinux follow the RHEL list unless their own is
    recorded (inferred: they rebuild RHEL's point releases)."""
    for entry in data().get("os_support", []):
        if rocm not in entry["rocm"]:
            continue
        own = entry.get(os_id)
        if own is None:
            own = entry.get("rhel") if os_id in ("rhel", "rocky", "almalinux") else None
        if own is None:
            return None
        return point in own
    return None


def os_support_entry(rocm: str) -> Optional[Dict[str, Any]]:
    return next((e for e in data().get("os_support", []) if rocm in e["rocm"]), None)


def repo_settings() -> Dict[str, Any]:
    return dict(data()["repo"])


def prerequisites() -> Dict[str, Any]:
    return dict(data()["prerequisites"])


def fedora() -> Dict[str, Any]:
    return dict(data()["fedora"])


def sources() -> List[str]:
    d = data()
    out: List[str] = []
    for part in [d["repo"].get("key_sources", []), d["repo"].get("priority_sources", []),
                 d["prerequisites"].get("sources", []), d["fedora"].get("sources", [])]:
        out += [s for s in part if s not in out]
    return out


def driver_el_7x(base: str, amdgpu_dir: Optional[str], major: str, point: str) -> Optional[Dict[str, Any]]:
    """The 7.x kernel driver's repository on EL as AMD's driver page writes it: ``url`` (EL 8/9 by
    point release, EL 10 by major), ``priority``, ``key_url``, ``remove_installed_first``, status and
    sources (plus the observed caveat on point releases); None when the driver directory is unknown."""
    d = data().get("driver_el_7x")
    if d is None or not amdgpu_dir:
        return None
    tmpl = d["baseurl_el10"] if major.isdigit() and int(major) >= 10 else d["baseurl"]
    base = base.rstrip("/")
    return {"url": base + "/" + tmpl.format(amdgpu_dir=amdgpu_dir, major=major, point=point),
            "repo_file": d["repo_file"], "priority": d["priority"], "key_url": base + "/" + d["key_path"],
            "remove_installed_first": bool(d["remove_installed_first"]), "status": d["status"],
            "sources": tuple(d["sources"]) + tuple(d.get("missing_point_sources", [])),
            "note": d.get("missing_point_note", "")}


class CoreSdkRepo(NamedTuple):
    series: str
    profile: str
    baseurl: str
    key_url: str
    repo_id: str
    repo_file: str  # dnf's or zypper's
    priority: Optional[int]  # None: AMD's page writes none
    status: str  # the weakest of the repository's and the profile's
    sources: Tuple[str, ...]
    note: str


def coresdk_repo(series: str, os_id: str, version_id: str) -> Tuple[Optional[CoreSdkRepo], str]:
    """(the Core SDK's rpm repository of ``series`` for ``os_id`` ``version_id``, "") or (None, why
    not known).  SLES reads zypper's repository file, the EL family dnf's."""
    d = data()
    repos = d.get("coresdk", {})
    entry = repos.get(series)
    if entry is None:
        return None, f"no Core SDK rpm repository is recorded for {series}"
    status, notes = entry["status"], [entry["note"]] if entry.get("note") else []
    sources = list(entry["sources"])
    if entry.get("same_as"):
        base = repos[entry["same_as"]]
        sources += [s for s in base["sources"] if s not in sources]
        entry = {**base, **{k: v for k, v in entry.items() if k not in ("same_as",)}}
    major = (version_id or "").split(".")[0]
    prof = next((p for p in d.get("coresdk_profile", []) if os_id in p["os"]), None)
    if prof is None:
        return None, f"{NAMES.get(os_id, os_id)} is on no Core SDK install page"
    profile = prof["major"].get(major)
    if profile is None:
        return None, f"AMD's Core SDK pages list no repository for {NAMES.get(os_id, os_id)} {major}"
    sources += [s for s in prof["sources"] if s not in sources]
    if prof["status"] != "documented":
        status = prof["status"]
    if entry.get("priority_note"):
        notes.append(entry["priority_note"])
    return CoreSdkRepo(series, profile, entry["baseurl"].format(profile=profile), entry["key_url"], entry["repo_id"],
                       entry["zypper_repo_file"] if os_id == "sles" else entry["dnf_repo_file"], entry.get("priority"),
                       status, tuple(sources), "; ".join(notes)), ""
