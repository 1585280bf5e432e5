"""ROCm releases installable from AMD's apt repositories (``data/rocm_releases.toml``).

API (stable; the plan engine builds on it)::

    releases.all_releases() -> [RocmRelease]        # oldest first
    releases.get("6.4.3") -> RocmRelease | None     # exact ("6.4" == "6.4.0")
    releases.resolve("6.4") -> RocmRelease | None   # newest known 6.4.x; "7" -> newest 7.x; "latest"
    releases.newest() -> RocmRelease
    releases.apt_dir(rel_or_version) -> "6.4" / "6.4.3"   # no trailing .0
    releases.series_of("6.4.3") -> "6.4"
    releases.codename("22.04") -> "jammy"
    releases.repo() -> RepoInfo                     # base_url, key, pin, list files
    releases.key_url(base=None)                     # base defaults to repo().base_url
    releases.rocm_repo_url(rel, base=None)          # <base>/rocm/apt/<apt_dir>
    releases.amdgpu_repo_url(rel, base=None)        # 6.x: <base>/amdgpu/<apt_dir>/ubuntu ; 7.x: 30.x dir or None
    releases.graphics_repo_url(rel, base=None)      # 7.x only: <base>/graphics/<dir>/ubuntu
    releases.amdgpu_install_url(rel, codename, base=None)
    releases.apt_lines(rel, codename, base=None) -> [(list_file, deb_line)]
    releases.pin_text() -> the rocm-pin-600 file contents
    releases.upgrade_target(gfx_targets, ubuntu=None) -> RocmRelease | None
    releases.version_from_package("6.4.3.60403-128~22.04") -> "6.4.3"

Every URL is built from a base passed in (a mirror) or the default base in the data file.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ._data import join_url, load, pairs, tup

FILE = "rocm_releases.toml"
_SERIES_KEYS = ("layout", "ubuntu", "kernels", "gfx_official", "gfx_deprecated", "gfx_unsupported",
                "gfx_limited", "support_status", "support_note")


@dataclass(frozen=True)
class RepoInfo:
    base_url: str
    key_path: str
    keyring: str
    key_fingerprint: str
    key_long_id: str
    key_fingerprint_status: str
    key_sources: Tuple[str, ...]
    key_note: str
    pin_file: str
    pin_package: str
    pin_origin: str
    pin_priority: int
    pin_sources: Tuple[str, ...]
    rocm_list: str
    amdgpu_list: str
    list_sources: Tuple[str, ...]
    floating_dirs: Tuple[str, ...]
    floating_sources: Tuple[str, ...]
    apt_paths: Tuple[str, ...] = ()  # AMD's repository paths under a site ("rocm/apt/", "amdgpu/", ...)


@dataclass(frozen=True)
class RocmRelease:
    version: str  # "6.4.3"
    series: str  # "6.4"
    apt_dir: str  # "6.4.3" / "6.4" for x.y.0
    layout: str  # "rocm+amdgpu" (6.x) | "rocm+graphics+amdgpu30" (7.x)
    amdgpu_install: str  # package file name
    ubuntu: Tuple[str, ...]  # supported Ubuntu point releases ("24.04.2", "22.04.5")
    kernels: Tuple[Tuple[str, Tuple[str, ...]], ...]  # Ubuntu version -> kernel series ("6.8")
    gfx_official: Tuple[str, ...]
    gfx_deprecated: Tuple[str, ...]
    gfx_unsupported: Tuple[str, ...]
    gfx_limited: Tuple[Tuple[str, str], ...]  # gfx -> which products only
    status: str  # documented | observed | third-party: that the release exists as described
    support_status: str  # documented | inferred: the Ubuntu/gfx lists
    sources: Tuple[str, ...]
    series_sources: Tuple[str, ...]
    graphics_dir: Optional[str] = None  # 7.x
    amdgpu_dir: Optional[str] = None  # 6.x: apt_dir; 7.x: "30.20.1", None when unknown
    note: str = ""
    support_note: str = ""
    stream: str = "legacy"  # legacy (rocm_releases.toml) | core-sdk (coresdk.toml)
    date: str = ""
    debian: Tuple[str, ...] = ()  # Debian releases ("12"); legacy: none
    gfx_debian: Tuple[str, ...] = ()  # the GPUs supported on Debian (core-sdk)
    package_version: str = ""  # core-sdk: "10.0.0-*"
    repo_name: str = ""  # core-sdk: the [repo.<name>] of coresdk.toml
    driver_train: str = ""
    amdgpu_dir_status: str = ""

    @property
    def core(self) -> bool:
        return self.stream == "core-sdk"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def ubuntu_versions(self) -> Tuple[str, ...]:
        """Supported Ubuntu releases as ``YY.MM`` (point releases folded)."""
        seen: List[str] = []
        for u in self.ubuntu:
            short = ".".join(u.split(".")[:2])
            if short not in seen:
                seen.append(short)
        return tuple(seen)

    def supports_ubuntu(self, version_id: Optional[str]) -> Optional[bool]:
        if not version_id:
            return None
        short = ".".join(str(version_id).split(".")[:2])
        return short in self.ubuntu_versions

    def supports_os(self, os_id: Optional[str], version_id: Optional[str]) -> Optional[bool]:
        """Ubuntu by its list; Debian by the Core SDK's list (the legacy stream's Debian support is
        not in the catalog: None); None when not known."""
        if os_id == "ubuntu":
            return self.supports_ubuntu(version_id)
        if os_id == "debian" and self.core and version_id:
            return str(version_id).split(".")[0] in self.debian
        return None

    def kernel_series(self, ubuntu_version: str) -> Tuple[str, ...]:
        """Kernel series (``6.8``) listed for an Ubuntu release; empty when not known."""
        short = ".".join(str(ubuntu_version).split(".")[:2])
        return dict(self.kernels).get(short, ())

    def limited_note(self, gfx: str) -> Optional[str]:
        return dict(self.gfx_limited).get(gfx)

    @property
    def all_sources(self) -> Tuple[str, ...]:
        return tuple(dict.fromkeys(self.sources + self.series_sources))


def _vkey(version: str):
    from packaging.version import Version

    return Version(version)


@functools.lru_cache(maxsize=None)
def repo() -> RepoInfo:
    r = load(FILE)["repo"]
    return RepoInfo(
        base_url=r["base_url"], key_path=r["key_path"], keyring=r["keyring"],
        key_fingerprint=r["key_fingerprint"], key_long_id=r["key_long_id"],
        key_fingerprint_status=r["key_fingerprint_status"], key_sources=tup(r["key_sources"]),
        key_note=r.get("key_note", ""), pin_file=r["pin_file"], pin_package=r["pin_package"],
        pin_origin=r["pin_origin"], pin_priority=int(r["pin_priority"]), pin_sources=tup(r["pin_sources"]),
        rocm_list=r["rocm_list"], amdgpu_list=r["amdgpu_list"], list_sources=tup(r["list_sources"]),
        floating_dirs=tup(r.get("floating_dirs")), floating_sources=tup(r.get("floating_sources")),
        apt_paths=tup(r.get("apt_paths")),
    )


@functools.lru_cache(maxsize=None)
def _releases() -> Tuple[RocmRelease, ...]:
    data = load(FILE)
    series_tbl = data.get("series", {})
    out = []
    for entry in data.get("release", []):
        version = entry["version"]
        series = ".".join(version.split(".")[:2])
        base = dict(series_tbl.get(series, {}))
        merged = {k: entry.get(k, base.get(k)) for k in _SERIES_KEYS}
        layout = merged["layout"] or ""
        amdgpu_dir = entry.get("amdgpu_dir")
        if amdgpu_dir is None and layout == "rocm+amdgpu":
            amdgpu_dir = entry["apt_dir"]
        out.append(RocmRelease(
            version=version, series=series, apt_dir=entry["apt_dir"], layout=layout,
            amdgpu_install=entry["amdgpu_install"],
            ubuntu=tup(merged["ubuntu"]),
            kernels=tuple((k, tup(v)) for k, v in sorted((merged["kernels"] or {}).items())),
            gfx_official=tup(merged["gfx_official"]), gfx_deprecated=tup(merged["gfx_deprecated"]),
            gfx_unsupported=tup(merged["gfx_unsupported"]), gfx_limited=pairs(merged["gfx_limited"] or {}),
            status=entry.get("status", "unknown"),
            support_status=merged["support_status"] or "unknown",
            sources=tup(entry.get("sources")), series_sources=tup(base.get("sources")),
            graphics_dir=entry.get("graphics_dir"), amdgpu_dir=amdgpu_dir,
            note=entry.get("note", ""), support_note=merged["support_note"] or "",
        ))
    from . import coresdk

    out += coresdk.production_releases()
    out.sort(key=lambda r: _vkey(r.version))
    return tuple(out)


def all_releases() -> List[RocmRelease]:
    return list(_releases())


def all_series() -> List[str]:
    return list(dict.fromkeys(r.series for r in _releases()))


def _parse(version: object):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(str(version).strip())
    except (InvalidVersion, TypeError):
        return None


def get(version: object) -> Optional[RocmRelease]:
    """The release ``version`` exactly (``"6.4"`` means 6.4.0); None when unknown or unparsable."""
    v = _parse(version)
    if v is None:
        return None
    for rel in _releases():
        if _vkey(rel.version) == v:
            return rel
    return None


def resolve(spec: object) -> Optional[RocmRelease]:
    """Newest known release matching ``spec``: "6.4" -> newest 6.4.x, "6" -> newest 6.x,
    "6.4.3" -> 6.4.3, "latest" -> newest overall.  None when nothing matches."""
    text = str(spec or "").strip().lower()
    if text.startswith("rocm"):
        text = text[4:].lstrip("-_ ")
    if text in ("latest", "newest"):
        return newest()
    if not re.fullmatch(r"\d+(\.\d+){0,2}", text):
        return None
    parts = text.split(".")
    if len(parts) == 3:
        return get(text)
    matches = [r for r in _releases() if r.version.split(".")[: len(parts)] == parts]
    return matches[-1] if matches else None


def newest() -> RocmRelease:
    return _releases()[-1]


def series_of(version: object) -> Optional[str]:
    v = _parse(version)
    if v is None or len(v.release) < 2:
        return None
    return f"{v.release[0]}.{v.release[1]}"


def _rel(rel_or_version: Union[RocmRelease, str]) -> Optional[RocmRelease]:
    if isinstance(rel_or_version, RocmRelease):
        return rel_or_version
    return get(rel_or_version)


def apt_dir(rel_or_version: Union[RocmRelease, str]) -> Optional[str]:
    """repo.radeon.com directory name: known releases from the data, others by the rule (no
    trailing ``.0``: 6.4.0 -> 6.4).  None when unparsable."""
    rel = _rel(rel_or_version)
    if rel is not None:
        return rel.apt_dir
    v = _parse(rel_or_version)
    if v is None or len(v.release) < 2:
        return None
    nums = list(v.release[:3])
    if len(nums) == 3 and nums[2] == 0:
        nums = nums[:2]
    return ".".join(str(n) for n in nums)


def codename(ubuntu_version: Optional[str]) -> Optional[str]:
    if not ubuntu_version:
        return None
    from . import ubuntu

    return ubuntu.codename(ubuntu_version)


def base_url(base: Optional[str] = None) -> str:
    return (base or repo().base_url).rstrip("/")


def key_url(base: Optional[str] = None) -> str:
    return join_url(base_url(base), repo().key_path)


def rocm_repo_url(rel: Union[RocmRelease, str], base: Optional[str] = None) -> Optional[str]:
    d = apt_dir(rel)
    return join_url(base_url(base), "rocm", "apt", d) if d else None


def amdgpu_repo_url(rel: Union[RocmRelease, str], base: Optional[str] = None) -> Optional[str]:
    """The amdgpu driver repository: same directory as ROCm in 6.x, its own 30.x series in 7.x
    (None where that directory is not known: let amdgpu-install write amdgpu.list)."""
    r = _rel(rel)
    if r is None or not r.amdgpu_dir:
        return None
    return join_url(base_url(base), "amdgpu", r.amdgpu_dir, "ubuntu")


def graphics_repo_url(rel: Union[RocmRelease, str], base: Optional[str] = None) -> Optional[str]:
    r = _rel(rel)
    if r is None or not r.graphics_dir:
        return None
    return join_url(base_url(base), "graphics", r.graphics_dir, "ubuntu")


def amdgpu_install_url(rel: Union[RocmRelease, str], codename_: str, base: Optional[str] = None) -> Optional[str]:
    r = _rel(rel)
    if r is None or not codename_:
        return None
    return join_url(base_url(base), "amdgpu-install", r.apt_dir, "ubuntu", codename_, r.amdgpu_install)


def apt_lines(rel: Union[RocmRelease, str], codename_: str, base: Optional[str] = None,
              arch: str = "amd64", amdgpu_arch: Optional[str] = None) -> List[Tuple[str, str]]:
    """``(list file, deb line)`` pairs AMD's docs write for ``rel`` on ``codename_`` (``amdgpu_arch``:
    the driver repository's architectures when they differ, e.g. amdgpu-install's ``amd64,i386``)."""
    r = _rel(rel)
    if r is None or not codename_:
        return []
    info = repo()
    opts = f"[arch={arch} signed-by={info.keyring}]"
    out = [(info.rocm_list, f"deb {opts} {rocm_repo_url(r, base)} {codename_} main")]
    g = graphics_repo_url(r, base)
    if g:
        out.append((info.rocm_list, f"deb {opts} {g} {codename_} main"))
    a = amdgpu_repo_url(r, base)
    if a:
        aopts = f"[arch={amdgpu_arch or arch} signed-by={info.keyring}]"
        out.append((info.amdgpu_list, f"deb {aopts} {a} {codename_} main"))
    return out


def pin_text() -> str:
    info = repo()
    return f"Package: {info.pin_package}\nPin: release o={info.pin_origin}\nPin-Priority: {info.pin_priority}\n"


def policy_series() -> str:
    return str(load(FILE).get("policy", {}).get("upgrade_series", ""))


def policy_sources() -> Tuple[str, ...]:
    return tup(load(FILE).get("policy", {}).get("sources"))


def core_series(os_id: Optional[str] = None, os_version: Optional[str] = None, kernel: Optional[str] = None) -> str:
    """The Core SDK series the policy proposes (see [policy] in rocm_releases.toml): by OS and kernel
    (``core_series_by_os``: 10.1 where only its lists name them), else ``core_series``."""
    pol = load(FILE).get("policy", {})
    ver = str(os_version or "")
    kser = ".".join(str(kernel or "").split(".")[:2])
    for row in pol.get("core_series_by_os", []):
        if str(row.get("os", "")) != str(os_id or ""):
            continue
        want = str(row.get("version", ""))
        # "24.04" matches 24.04 and its point releases; "26.04.1" matches 26.04.1 and later points
        if want.count(".") >= 2:
            try:
                if not ver.startswith(want.rsplit(".", 1)[0] + ".") or _vkey(ver) < _vkey(want):
                    continue
            except ValueError:
                continue
        elif ver != want and not ver.startswith(want + "."):
            continue
        if row.get("kernel") and row["kernel"] != kser:
            continue
        return str(row["series"])
    return str(pol.get("core_series", ""))


def stream_of(version: object) -> Optional[str]:
    """The stream a ROCm version belongs to (``streams.toml``: 7.9 and later are the Core SDK, AMD's
    versioning discontinuity reserves 7.0-7.8 for the legacy stream); None when unparsable."""
    from . import streams

    of = streams.stream_of(version)
    return of.stream if of else None


def upgrade_target(gfx_targets: Sequence[str], ubuntu: Optional[str] = None, host: Optional[str] = None,
                   os_id: Optional[str] = None, os_version: Optional[str] = None,
                   kernel: Optional[str] = None, names: str = "") -> Optional[RocmRelease]:
    """The release the wizard proposes for an upgrade, by the policy of ``[policy]``: a host with a
    legacy ROCm (``host``) stays in the legacy stream when that stream serves its OS, within the
    policy series (or the host's own newer series) when that supports every target, else the
    oldest newer series that does; any other host (no ROCm, a Core SDK install, an OS only the
    Core SDK serves) gets the Core SDK series when its lists have the GPUs and the OS, else the
    legacy rule.  Within a series: the newest point release whose existence and support data are
    documented (the newest one when none is).  None when no known release supports them all."""
    targets = [g for g in gfx_targets if g]
    if not targets:
        return None
    if os_id is None and ubuntu:
        os_id, os_version = "ubuntu", ubuntu

    def fits(rel: RocmRelease) -> bool:
        from . import coresdk

        if rel.core:
            if any(coresdk.gfx_supported_on(rel, os_id, g, os_version, names) is False for g in targets):
                return False
            return not (os_id and rel.supports_os(os_id, os_version) is False)
        if any(g not in rel.gfx_official for g in targets):
            return False
        if os_id and os_id != "ubuntu":
            return False  # AMD's legacy repositories are for Ubuntu (in this catalog)
        if os_version and rel.supports_ubuntu(os_version) is False:
            return False
        return True

    def best(rels: List[RocmRelease]) -> RocmRelease:
        # newest release whose existence and support lists are documented; else the newest
        sure = [r for r in rels if r.status == "documented" and r.support_status == "documented"]
        return (sure or rels)[-1]

    def legacy() -> Optional[RocmRelease]:
        pol = policy_series()
        host_series = series_of(host) if host and stream_of(host) == "legacy" else None
        for series in dict.fromkeys(s for s in (host_series, pol) if s):
            if pol and host_series and _vkey(series) < _vkey(pol):
                continue
            candidates = [r for r in _releases() if not r.core and r.series == series and fits(r)]
            if candidates:
                return best(candidates)
        by_series: Dict[str, List[RocmRelease]] = {}
        for rel in _releases():
            if not rel.core and fits(rel):
                by_series.setdefault(rel.series, []).append(rel)
        newer = [s for s in by_series if _vkey(s) > _vkey(pol)] if pol else list(by_series)
        pick = sorted(newer, key=_vkey)[0] if newer else (sorted(by_series, key=_vkey)[-1] if by_series else None)
        return best(by_series[pick]) if pick else None

    def core() -> Optional[RocmRelease]:
        fitting = [r for r in _releases() if r.core and fits(r)]
        pol = [r for r in fitting if r.series == core_series(os_id, os_version, kernel)]
        return best(pol or fitting) if fitting else None

    if host and stream_of(host) == "legacy":
        return legacy() or core()
    return core() or legacy()


_PKG_RE = re.compile(r"^(?:\d+:)?(\d+)\.(\d+)\.(\d+)(?:\.(\d{5,6}))?(?:[-~+].*)?$")


def version_from_package(pkg_version: Optional[str]) -> Optional[str]:
    """ROCm release of a rocm-core/rocm package version: ``6.4.3.60403-128~22.04`` -> ``6.4.3``."""
    if not pkg_version:
        return None
    m = _PKG_RE.match(str(pkg_version).strip())
    if not m:
        return None
    return ".".join(m.group(i) for i in (1, 2, 3))


def versions(rels: Iterable[RocmRelease]) -> List[str]:
    return [r.version for r in rels]
