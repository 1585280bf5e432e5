"""The ROCm Core SDK stream (``data/coresdk.toml``): its production releases join
:mod:`~rocm_wizard.catalog.releases` (``stream == "core-sdk"``); its repositories, key, pin,
OS profiles, package names and previews are read here.

API::

    coresdk.production_releases() -> [RocmRelease]     # merged into releases.all_releases()
    coresdk.previews() -> [Preview]; coresdk.preview("7.12") -> Preview | None
    coresdk.info() -> CoreInfo                          # stream, key, pin, profiles, gfx suffixes
    coresdk.repo_of(rel) -> CoreRepo
    coresdk.profile("ubuntu", "26.04") -> Profile | None
    coresdk.key_url(rel, base=None); coresdk.packages_url(rel, profile, base=None)
    coresdk.source_file(rel, profile, base=None) -> (path, content)
    coresdk.package_names(rel, gfx_targets) -> ["amdrocm-core-sdk10.0-gfx1100"]
    coresdk.driver_lines(rel, codename, base=None) -> [(list file, deb line)]   # repo.radeon.com
    coresdk.install_root(rel) / version_file(rel)
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ._data import join_url, load, tup

FILE = "coresdk.toml"


@dataclass(frozen=True)
class CoreRepo:
    name: str
    base_url: str
    packages_path: str
    key_path: str
    format: str  # one-line | deb822
    list_file: str
    suite: str
    component: str
    repo_id: str
    status: str
    sources: Tuple[str, ...]


@dataclass(frozen=True)
class Profile:
    os: str
    version: str
    codename: str
    profile: str


@dataclass(frozen=True)
class Preview:
    version: str
    date: str
    status: str
    note: str
    sources: Tuple[str, ...]


@dataclass(frozen=True)
class CoreInfo:
    keyring: str
    key_fingerprint: str  # "" = not confirmed
    key_fingerprint_status: str
    key_note: str
    key_fingerprint_source: str
    key_sources: Tuple[str, ...]
    pin_file: str
    pin_package: str
    pin_priority: int
    pin_sources: Tuple[str, ...]
    install_root: str
    root_link: str
    version_file: str
    alternative: str
    pointer_note: str
    legacy_packages: Tuple[str, ...]
    gfx_suffixes: Tuple[str, ...]
    sources: Tuple[str, ...]


def _data():
    return load(FILE)


@functools.lru_cache(maxsize=None)
def info() -> CoreInfo:
    d = _data()
    st, key, pin = d["stream"], d["key"], d["pin"]
    return CoreInfo(
        keyring=key["keyring"], key_fingerprint=str(key.get("fingerprint", "")),
        key_fingerprint_status=key["fingerprint_status"], key_note=key.get("note", ""),
        key_fingerprint_source=str(key.get("fingerprint_source", "")),
        key_sources=tup(key.get("sources")), pin_file=pin["file"], pin_package=pin.get("package", "*"),
        pin_priority=int(pin["priority"]), pin_sources=tup(pin.get("sources")),
        install_root=st["install_root"], root_link=st["root_link"], version_file=st["version_file"],
        alternative=st["alternative"], pointer_note=st.get("pointer_note", ""),
        legacy_packages=tup(st.get("legacy_packages")), gfx_suffixes=tup(d["gfx_packages"]["suffixes"]),
        sources=tup(st.get("sources")))


@functools.lru_cache(maxsize=None)
def repos() -> Tuple[CoreRepo, ...]:
    out = []
    for name, r in _data()["repo"].items():
        out.append(CoreRepo(name, r["base_url"], r["packages_path"], r["key_path"], r["format"], r["list_file"],
                            r["suite"], r.get("component", "main"), r.get("repo_id", ""), r.get("status", "unknown"),
                            tup(r.get("sources"))))
    return tuple(out)


@dataclass(frozen=True)
class RepoPackage:
    """AMD's repository-setup packages (``amdrocm-repo-*``; coresdk.toml [repo_package])."""

    names: Tuple[str, ...]
    keyring: str
    self_update_file: str
    status: str
    sources: Tuple[str, ...]
    # every keyring a package's entry may name (Signed-By): the draft RFC's and the builder's
    keyrings: Tuple[str, ...] = ()


@functools.lru_cache(maxsize=None)
def repo_package() -> RepoPackage:
    r = _data().get("repo_package") or {}
    keyring = r.get("keyring", "")
    keyrings = tup(r.get("keyrings")) or ((keyring,) if keyring else ())
    return RepoPackage(tup(r.get("names")), keyring, r.get("self_update_file", ""),
                       r.get("status", "unknown"), tup(r.get("sources")), keyrings)


def repo_of(rel) -> CoreRepo:
    return next(r for r in repos() if r.name == rel.repo_name)


@functools.lru_cache(maxsize=None)
def profiles() -> Tuple[Profile, ...]:
    return tuple(Profile(p["os"], str(p["version"]), p["codename"], p["profile"]) for p in _data().get("profile", []))


def profile(os_id: Optional[str], version_id: Optional[str]) -> Optional[Profile]:
    """AMD's repository profile of an OS release (``ubuntu`` ``26.04.1`` -> ubuntu2604)."""
    if not os_id or not version_id:
        return None
    v = str(version_id)
    short = ".".join(v.split(".")[:2]) if os_id == "ubuntu" else v.split(".")[0]
    return next((p for p in profiles() if p.os == os_id and p.version == short), None)


@functools.lru_cache(maxsize=None)
def production_releases() -> List:
    from .releases import RocmRelease

    d = _data()
    out = []
    for e in d.get("release", []):
        version = e["version"]
        series = ".".join(version.split(".")[:2])
        s = d["series"][series]
        out.append(RocmRelease(
            version=version, series=series, apt_dir=series, layout="core-sdk",
            amdgpu_install=s.get("amdgpu_install", ""), ubuntu=tup(s.get("ubuntu")),
            kernels=tuple((k, tup(v)) for k, v in sorted((s.get("kernels") or {}).items())),
            gfx_official=tup(s.get("gfx_official")), gfx_deprecated=(), gfx_unsupported=(), gfx_limited=(),
            status=e.get("status", "unknown"), support_status=s.get("support_status", "unknown"),
            sources=tup(e.get("sources")), series_sources=tup(s.get("sources")),
            amdgpu_dir=s.get("amdgpu_dir") or None, note=e.get("note", ""), support_note=s.get("support_note", ""),
            stream="core-sdk", date=e.get("date", ""), debian=tup(s.get("debian")),
            gfx_debian=tup(s.get("gfx_debian")), package_version=e["package_version"], repo_name=s["repo"],
            driver_train=s.get("driver_train", ""), amdgpu_dir_status=s.get("amdgpu_dir_status", "")))
    return out


def series_data(series: str) -> dict:
    return dict(_data()["series"].get(series, {}))


@functools.lru_cache(maxsize=None)
def previews() -> Tuple[Preview, ...]:
    return tuple(Preview(p["version"], p.get("date", ""), p["status"], p.get("note", ""), tup(p.get("sources")))
                 for p in _data().get("preview", []))


def preview(spec: object) -> Optional[Preview]:
    """The preview or in-development release ``spec`` names ("7.12", "7.12.0", "10.2"), else None."""
    text = str(spec or "").strip().lower()
    if text.startswith("rocm"):
        text = text[4:].lstrip("-_ ")
    if not re.fullmatch(r"\d+\.\d+(\.\d+)?", text):
        return None
    parts = text.split(".")
    return next((p for p in previews() if p.version.split(".")[: len(parts)] == parts), None)


def _base(rel, base: Optional[str]) -> str:
    return (base or repo_of(rel).base_url).rstrip("/")


def key_url(rel, base: Optional[str] = None) -> str:
    return join_url(_base(rel, base), repo_of(rel).key_path)


def packages_url(rel, prof: Profile, base: Optional[str] = None) -> str:
    return join_url(_base(rel, base), repo_of(rel).packages_path, prof.profile)


def source_file(rel, prof: Profile, base: Optional[str] = None, arch: str = "amd64") -> Tuple[str, str]:
    """(path, content) of the repository file AMD's install page writes for ``rel``: one line in
    rocm.list for 7.14, the deb822 ``amdrocm-stable.sources`` for 10.x."""
    r = repo_of(rel)
    keyring = info().keyring
    url = packages_url(rel, prof, base)
    if r.format == "deb822":
        lines = ([f"X-Repo-Id: {r.repo_id}"] if r.repo_id else []) + [
            "Types: deb", f"URIs: {url}/", f"Suites: {r.suite}", f"Components: {r.component}",
            f"Architectures: {arch}", f"Signed-By: {keyring}"]
        return r.list_file, "\n".join(lines) + "\n"
    return r.list_file, f"deb [arch={arch} signed-by={keyring}] {url} {r.suite} {r.component}\n"


def package_names(rel, gfx_targets: Sequence[str], component: str = "full") -> List[str]:
    """The versioned package(s) to install: one per-gfx package per GPU target when every target
    has one, else the full multi-GPU package.  Never the unversioned pointer."""
    tmpl = series_data(rel.series).get("packages", {}).get(component)
    if not tmpl:
        return []
    name = tmpl.replace("{series}", rel.series)
    targets = [g for g in dict.fromkeys(gfx_targets) if g]
    if targets and all(g in info().gfx_suffixes for g in targets):
        return [f"{name}-{g}" for g in targets]
    return [name]


def install_root(rel) -> str:
    return info().install_root.replace("{series}", rel.series)


def version_file(rel) -> str:
    return info().version_file.replace("{series}", rel.series)


def driver_lines(rel, codename: str, base: Optional[str] = None, arch: str = "amd64") -> List[Tuple[str, str]]:
    """The amdgpu kernel-driver repository on repo.radeon.com paired with ``rel`` (empty when
    its directory is not known)."""
    from . import releases

    if not rel.amdgpu_dir or not codename:
        return []
    info_ = releases.repo()
    url = join_url(releases.base_url(base), "amdgpu", rel.amdgpu_dir, "ubuntu")
    return [(info_.amdgpu_list, f"deb [arch={arch} signed-by={info_.keyring}] {url} {codename} main")]


def gfx_supported_on(rel, os_id: Optional[str], gfx: str, os_version: Optional[str] = None,
                     names: str = "") -> Optional[bool]:
    """Whether ``gfx`` is on ``rel``'s list for that OS, per GPU family and product where they
    differ (``[[product_os]]``, ``[[family_os]]``): Debian only for the Instinct products whose rows
    name that Debian release (MI100 and MI210: none; MI250/MI250X/MI300A: 12; MI350P: 13); Ryzen
    APUs not on Ubuntu 22.04.  None when the product decides and the GPU's name is not known."""
    if gfx not in rel.gfx_official:
        return False
    data = _data()
    short = ".".join(str(os_version or "").split(".")[:2])
    if os_id == "ubuntu" and short:
        for fam in data.get("family_os", []):
            if gfx in fam.get("gfx", []) and rel.series in fam.get("series", []) and short in fam.get("ubuntu_not", []):
                return False
    if os_id == "debian":
        if gfx not in rel.gfx_debian:
            return False
        rows = [r for r in data.get("product_os", []) if r.get("gfx") == gfx]
        if not rows:
            return True
        low = str(names or "").lower()
        major = str(os_version or "").split(".")[0]
        for r in rows:
            if any(p.lower() in low for p in r.get("products", [])):
                return (major in r.get("debian", [])) if major else bool(r.get("debian"))
        if not low:
            return None
        return True
    return True


INSTINCT = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")


def family_of(gfx: Optional[str]) -> str:
    """instinct | ryzen | radeon: the family whose OS and kernel list a GPU follows."""
    from . import gpus

    if gfx in INSTINCT:
        return "instinct"
    if gfx and gpus.apu_only_gfx(gfx):
        return "ryzen"
    return "radeon"


def family_kernels(rel, family: str, ubuntu: Optional[str]) -> Optional[Tuple[str, ...]]:
    """Kernel series ``rel``'s series lists for ``family`` on that Ubuntu release; () when the
    family is not listed there at all; None when the series has no per-family table."""
    table = (_data().get("series", {}).get(getattr(rel, "series", ""), {}) or {}).get("kernels_by_family")
    if not table or not ubuntu:
        return None
    short = ".".join(str(ubuntu).split(".")[:2])
    return tuple(table.get(family, {}).get(short, ()))
