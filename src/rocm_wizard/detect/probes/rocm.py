"""ROCm on the host: installed releases, packages, where ``/opt/rocm`` points, AMD's apt
repositories and pins, the amdgpu kernel driver (in-tree or DKMS), HSA runtime / KFD versions.

``system.rocm.version`` is the *host's* ROCm release only, from (best first) the release
``/opt/rocm`` points to (``.info/version``), the other ``/opt/rocm-*`` installs, the ROCm packages
(dpkg / apt / dnf / rpm lists), ``amd-smi version`` and ``rocm_version.h``.  The HIP / ROCm a
PyTorch wheel was built against is never used here.
"""
from __future__ import annotations

import os
import posixpath
import re
from typing import Any, Dict, List, Optional, Tuple

from ...model import AptPin, AptSource, RocmInfo, RocmInstall, System
from ..parsers import apt_prefs, apt_sources, lsmod, packages
from ._core_util import paste_label, pastes
from ...catalog import streams
from ..parsers._core_text import lazy, lazy_module
from .. import sources as sources_mod
from .._jobs import in_parallel, run_jobs
from ..sources import Raw, Source
from . import _gpu_shared as sh

# read only where their files or outputs are there (a ROCm install, a pasted listing)
hipconfig = lazy_module("rocm_wizard.detect.parsers.hipconfig")
opt_listing = lazy_module("rocm_wizard.detect.parsers.opt_listing")
rv = lazy_module("rocm_wizard.detect.parsers.rocm_version")
issue_form = lazy_module("rocm_wizard.detect.parsers.issue_form")  # pasted text only
paste_facts = lazy_module("rocm_wizard.detect.parsers.paste_facts")  # pasted text only

# the tools' parsers, imported only where a tool printed something (_gpu_shared.tool_parser)
_amd_smi_parse, _apt_policy_parse, _dkms_parse = (sh.tool_parser(n) for n in ("amd_smi", "apt_policy", "dkms"))
_lspci_parse, _rocm_smi_parse, _rocminfo_parse = (sh.tool_parser(n) for n in ("lspci", "rocm_smi", "rocminfo"))

# hosts whose repositories count as AMD's (add local mirrors of repo.radeon.com here)
RADEON_HOSTS: Tuple[str, ...] = apt_sources.DEFAULT_RADEON_HOSTS

_ROCM_DIR = lazy(r"^rocm(-\d+\.\d+(?:\.\d+){0,2}.*)?$")
_CORE_DIR = lazy(r"^core-\d+\.\d+$")  # /opt/rocm/core-10.0 (core-10 is a link to it)
_EXTRAS_DIR = lazy(r"^extras-\d+$")
_ROCMISH = lazy(r"rocm|amdgpu|radeon|hip", re.I)


# ---------------------------------------------------------------------------------------------
# installs under /opt


def _resolve(source: Source, path: str, hops: int = 8) -> Optional[str]:
    """Final target of a symlink chain (/opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.3.1);
    None when ``path`` is not a link."""
    target = None
    cur = path
    for _ in range(hops):
        link = sh.readlink(source, cur)
        if not link:
            break
        cur = posixpath.normpath(link if link.startswith("/") else posixpath.join(posixpath.dirname(cur), link))
        target = cur
    return target


def _install_at(source: Source, path: str, core: bool = False) -> Optional[RocmInstall]:
    inst = RocmInstall(path=path)
    raw = None
    if core:  # the Core SDK's version-rocm carries the build number (7.10.1-36)
        raw = sh.read_text(source, path + "/.info/version-rocm", 4096)
        if raw is not None and not rv.parse_info_version(raw.text).version:
            raw = None
    raw = raw or sh.read_text(source, path + "/.info/version", 4096)
    if raw is not None:
        rel = rv.parse_info_version(raw.text)
        if rel.version:
            inst.put("version", rel.version, raw.source)
            inst.put("build", rel.build, raw.source)
        else:
            inst.note("%s/.info/version does not hold a version: %r" % (path, (rel.raw or "")[:60]))
    if inst.version is None:
        hdr = sh.read_text(source, path + "/include/rocm-core/rocm_version.h", 65536)
        if hdr is not None:
            rel = rv.parse_version_header(hdr.text)
            if rel.version:
                inst.put("version", rel.version, hdr.source)
                inst.put("build", rel.build, hdr.source)
    if inst.version is None:
        v = rv.version_from_dirname(posixpath.basename(path))
        if v:
            inst.put("version", v, "dir:" + path)
            inst.note("release taken from the directory name; %s/.info/version is missing" % path)
    if inst.version is None and not sh.exists(source, path + "/bin") and not sh.exists(source, path + "/lib"):
        return None
    if inst.version is None:
        inst.note("release unknown: no .info/version or rocm_version.h under %s" % path)
    hip = sh.read_text(source, path + "/share/hip/version", 4096)
    if hip is not None:
        inst.put("hip_version", hipconfig.parse(hip.text).full, hip.source)
    if core:
        inst.put("stream", "core-sdk", "dir:" + path)
    else:
        of = streams.stream_of(inst.version)
        inst.put("stream", of.stream if of else None, inst.sources.get("version", "dir:" + path))
    return inst


def _core_sdk_layout(source: Source, r: RocmInfo) -> List[str]:
    """The Core SDK trees under ``/opt/rocm`` (``core-X.Y`` side by side, or the 7.13/7.14 ``core``
    directory); records where ``/opt/rocm/core`` points and the extras directories."""
    names = sh.listdir(source, "/opt/rocm")
    trees = ["/opt/rocm/" + n for n in sorted(names, key=lambda n: streams.version_key(n[5:])) if _CORE_DIR.match(n)
             and not sh.readlink(source, "/opt/rocm/" + n)]
    if "core" in names:
        target = _resolve(source, "/opt/rocm/core")
        if target:
            r.put("core_target", target, "link:/opt/rocm/core")
            if target not in trees and sh.exists(source, target):
                trees.append(target)
        elif "/opt/rocm/core" not in trees:
            trees.insert(0, "/opt/rocm/core")  # the 7.13/7.14 documented root: a directory
    extras = ["/opt/rocm/" + n for n in names if _EXTRAS_DIR.match(n)]
    if trees and extras:
        r.note("Core SDK extras: %s" % ", ".join(extras))
    return trees


# a distribution's own ROCm lives in /usr (Ubuntu 26.04, Debian's librocm-core1, Fedora's rocm-core):
# its rocm-core library is the marker, the header (with -dev packages) the release
DISTRO_MARKERS = ("/usr/lib/x86_64-linux-gnu/librocm-core.so.1", "/usr/lib/aarch64-linux-gnu/librocm-core.so.1",
                  "/usr/lib64/librocm-core.so.1", "/usr/lib/librocm-core.so.1")


def _distro_tree(source: Source, r: RocmInfo) -> None:
    marker = next((p for p in DISTRO_MARKERS if sh.exists(source, p)), None)
    if marker is None:
        return
    inst = RocmInstall(path="/usr")
    inst.put("stream", "distro", "file:" + marker)
    hdr = sh.read_text(source, "/usr/include/rocm-core/rocm_version.h", 65536)
    if hdr is not None:
        rel = rv.parse_version_header(hdr.text)
        inst.put("version", rel.version, hdr.source)
    hip = sh.read_text(source, "/usr/share/hip/version", 4096)
    if hip is not None:
        inst.put("hip_version", hipconfig.parse(hip.text).full, hip.source)
    if inst.version is None:
        inst.note("a distribution's ROCm is in /usr (%s); its release is in its packages" % marker)
    r.installs.append(inst)


def _installs(source: Source, r: RocmInfo) -> None:
    names = [n for n in sh.listdir(source, "/opt") if _ROCM_DIR.match(n)]
    target = _resolve(source, "/opt/rocm")
    if target:
        r.put("opt_rocm_target", target, "link:/opt/rocm")
    seen: Dict[str, RocmInstall] = {}
    cores = _core_sdk_layout(source, r) if "rocm" in names or sh.exists(source, "/opt/rocm") else []
    candidates = ["/opt/" + n for n in names if n != "rocm"]
    if "rocm" in names or sh.exists(source, "/opt/rocm"):
        if target is None and not cores:
            candidates.insert(0, "/opt/rocm")  # a real directory (tarball / TheRock / container)
        elif target is not None and target not in candidates:
            candidates.append(target)
    env = {}
    try:
        env = source.env()
    except Exception:
        pass
    for var in ("ROCM_PATH", "HIP_PATH"):
        p = env.get(var)
        if p and p.startswith("/") and posixpath.normpath(p) not in candidates + cores and posixpath.normpath(p) != "/opt/rocm" \
                and not posixpath.normpath(p).startswith("/opt/rocm/"):
            candidates.append(posixpath.normpath(p))
    for path, core in [(c, True) for c in cores] + [(c, False) for c in candidates]:
        inst = _install_at(source, path, core)
        if inst is not None and path not in seen:
            seen[path] = inst
            r.installs.append(inst)
    active = r.core_target if cores and target is None else target
    if cores and target is None and active is None and len(cores) == 1:
        active = cores[0]
    for inst in r.installs:
        if active is not None:
            inst.put("active", inst.path == active, "link:" + ("/opt/rocm/core" if r.core_target == active else "/opt/rocm"))
    _distro_tree(source, r)
    if cores and target is None:
        r.note("/opt/rocm is a directory with the Core SDK's alternatives (bin/, lib/ ...), not a link to one "
               "/opt/rocm-X.Y.Z: /opt/rocm/.info/version does not exist on a Core SDK install")


def _pasted_installs(source: Source, system: System, r: RocmInfo) -> None:
    """A pasted ``cat /opt/rocm/.info/version`` (or rocm_version.h): the release /opt/rocm holds."""
    if r.installs:
        return
    for raw, rel in sh.parsed(source, system, "rocm-info-version", sh.tool_parser("rocm_version")):
        if rel.version:
            inst = RocmInstall(path="/opt/rocm")
            inst.put("version", rel.version, raw.source)
            inst.put("build", rel.build, raw.source)
            of = streams.stream_of(rel.version)
            inst.put("stream", of.stream if of else None, raw.source)
            inst.note("from a pasted release file; which /opt/rocm* it was is not known")
            r.installs.append(inst)
            return
    for raw, lst in sh.parsed(source, system, "opt-listing", sh.tool_parser("opt_listing")):
        for ver in lst.releases:
            path = "/opt/rocm-" + ver
            if any(i.path == path for i in r.installs):
                continue
            inst = RocmInstall(path=path)
            inst.put("version", ver, raw.source + " (directory name)")
            of = streams.stream_of(ver)
            inst.put("stream", of.stream if of else None, raw.source + " (directory name)")
            r.installs.append(inst)
        if lst.target and not r.opt_rocm_target:
            r.put("opt_rocm_target", lst.target, raw.source)
        if lst.core_target and not r.core_target:
            r.put("core_target", lst.core_target, raw.source)
        for xy in lst.core_streams:
            path = "/opt/rocm/core-" + xy
            if any(i.path == path for i in r.installs):
                continue
            inst = RocmInstall(path=path)
            inst.put("version", xy, raw.source + " (directory name)")
            inst.put("stream", "core-sdk", raw.source + " (directory name)")
            inst.note("%s: the directory name gives the Core SDK stream %s, not its patch release" % (path, xy))
            r.installs.append(inst)
    for link, stream in ((r.core_target, "core-sdk"), (r.opt_rocm_target, "legacy")):
        for inst in r.installs:
            if link and inst.stream == stream and inst.active is None:
                inst.put("active", inst.path == link, r.sources.get("core_target" if stream == "core-sdk" else "opt_rocm_target", ""))


# ---------------------------------------------------------------------------------------------
# packages


def _packages(source: Source, system: System, r: RocmInfo) -> List[Tuple[packages.Package, str]]:
    found: List[Tuple[packages.Package, str]] = []
    for kind in ("dpkg", "apt-list", "dnf-list", "pacman-list"):
        for raw, res in (_dpkg_parsed(source, system) if kind == "dpkg" else
                         sh.parsed(source, system, kind, packages.parse)):
            for p in res.packages:
                if packages.is_rocm_package(p.name):
                    found.append((p, raw.source))
    # ``apt-cache policy <package>``'s "Installed:" line is the installed version too ("(none)": not installed)
    for raw, res in sh.parsed(source, system, "apt-policy", _apt_policy_parse):
        for name, pol in res.packages.items():
            if pol.installed and packages.is_rocm_package(name) and not any(p.name == name for p, _l in found):
                found.append((packages.Package(name=name, version=pol.installed, status="apt-cache policy"), raw.source))
    for p, label in found:
        if p.installed and p.version and p.name not in r.packages:
            r.packages[p.name] = p.version
            r.sources.setdefault("packages", label)
    return found


def _dpkg_parsed(source: Source, system: System) -> List[Tuple[Raw, "packages.PackagesOutput"]]:
    """``sh.parsed(source, system, "dpkg", packages.parse)``, taking dpkg's lines as data where the
    source read them from dpkg's files (``Raw.dpkg_rows``) rather than parsing the text made of them
    (the same packages of the ROCm stack: ``packages.from_query_rows``)."""
    out = []
    for raw in sh.good(sh.outputs(source, system, "dpkg")):
        rows = getattr(raw, "dpkg_rows", None)
        if rows is None:
            return sh.parsed(source, system, "dpkg", packages.parse)
        # (only the ROCm stack's packages: the only ones _packages keeps)
        out.append((raw, packages.from_query_rows([row for row in rows if packages.is_rocm_package(row[0])])))
    return out


def _distro_release(pkgs: List[packages.Package]) -> Optional[Tuple[str, packages.Package]]:
    """A distribution's own ROCm packages carry the upstream release without a libpatch
    (Ubuntu 24.04: ``rocminfo 5.7.1-3build1``)."""
    # the runtime before rocminfo: Fedora 39 ships rocm-runtime 5.7.1 with rocminfo 5.7.0
    for name in packages.DISTRO_RELEASE_PACKAGES:
        for p in pkgs:
            if p.installed and p.base_name == name and p.version and packages.stream_of_package(p) == "distro":
                m = re.match(r"^(?:\d+:)?(\d+\.\d+\.\d+)", p.version)
                if m:
                    return m.group(1), p
    return None


def _core_sdk_release(pkgs: List[packages.Package]) -> Optional[Tuple[str, packages.Package]]:
    """(release, package) of the newest Core SDK stream among installed ``amdrocm*`` packages."""
    best: Optional[Tuple[str, packages.Package]] = None
    for p in pkgs:
        if not p.installed or packages.core_sdk_name(p.name) is None:
            continue
        rel = packages.core_sdk_release(p.version)
        if rel and (best is None or streams.version_key(rel) > streams.version_key(best[0])):
            best = (rel, p)
    return best


# ---------------------------------------------------------------------------------------------
# apt configuration


def _file_texts(source: Source, system: System, files: List[str], kind: str,
                max_bytes: int) -> List[Tuple[str, Raw]]:
    """``(path, Raw)`` of each readable file, then ``("", Raw)`` of each pasted text of ``kind``."""
    texts: List[Tuple[str, Raw]] = []
    for f in files:
        raw = sh.read_text(source, f, max_bytes)
        if raw is not None:
            texts.append((f, raw))
    texts += [("", raw) for raw in sh.good(sh.outputs(source, system, kind))]
    return texts


def _apt(source: Source, system: System, r: RocmInfo) -> None:
    files: List[str] = ["/etc/apt/sources.list"]
    for n in sh.listdir(source, "/etc/apt/sources.list.d"):
        if n.endswith((".list", ".sources")):
            files.append("/etc/apt/sources.list.d/" + n)
    for f, raw in _file_texts(source, system, files, "apt-sources", 1024 * 1024):
        res = apt_sources.parse(raw.text, file=f or None, radeon_hosts=RADEON_HOSTS)
        for e in res.entries:
            if not (e.radeon or _ROCMISH.search(e.uri or "") or _ROCMISH.search(posixpath.basename(f))):
                continue
            a = AptSource(file=f or None, line=e.line, uri=e.uri, suite=e.suite, components=list(e.components),
                          signed_by=e.signed_by, enabled=e.enabled, radeon=e.radeon, repo_kind=e.repo_kind,
                          release=e.release)
            a.sources["line"] = raw.source
            if e.radeon and e.enabled and not e.signed_by:
                a.note("no signed-by= option: apt trusts it only through a global keyring")
            r.apt_sources.append(a)
    pref_files = ["/etc/apt/preferences"]
    pref_files += ["/etc/apt/preferences.d/" + n for n in sh.listdir(source, "/etc/apt/preferences.d")]
    for f, raw in _file_texts(source, system, pref_files, "apt-prefs", 256 * 1024):
        for p in apt_prefs.parse(raw.text, file=f or None).pins:
            if not (p.mentions_radeon(RADEON_HOSTS) or _ROCMISH.search(p.package or "") or _ROCMISH.search(p.pin or "")):
                continue
            pin = AptPin(file=f or None, package=p.package, pin=p.pin, priority=p.priority)
            pin.sources["pin"] = raw.source
            r.apt_pins.append(pin)
    root = _command_root(source)
    if root is not None and not r.apt_sources and not r.apt_pins and not _apt_lists(root):
        # No package list at all: ``apt-cache policy`` could only repeat dpkg's status file (every
        # version it shows would be the installed one, from no archive), so its answer is known
        # without running it -- which, with no binary cache to read (container images), would
        # build one from dpkg's status file first: most of a live detection's time.
        if _apt_package_unpacked(source):
            r.put("distro_offers_rocm", False, "dir:%s (no package lists)" % APT_LISTS)
        return
    why_not = _skip_apt_policy(source, r)
    if why_not:
        r.note("apt-cache policy was not run: %s" % why_not)
        return
    for raw, res in sh.parsed(source, system, "apt-policy", _apt_policy_parse):
        offers = res.distro_offers_rocm(RADEON_HOSTS)
        if offers is not None:
            r.put("distro_offers_rocm", offers or r.distro_offers_rocm or False, raw.source)
        bad = res.candidates_from_other_archive(RADEON_HOSTS)
        if bad:
            r.note("apt would install %s from the distribution archive, not repo.radeon.com (%s)"
                   % (", ".join(sorted(bad)), raw.source))


# ``apt-cache policy`` answers from apt's binary cache (/var/cache/apt/pkgcache.bin) in a few
# milliseconds.  Without an up-to-date one -- container images turn it off (Dir::Cache::pkgcache "")
# and a user cannot rewrite root's stale one -- apt rebuilds it in memory from every package list
# on each run: a second or more, the slowest part of detection by far.  Its answer matters when
# ROCm is (to be) installed with apt: an AMD or ROCm apt source or pin, or one of the packages it
# asks about installed; then it always runs.  Otherwise it runs only when it is cheap.
APT_POLICY_PACKAGES: Tuple[str, ...] = tuple(sources_mod.KIND_COMMANDS["apt-policy"][0][2:])
APT_PKGCACHE = "/var/cache/apt/pkgcache.bin"
APT_LISTS = "/var/lib/apt/lists"
DPKG_STATUS = "/var/lib/dpkg/status"
DPKG_INFO = "/var/lib/dpkg/info"
_DPKG_ARCH_SUFFIXES = ("", ":amd64", ":arm64")  # info files of Multi-Arch: same packages carry the arch


def _command_root(source: Source) -> Optional[str]:
    """The root directory of the machine on which ``source`` runs commands, None when it runs none
    (a snapshot, a captured tree, a test's table of answers)."""
    inner = source.inner if isinstance(source, sources_mod.RecordingSource) else source
    if type(inner) is sources_mod.LiveSource and inner.commands:
        return inner.root or "/"
    return None


def _apt_package_unpacked(source: Source) -> bool:
    """Whether dpkg has one of :data:`APT_POLICY_PACKAGES` unpacked (its file list exists)."""
    return any(sh.exists(source, "%s/%s%s.list" % (DPKG_INFO, name, arch))
               for name in APT_POLICY_PACKAGES for arch in _DPKG_ARCH_SUFFIXES)


def _apt_lists(root: str = "/") -> List[str]:
    """The package lists apt has downloaded on the system at ``root`` (names in its lists folder)."""
    path = APT_LISTS if root in ("", "/") else os.path.join(root, APT_LISTS.lstrip("/"))
    try:
        return [n for n in os.listdir(path) if n not in ("lock", "partial", "auxfiles")]
    except OSError:
        return []


def apt_cache_is_cheap(root: str = "/") -> bool:
    """Whether ``apt-cache`` on the system at ``root`` answers without rebuilding its cache: there
    is no package list to build it from, or pkgcache.bin is at least as new as dpkg's status file
    and every package list (apt checks more, so a "yes" may still be slow now and then)."""
    def p(path: str) -> str:
        return path if root in ("", "/") else os.path.join(root, path.lstrip("/"))

    lists = _apt_lists(root)
    if not lists:
        return True
    try:
        cache = os.stat(p(APT_PKGCACHE)).st_mtime
        newest = os.stat(p(DPKG_STATUS)).st_mtime
        for name in lists:
            newest = max(newest, os.stat(os.path.join(p(APT_LISTS), name)).st_mtime)
    except OSError:
        return False
    return cache >= newest


def _skip_apt_policy(source: Source, r: RocmInfo) -> Optional[str]:
    """Why ``apt-cache policy`` is not worth its time on this system; None to run it."""
    root = _command_root(source)
    if root is None or r.apt_sources or r.apt_pins:
        return None  # recorded or pasted outputs cost nothing; with AMD's apt setup it always runs
    if _apt_package_unpacked(source) or apt_cache_is_cheap(root):
        return None
    return ("no ROCm apt source, pin or package is present and apt has no up-to-date package cache "
            "(it would take a second or more); whether the distribution offers ROCm is not known")


# ---------------------------------------------------------------------------------------------
# kernel driver


def _driver(source: Source, system: System, r: RocmInfo, found: List[Tuple[packages.Package, str]]) -> None:
    mods = None
    raw = sh.read_text(source, "/proc/modules", 4 * 1024 * 1024)
    if raw is not None:
        mods = (raw, lsmod.parse(raw.text))
    else:
        for raw2, res in sh.parsed(source, system, "lsmod", lsmod.parse):
            if res.modules or res.full_list:
                mods = (raw2, res)
                break
    if mods is not None:
        label, res = mods[0].source, mods[1]
        if res.amdgpu_loaded is not None:
            r.put("amdgpu_loaded", res.amdgpu_loaded, label)
        if res.dkms_build is True:
            r.note("the loaded amdgpu is AMD's DKMS build (amdkcl/amdttm modules present) (%s)" % label)
        elif res.dkms_build is False:
            r.note("the loaded amdgpu is the kernel's own driver (no amdkcl/amdttm modules) (%s)" % label)
    try:
        ver = source.read("/sys/module/amdgpu/version", 256)
    except Exception:
        ver = Raw(None, "file:/sys/module/amdgpu/version", "unreadable")
    if ver.text and ver.text.strip() and not ver.error:
        r.put("amdgpu_version", ver.text.strip(), ver.source)
        if r.amdgpu_loaded is None:
            r.put("amdgpu_loaded", True, ver.source)
    elif r.amdgpu_version is None and _pasted_amdgpu_version(source) is not None:
        v, label = _pasted_amdgpu_version(source)
        r.put("amdgpu_version", v, label)
    elif r.amdgpu_loaded and ver.error == "not found":
        r.note("amdgpu has no version file (/sys/module/amdgpu/version): the kernel's own driver")
    if r.amdgpu_loaded is None:
        loaded_modules = sh.listdir(source, "/sys/module")
        if loaded_modules:  # no /proc/modules (some sandboxes): the module directory tells
            r.put("amdgpu_loaded", "amdgpu" in loaded_modules, "dir:/sys/module")
    if r.amdgpu_loaded is None:
        for raw2, res2 in sh.parsed(source, system, "rocminfo", _rocminfo_parse):
            if res2.kfd_loaded:
                r.put("amdgpu_loaded", True, raw2.source + " (ROCk module is loaded)")
                break
    if r.amdgpu_loaded is None:
        for raw2, res3 in sh.parsed(source, system, "lspci", _lspci_parse):
            if any(d.driver == "amdgpu" for d in res3.devices):
                r.put("amdgpu_loaded", True, raw2.source + " (Kernel driver in use: amdgpu)")
                break
    if r.amdgpu_loaded is None:
        for raw2, res4 in sh.parsed(source, system, "lshw", sh.parse_lshw):
            if any(d.driver == "amdgpu" for d in res4.devices):
                r.put("amdgpu_loaded", True, raw2.source + " (driver=amdgpu)")
                break
    if r.amdgpu_loaded is None:
        r.note("whether amdgpu is loaded is unknown")
    lines = []
    label = None
    for raw2, res in sh.parsed(source, system, "dkms", _dkms_parse):
        for e in res.amdgpu:
            lines.append(e.line or "")
            label = label or raw2.source
    if lines:
        r.put("amdgpu_dkms", "; ".join(lines[:4]), label or "")
    else:
        for p, label in found:
            if p.installed and p.base_name == "amdgpu-dkms" and p.version:
                r.put("amdgpu_dkms", p.version, label)
                break


def _dpkg_audit(source: Source, system: System, r: RocmInfo) -> None:
    for raw in sh.outputs(source, system, "dpkg-audit"):
        if raw.error:
            continue
        text = (raw.text or "").strip()
        if raw.rc not in (None, 0) and not text:
            continue
        r.put("dpkg_audit_clean", not text, raw.source)
        if text:
            r.put("dpkg_audit", text[:4000], raw.source)
        return


# ---------------------------------------------------------------------------------------------
# tools


def _tools(source: Source, system: System, r: RocmInfo) -> None:
    for raw, res in sh.parsed(source, system, "rocminfo", _rocminfo_parse):
        r.put("hsa_runtime_version", res.runtime_version, raw.source, overwrite=False)
        r.put("kfd_version", res.kfd_version, raw.source, overwrite=False)
        if res.kfd_loaded is False:
            r.note("rocminfo: the KFD (ROCk) module is not loaded (%s)" % raw.source)
    for kind in ("amd-smi-version", "amd-smi"):
        for raw, res in sh.parsed(source, system, kind, _amd_smi_parse):
            r.put("smi_version", ("amd-smi " + res.tool_version) if res.tool_version else None, raw.source, overwrite=False)
            if res.amdgpu_version and re.fullmatch(r"\d+\.\d+(\.\d+)*", res.amdgpu_version.strip()):
                r.put("kfd_version", res.amdgpu_version.strip(), raw.source, overwrite=False)
    for raw, res in sh.parsed(source, system, "rocm-smi", _rocm_smi_parse):
        if res.smi_version:
            r.put("smi_version", "rocm-smi " + res.smi_version, raw.source, overwrite=False)
        if res.driver_version:
            r.note("rocm-smi reports driver version %s (%s)" % (res.driver_version, raw.source))


def _amd_smi_rocm(source: Source, system: System) -> Optional[Tuple[str, str]]:
    for kind in ("amd-smi-version", "amd-smi"):
        for raw, res in sh.parsed(source, system, kind, _amd_smi_parse):
            if res.rocm_version and re.match(r"^\d+\.\d+", res.rocm_version):
                return res.rocm_version, raw.source
    # the header of amd-smi's default view, wherever it was pasted
    for name, text in pastes(source):
        for _tool, _amdgpu, rocm in paste_facts.parse_cached(text).amd_smi_headers:
            if re.match(r"^\d+\.\d+(?:\.\d+)?$", rocm):
                return rocm, paste_label(name, "amd-smi header")
    return None


def _pasted_amdgpu_version(source: Source) -> Optional[Tuple[str, str]]:
    """The amdgpu driver's version as pasted: ``modinfo amdgpu``'s version line, ``cat
    /sys/module/amdgpu/version``, or amd-smi's header ('amdgpu version: 6.14.0-37')."""
    for name, text in pastes(source):
        facts = paste_facts.parse_cached(text)
        for v in facts.amdgpu_versions:
            return v, paste_label(name, "amdgpu module version")
        for _tool, amdgpu, _rocm in facts.amd_smi_headers:
            if re.match(r"^\d+\.\d+", amdgpu):
                return amdgpu, paste_label(name, "amd-smi header")
    return None


# a versioned ROCm tree named by a tool's own output line: clang's (hipcc --version) "Configuration
# file: /opt/rocm-6.1.3/lib/llvm/bin/clang++.cfg" / "InstalledDir: /opt/rocm-6.1.3/llvm/bin", and
# rocBLAS's "Cannot read /opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary.dat" (the tree it loaded)
# and hipconfig's "HIP_PATH           :/opt/rocm-6.3.2" / "ROCM_PATH          :/opt/rocm-6.3.2" (hipcc's
# hipBin_amd.h, printFull: the tree hipconfig itself belongs to)
_TOOL_TREE = lazy(r"^(?:Configuration file: |InstalledDir: |rocBLAS error: Cannot read |(?:HIP_PATH|ROCM_PATH) +:)"
                  r"/opt/rocm-(?P<ver>\d+\.\d+\.\d+)(?:/|\s*$)")


def _tool_tree_rocm(source: Source) -> Optional[Tuple[str, str]]:
    """The ROCm release of the versioned tree a tool's output line names (see ``_TOOL_TREE``); one
    release only: with several named, none is taken."""
    found: Dict[str, str] = {}
    for name, text in pastes(source):
        if "/opt/rocm-" not in text:
            continue
        for raw in text.split("\n"):
            line = raw.strip("`\t >\r")
            if "/opt/rocm-" in line and len(line) < 2000:
                m = _TOOL_TREE.match(line)
                if m:
                    found.setdefault(m.group("ver"), paste_label(name, line.split(":", 1)[0].split(" error")[0].strip() + " path"))
    return next(iter(found.items())) if len(found) == 1 else None


# RCCL's version banner, printed once at the first communicator's init with NCCL_DEBUG=VERSION or INFO (ROCm/rccl
# src/init.cc showVersion: "RCCL version : 2.22.3-HEAD:271856d", then VERSION_STRING_EXTENDED's "HIP version  : " and
# "ROCm version : " lines, then "Hostname     : " and "Librccl path : " -- the path dladdr gives for the library).
# ROCM_BUILD_INFO (src/include/hip_rocm_version_info.h, from rocm-core's rocm_version.h) is the ROCm release the
# library was *built* against, written "6.4.0.0-47-73dae9c": the host's release only where the library loaded is the
# one AMD's packages install under /opt/rocm (a torch wheel's bundled librccl in site-packages says the wheel's ROCm; a
# librccl built by hand, in /usr/local/lib, the tree it was built against, which is not known to be the one installed)
_RCCL_ROCM = lazy(r"^ROCm version : (?P<ver>\d+\.\d+\.\d+)(?:\.\d+)?(?:-\S*)?\s*$")
_RCCL_PATH = lazy(r"^Librccl path : (?P<path>\S+)\s*$")
_RCCL_HIP = lazy(r"^HIP version  : (?P<ver>\d+\.\d+\.\d{3,6}(?:-[0-9A-Za-z]+)?)\s*$")


def _rccl_banner_rocm(source: Source) -> Optional[Tuple[str, str, Optional[str]]]:
    """The ROCm release RCCL's version banner names, where the library it names was loaded from /opt/rocm or
    /opt/rocm-X (see ``_RCCL_ROCM``), with the banner's HIP version (the HIP that library was built against:
    the release's own for AMD's packages); one release only: banners naming several give none."""
    found: Dict[str, Tuple[str, Optional[str]]] = {}
    for name, text in pastes(source):
        if "Librccl path : " not in text or "ROCm version : " not in text or "RCCL version : " not in text:
            continue
        lines = text.split("\n")
        for i, raw in enumerate(lines):
            if not raw.startswith("ROCm version : "):
                continue
            m = _RCCL_ROCM.match(raw)
            if not m or not any("RCCL version : " in lines[j] for j in range(max(0, i - 2), i)):
                continue
            path = next((p.group("path") for p in (_RCCL_PATH.match(lines[j]) for j in range(i + 1, min(len(lines), i + 4)))
                         if p), None)
            if path is None or not re.match(r"^/opt/rocm(?:-\d+\.\d+(?:\.\d+)?)?/lib(?:64)?/librccl\.so", path):
                continue
            hip = _RCCL_HIP.match(lines[i - 1]) if i else None
            found.setdefault(m.group("ver"), (paste_label(name, "RCCL version banner (%s)" % path),
                                              hip.group("ver") if hip else None))
    if len(found) != 1:
        return None
    ver, (label, hip) = next(iter(found.items()))
    return ver, label, hip


def _path_rocm(source: Source, r: RocmInfo) -> Optional[Tuple[str, str]]:
    """(s14-detect) The ROCm release a paste's install paths name (``/opt/rocm-6.4.0/bin/amdclang``, an
    ``ldd`` line, a traceback frame, ``LD_LIBRARY_PATH``): one release named, or the one a shown link
    ``rocm -> /opt/rocm-X`` names among several (``parsers/install_paths.py``).  Several and no link:
    none, with a note (a path shows a tree installed, not the one in use)."""
    texts = [(name, text) for name, text in pastes(source) if "/rocm" in text]
    if not texts:
        return None
    from ..parsers import install_paths

    ver, names, linked = install_paths.rocm_release([t for _n, t in texts])
    folders = [install_paths.tree_folder([t for _n, t in texts], v) for v in names]
    if ver is None:
        if len(names) > 1:
            r.note("the pastes' paths name several ROCm trees (%s) and no /opt/rocm link says which one is in use; "
                   "none taken as the host's release" % ", ".join(folders))
        return None
    folder = folders[names.index(ver)]
    name = next((n for n, t in texts if folder in t), texts[0][0])
    how = "rocm -> /opt/rocm-%s link" % ver if ver in linked else "install path %s" % folder
    if len(names) > 1:
        r.note("the pastes' paths name several ROCm trees (%s); /opt/rocm is shown linked to /opt/rocm-%s"
               % (", ".join(folders), ver))
    return ver, paste_label(name, how)


def _form_rocm(source: Source) -> Optional[Tuple[str, str]]:
    """The ROCm release an issue form names ("### ROCm Version" / "ROCm version: 7.2.2"): a version
    of a known ROCm series only (a driver version such as 6.12.12 in that field is no ROCm release)."""
    for name, text in pastes(source):
        for value in issue_form.parse_cached(text).rocm:
            v = issue_form.rocm_version(value)
            if v:
                from ...catalog import releases as _releases  # only with a candidate: it loads packaging

                if _releases.series_of(v) in set(_releases.all_series()):
                    return v, paste_label(name, "issue form: ROCm Version")
    return None


# ---------------------------------------------------------------------------------------------


def _package_streams(r: RocmInfo, pkgs: List[packages.Package], labels: Dict[int, str]) -> List[str]:
    """The streams installed packages belong to; the Core SDK's gfx packages; notes on each stream."""
    found: Dict[str, List[packages.Package]] = {}
    for p in pkgs:
        if p.installed:
            st = packages.stream_of_package(p)
            if st:
                found.setdefault(st, []).append(p)
    core = found.get("core-sdk", [])
    for p in core:
        n = packages.core_sdk_name(p.name)
        if n is not None and n.gfx and n.gfx not in r.package_gfx:
            r.package_gfx.append(n.gfx)
            r.sources.setdefault("package_gfx", labels.get(id(p), "packages"))
    if core:
        lines = sorted({n.stream for n in (packages.core_sdk_name(p.name) for p in core) if n and n.stream},
                       key=streams.version_key)
        if len(lines) > 1:
            r.note("several Core SDK streams installed side by side: %s" % ", ".join(lines))
    return [st for st in ("legacy", "core-sdk", "distro") if st in found]


def _version(source: Source, system: System, r: RocmInfo, found: List[Tuple[packages.Package, str]]) -> None:
    pkgs = [p for p, _l in found]
    labels = {id(p): l for p, l in found}
    active = next((i for i in r.installs if i.active), None)
    if active is None and r.opt_rocm_target:
        active = next((i for i in r.installs if i.path == r.opt_rocm_target), None)
    if active is None and r.opt_rocm_target is None and r.installs and r.installs[0].path == "/opt/rocm":
        active = r.installs[0]
    versioned = [i for i in r.installs if i.version]
    chosen = None
    if active is not None and active.version:
        chosen = active
    elif len(versioned) == 1:
        chosen = versioned[0]
    elif len(versioned) > 1:
        chosen = max(versioned, key=lambda i: streams.version_key(i.version))
        r.note("several ROCm releases installed (%s) and neither /opt/rocm nor /opt/rocm/core points to one of "
               "them; took the newest" % ", ".join(i.version or "?" for i in versioned))
    if chosen is not None:
        r.put("version", chosen.version, chosen.sources.get("version", "file:%s/.info/version" % chosen.path))
        r.put("stream", chosen.stream, chosen.sources.get("stream", chosen.sources.get("version", "")))
        r.put("hip_version", chosen.hip_version, chosen.sources.get("hip_version", ""))
    if len(versioned) > 1 and active is not None:
        r.note("several ROCm releases installed: %s; active: %s"
               % (", ".join("%s (%s)" % (i.version, i.path) for i in versioned), active.path))
    rel = packages.rocm_release(pkgs)
    releases = packages.releases(pkgs)
    core = _core_sdk_release(pkgs)
    pkg_streams = _package_streams(r, pkgs, labels)
    # the newest of the AMD streams' packages: a Core SDK release (7.14, 10.x) is never older than a legacy one
    cands = [(pair[0], pair[1], st) for pair, st in ((core, "core-sdk"), (rel, "legacy")) if pair is not None]
    if cands:
        v, p, st = max(cands, key=lambda c: streams.version_key(c[0]))
        label = labels.get(id(p), "packages")
        if r.version is None:
            r.put("version", v, "%s (%s %s)" % (label, p.name, p.version))
            r.put("stream", st, "%s (%s)" % (label, p.name))
        elif v != r.version and not any(v == i.version for i in r.installs):
            r.note("packages say ROCm %s (%s %s) but the installed tree says %s"
                   % (v, p.name, p.version, r.version))
    if len(releases) > 1:
        r.note("several ROCm releases installed side by side: %s" % ", ".join(releases))
    d = _distro_release(pkgs)
    if d is not None:
        label = labels.get(id(d[1]), "packages")
        if r.version is None:
            r.put("version", d[0], "%s (%s %s)" % (label, d[1].name, d[1].version))
            r.put("stream", "distro", "%s (%s)" % (label, d[1].name))
        inst = next((i for i in r.installs if i.stream == "distro"), None)
        if inst is None:
            inst = RocmInstall(path="/usr")
            inst.put("stream", "distro", label)
            r.installs.append(inst)
        inst.put("version", d[0], "%s (%s %s)" % (label, d[1].name, d[1].version), overwrite=False)
        r.note("ROCm %s comes from the distribution's own packages (%s %s, in /usr), not from AMD's repositories"
               % (d[0], d[1].name, d[1].version))
    for raw, res in sh.parsed(source, system, "hipconfig", sh.tool_parser("hipconfig")):
        if res.full:
            r.put("hip_version", res.full, raw.source, overwrite=False)
    banner = _rccl_banner_rocm(source)
    if banner is not None and banner[2] is not None and r.hip_version is None:
        r.put("hip_version", banner[2], banner[1])
    smi = _amd_smi_rocm(source, system)
    if smi is not None:
        if r.version is None:
            r.put("version", smi[0], smi[1])
        elif not smi[0].startswith(r.version) and not r.version.startswith(smi[0]):
            r.note("amd-smi says ROCm %s (%s), detected %s" % (smi[0], smi[1], r.version))
    if r.version is None:
        tree = _tool_tree_rocm(source)
        if tree is not None:
            r.put("version", tree[0], tree[1])
            form = _form_rocm(source)
            if form is not None and form[0] != tree[0]:
                r.note("the issue form says ROCm %s (%s), but a tool's output names the tree /opt/rocm-%s (%s)"
                       % (form[0], form[1], tree[0], tree[1]))
    if r.version is None and banner is not None:
        r.put("version", banner[0], banner[1])
    if r.version is None:
        tree = _path_rocm(source, r)
        if tree is not None:
            r.put("version", tree[0], tree[1])
            r.note("ROCm %s is read from an install path a paste shows (%s): a tree of that release is installed; "
                   "no package tool or release file says it is the one in use" % tree)
            form = _form_rocm(source)
            if form is not None and form[0] != tree[0]:
                r.note("the issue form says ROCm %s (%s), but a paste's path names the tree /opt/rocm-%s (%s)"
                       % (form[0], form[1], tree[0], tree[1]))
    if r.version is None:
        form = _form_rocm(source)
        if form is not None:
            r.put("version", form[0], form[1])
            r.note("the ROCm release %s is only what the issue form says (%s); no output shows it" % form)
    if r.version is not None and r.stream is None:
        of = streams.stream_of(r.version)
        r.put("stream", of.stream if of else None, r.sources.get("version", ""))
    present = {i.stream for i in r.installs} | set(pkg_streams) | {r.stream}
    r.streams[:] = [st for st in streams.STREAMS if st in present]
    if r.streams:
        r.sources.setdefault("streams", "installs and packages")
    if r.version is None:
        r.note("no host ROCm release found (no /opt/rocm*/.info/version, no ROCm packages, no amd-smi)")
    if r.hip_version and r.version and r.hip_version.split(".")[:2] != r.version.split(".")[:2]:
        r.note("HIP %s is versioned apart from the ROCm release %s" % (r.hip_version, r.version))


def probe(source: Source, system: System) -> None:
    r = system.rocm
    jobs = (
        ("installs", _installs, (source, r)),
        ("packages", _packages, (source, system, r)),
        ("apt", _apt, (source, system, r)),
        ("audit", _dpkg_audit, (source, system, r)),
        ("tools", _tools, (source, system, r)),
        # started now with the others; _driver below reads it once these jobs are done
        ("dkms", sh.outputs, (source, system, "dkms")),
    )
    results: Dict[str, Any] = {}
    # in one thread when the live commands were started ahead (_jobs.in_parallel), but the apt job
    # aside: it may run ``apt-cache policy``, which no one started ahead (it depends on the files)
    aside = [i for i, job in enumerate(jobs) if job[0] == "apt"] if getattr(source, "prestarted", False) is True else []
    done = run_jobs([(fn, args) for _name, fn, args in jobs], in_parallel(source), aside)
    for (name, _fn, _args), (ok, value) in zip(jobs, done):
        if ok:
            results[name] = value
        else:  # pragma: no cover - defensive
            r.note("ROCm detection step '%s' failed: %s: %s" % (name, type(value).__name__, value))
    try:
        _pasted_installs(source, system, r)
    except Exception as exc:  # pragma: no cover - defensive
        r.note("reading a pasted ROCm release file failed: %s: %s" % (type(exc).__name__, exc))
    try:
        _driver(source, system, r, results.get("packages") or [])  # after packages: falls back to the amdgpu-dkms package version
    except Exception as exc:  # pragma: no cover - defensive
        r.note("amdgpu driver detection failed: %s: %s" % (type(exc).__name__, exc))
    try:
        _version(source, system, r, results.get("packages") or [])
    except Exception as exc:  # pragma: no cover - defensive
        r.note("ROCm release detection failed: %s: %s" % (type(exc).__name__, exc))
    if r.hsa_runtime_version is None:
        r.note("HSA runtime version unknown (no rocminfo output)")
