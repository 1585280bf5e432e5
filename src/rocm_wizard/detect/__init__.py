"""Detection: describe a system (live, a captured tree, or a snapshot / pasted outputs) as a
:class:`~rocm_wizard.model.System`, without importing torch and without touching the system
beyond reading files and running a few read-only tools with timeouts.

:func:`detect` runs the probe modules (``rocm_wizard.detect.probes.<name>``, each with
``probe(source, system)``) concurrently on a live system (one after the other for a snapshot,
whose probes only parse text: see :mod:`._jobs`); each fills its own part of the System.  A probe that
fails becomes a note on the System, never a traceback; a probe module that is not part of this
build is skipped.  A short merge pass then combines what needs several parts (GPU names from a
collect_env paste when no GPU tool spoke, Docker permission from group membership, the
distribution from package version suffixes...).
"""
from __future__ import annotations

import os

import importlib
import re
from typing import Callable, Dict, List, Optional, Sequence

from ..catalog import ubuntu
from ..model import GPU, System
from .parsers._core_text import lazy
from .sources import LiveSource, Source

PROBES = ("os", "gpus", "rocm", "python", "docker", "access", "errors")
WAITS = ("docker",)  # probes that may wait on something no command started ahead (live_start)

__all__ = ["PROBES", "detect", "detect_live", "detect_snapshot", "finish", "new_system", "run_probe", "venvs_for"]


def _load_probe(name: str) -> Optional[Callable]:
    module = "rocm_wizard.detect.probes." + name
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise
    return getattr(mod, "probe", None)


def venvs_for(source: Source, venvs: Sequence[str] = ()) -> List[str]:
    """The venvs to look at: those asked for, else the ``--venv`` paths a snapshot recorded."""
    if venvs:
        return [str(v) for v in venvs]
    manifest = getattr(source, "manifest", None) or {}
    recorded = manifest.get("venvs") if isinstance(manifest, dict) else None
    return [str(v) for v in recorded if isinstance(v, str)] if isinstance(recorded, list) else []


def new_system(source: Source) -> System:
    return System(origin="live" if getattr(source, "kind", "live") == "live" else "snapshot")


def run_probe(name: str, source: Source, system: System, venvs: Sequence[str] = ()) -> bool:
    """Run one probe module against ``source`` (it fills its own part of ``system``).

    Returns False when the probe is not part of this build.  A probe that fails raises; callers
    that show probes one by one (the TUI) catch it and note it, as :func:`detect` does."""
    fn = _load_probe(name)
    if fn is None:
        return False
    if name == "python":
        fn(source, system, venvs=tuple(venvs))
    else:
        fn(source, system)
    return True


def probe_failed(system: System, name: str, exc: BaseException) -> None:
    system.note("the %s probe failed (%s: %s); that part of the report is incomplete" % (name, type(exc).__name__, exc))


def finish(source: Source, system: System) -> System:
    """The merge pass once every probe ran, plus what the source itself had to say."""
    try:
        merge(source, system)
    except Exception as exc:
        system.note("merging the probes' results failed (%s: %s)" % (type(exc).__name__, exc))
    for note in getattr(source, "notes", []) or []:
        system.note(note)
    return system


def detect(source: Source, venvs: Sequence[str] = ()) -> System:
    """Run every available probe against ``source`` and return the merged System."""
    from ._jobs import in_parallel, run_jobs

    system = new_system(source)
    venvs = venvs_for(source, venvs)
    names = list(PROBES)
    # one thread, the probes in turn, when the commands were started ahead; the docker probe still
    # gets its own (it asks the daemon, and only then runs ``docker images``)
    aside = [names.index(n) for n in WAITS if n in names] if getattr(source, "prestarted", False) is True else []
    try:
        results = run_jobs([(run_probe, (name, source, system, venvs)) for name in names], in_parallel(source), aside)
        for name, (ok, value) in zip(names, results):
            if not ok:  # a probe bug must not cost the user the whole report
                probe_failed(system, name, value)
        return finish(source, system)
    finally:
        from . import _forked

        _forked.drop()  # (the recogniser's worker, where one is still held: only the probes ask it)


def detect_live(venvs: Sequence[str] = (), root: str = "/") -> System:
    """Detect the running system (``root`` re-bases file access; commands only run for ``/``).

    Run as root through sudo, pkexec or doas, the venvs in the invoking user's home and in the
    working directory are looked at too, listed as that user (:mod:`rocm_wizard.invoker`); the
    report's notes say so, and files read in them must be that user's (LiveSource's guard)."""
    extra: List[str] = []
    note = None
    if root in ("", "/"):
        extra, note = invoker_venvs()
    source = LiveSource(root=root, commands=root in ("", "/"), guard_venvs=extra)
    if note:
        source.notes.append(note)
    asked = [str(v) for v in venvs]
    if root in ("", "/"):  # the commands every detection runs, all at once (and the probes in turn)
        from . import live_start

        source.prestart(live_start.commands_for(source._environ))
    try:
        return detect(source, asked + [v for v in extra if v not in asked] if extra else venvs)
    finally:
        source.close()


def invoker_venvs(environ=None, euid=None, cwd=None, run=None, by_name=None, by_uid=None):
    """(venvs of the user who ran this root process through sudo/pkexec/doas, the note that says
    where they were looked for); ([], None) when not run that way."""
    from .. import invoker

    kw = {}
    if by_name is not None:
        kw["by_name"] = by_name
    if by_uid is not None:
        kw["by_uid"] = by_uid
    inv = invoker.invoking_user(environ, euid, **kw)
    if inv is None:
        return [], None
    if cwd is None:
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = None
    found = invoker.find_venvs(inv, cwd, run)
    return found, invoker.note(inv, found)


def detect_snapshot(path: str, venvs: Sequence[str] = ()) -> System:
    """Detect from a snapshot bundle (``.tar.gz``) or a folder / file of pasted outputs.

    Raises :class:`rocm_wizard.detect.bundle.SnapshotError` (message for the user) when ``path``
    cannot be read at all.  The ``--venv`` paths given when the snapshot was taken are reused.
    """
    from . import bundle

    return detect(bundle.open_snapshot(path), venvs)


# -- merge pass -------------------------------------------------------------------------------------

def merge(source: Source, system: System) -> None:
    _gpus_from_collect_env(source, system)
    _docker_permission(system)
    _os_from_packages(source, system)
    _os_from_apt_lines(source, system)
    _os_from_rpm_lines(source, system)
    _os_from_kernel_release(system)
    _hwe_from_packages(system)
    _kernel_from_smi(source, system)
    _cpu_from_rocminfo(source, system)
    from . import wsl_facts  # the WSL stack: /dev/dxg, DXCore, the WSL user space, the Windows side

    wsl_facts.merge(source, system)
    from . import windows_facts  # a native Windows host (after WSL's reading: WSL stays WSL)

    windows_facts.merge(source, system)


def _kernel_from_smi(source: Source, system: System) -> None:
    """rocm-smi's "Driver version" is /sys/module/amdgpu/version, or ``uname -r`` when that file is
    missing, i.e. for the in-tree driver (ROCm/rocm_smi_lib src/rocm_smi.cc, rsmi_version_str_get).
    Used only when nothing else names the kernel and no DKMS driver version is known."""
    info, rocm = system.os, system.rocm
    if info.kernel is not None or rocm.amdgpu_version or rocm.amdgpu_dkms or rocm.kfd_version:
        return
    if any("dkms" in name for name in rocm.packages):
        return
    try:
        from .probes._core_util import ok_outputs
    except ImportError:
        return
    for raw in ok_outputs(source, "rocm-smi"):
        try:
            from .parsers import rocm_smi as p_smi  # (only where rocm-smi printed something)
            from .parsers.uname import flavour

            version = p_smi.parse(raw.text).driver_version
        except Exception:
            continue
        if not version or not re.match(r"^\d+\.\d+\.\d+(?:-\S+)?$", version) or version.count(".") > 2:
            continue
        label = raw.source + "#Driver version"
        info.put("kernel", version, label)
        info.put("kernel_flavour", flavour(version), label)
        info.note("kernel %s taken from rocm-smi's driver version, which is the kernel release when amdgpu "
                  "is the in-tree driver (no DKMS driver version was seen)" % version)
        return


def _cpu_from_rocminfo(source: Source, system: System) -> None:
    """rocminfo's CPU agent names the CPU (used when /proc/cpuinfo and collect_env did not)."""
    if system.os.cpu is not None:
        return
    try:
        from .probes._core_util import ok_outputs
    except ImportError:
        return
    for raw in ok_outputs(source, "rocminfo"):
        try:
            from .parsers import rocminfo as p_rocminfo  # (only where rocminfo printed something)

            agents = p_rocminfo.parse(raw.text).agents
        except Exception:
            continue
        for agent in agents:
            if (agent.device_type or "").upper() == "CPU" and (agent.marketing_name or agent.name):
                system.os.put("cpu", (agent.marketing_name or agent.name).strip(), raw.source + "#CPU agent")
                return


def _gpus_from_collect_env(source: Source, system: System) -> None:
    """collect_env names the current GPU and its gfx target; use it when no GPU tool did."""
    if system.amd_gpus:
        # fill a missing gfx target only when exactly one AMD GPU is known and it matches by name
        return
    from .parsers import collect_env as p_collect_env
    from .probes._core_util import ok_outputs

    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        for g in ce.gpus:
            if not g.name or not re.search(r"\b(AMD|Radeon|Instinct)\b", g.name, re.I):
                continue
            if any(x.name == g.name and x.gfx_target == g.gfx_target for x in system.gpus):
                continue
            gpu = GPU(vendor_id="1002", is_amd=True)
            label = raw.source + "#GPU models and configuration"
            gpu.put("name", g.name, label)
            gpu.put("gfx_target", g.gfx_target, label)
            gpu.note("from PyTorch's collect_env, which names only the current device: other GPUs may exist")
            system.gpus.append(gpu)


def _docker_permission(system: System) -> None:
    d = system.docker
    if d.user_allowed is not None or d.client is None:
        return
    a = system.access
    if a.groups:
        allowed = "docker" in a.groups or "root" in a.groups or a.user == "root"
        d.put("user_allowed", allowed, "access:groups")


_UBUNTU_SUFFIX = lazy(r"~(\d\d\.\d\d)(?:\.\d+)?$")
_APT_SUITE = lazy(r"^\S+/(?P<suite>[a-z]+)(?:-[a-z]+)?,\S*\s+\S*~(?P<ver>\d\d\.\d\d)\b", re.M)


def _os_from_packages(source: Source, system: System) -> None:
    """No os-release anywhere: AMD's Ubuntu packages end in ``~22.04`` / ``~24.04``."""
    info = system.os
    if info.id is not None:
        return
    votes: Dict[str, int] = {}
    for version in system.rocm.packages.values():
        m = _UBUNTU_SUFFIX.search(version or "")
        if m:
            votes[m.group(1)] = votes.get(m.group(1), 0) + 1
    label = "inferred:package versions (~%s suffix)"
    codename = None
    if not votes:
        from .probes._core_util import pastes

        for _name, text in pastes(source):
            for m in _APT_SUITE.finditer(text):
                votes[m.group("ver")] = votes.get(m.group("ver"), 0) + 1
                if ubuntu.version_of(m.group("suite")) == m.group("ver"):
                    codename = m.group("suite")
            if not votes:
                for line in text.splitlines():
                    toks = line.split()
                    if len(toks) >= 3 and toks[0] in ("ii", "hi", "rc", "iU", "iF") and _UBUNTU_SUFFIX.search(toks[2]):
                        v = _UBUNTU_SUFFIX.search(toks[2]).group(1)
                        votes[v] = votes.get(v, 0) + 1
    if not votes:
        return
    version = max(votes, key=lambda v: votes[v])
    src = label % version
    info.put("id", "ubuntu", src)
    info.put("version_id", version, src)
    code = codename or ubuntu.codename(version)
    info.put("codename", code, src)
    info.note("the distribution was inferred from AMD package versions (no os-release in the outputs)")


# apt's progress lines name the distribution's own archive and suite, in any locale's first word
# (apt-pkg/acquire-worker.cc, cmdline's "Hit:%lu %s" / "Get:" / "Ign:" / "Err:"):
# "Hit:2 http://deb.debian.org/debian trixie InRelease", "Get:1 http://archive.ubuntu.com/ubuntu noble InRelease"
_APT_ARCHIVE = lazy(r"^\S{1,24}:\d{1,4}\s+https?://(?P<host>[\w.-]{1,80})/(?P<path>debian|debian-security|ubuntu|ubuntu-ports)/?"
                    r"\s+(?P<suite>[a-z]{3,20})(?:-[a-z]{3,20})?[/\s]", re.M)
# the distributions' own archive hosts (a third-party repository's path may say debian or ubuntu too)
_APT_HOSTS = {"debian": "debian.org", "ubuntu": "ubuntu.com"}


def _os_from_apt_lines(source: Source, system: System) -> None:
    """No os-release and no package versions: apt's lines for the distribution's own archive name
    it and its release (a Debian host that added AMD's Ubuntu repositories is still Debian)."""
    info = system.os
    if info.id is not None:
        return
    from .probes._core_util import pastes

    votes: Dict[tuple, int] = {}
    for _name, text in pastes(source):
        if "http" not in text:
            continue
        for m in _APT_ARCHIVE.finditer(text):
            distro = "debian" if m.group("path").startswith("debian") else "ubuntu"
            host, domain = m.group("host").lower(), _APT_HOSTS[distro]
            if host == domain or host.endswith("." + domain):
                key = (distro, m.group("suite"))
                votes[key] = votes.get(key, 0) + 1
    if not votes or len({d for d, _s in votes}) != 1:
        return  # nothing, or both distributions' archives: no answer
    distro, suite = max(votes, key=lambda k: votes[k])
    src = "inferred:apt lines (%s archive, suite %s)" % (distro, suite)
    info.put("id", distro, src)
    version = ubuntu.version_of(suite, distro)
    if version:
        info.put("version_id", version, src)
        info.put("codename", suite, src)
    info.note("the distribution was inferred from apt's lines for its own archive (no os-release in the outputs)")


# dnf names each repository as the distribution's .repo files do ("Fedora 43 - x86_64 - Updates",
# "Rocky Linux 9 - BaseOS", "AlmaLinux 9 - AppStream", "CentOS Stream 9 - BaseOS",
# "Red Hat Enterprise Linux 9 for x86_64 - BaseOS (RPMs)"), at the start of its metadata lines
_DNF_REPO = lazy(r"^(?P<name>Fedora|Rocky Linux|AlmaLinux|CentOS Stream|Oracle Linux Server|Red Hat Enterprise Linux) "
                 r"(?P<ver>\d{1,2}(?:\.\d{1,2})?) (?:-|for \w{3,8} -) [A-Za-z]", re.M)
_DNF_IDS = {"Fedora": "fedora", "Rocky Linux": "rocky", "AlmaLinux": "almalinux", "CentOS Stream": "centos",
            "Oracle Linux Server": "ol", "Red Hat Enterprise Linux": "rhel"}
# Fedora's dist tag on an rpm's release ("rocminfo-5.7.0-1.fc39.x86_64", "5.7.0-1.fc39  @fedora"): only
# Fedora (and builds for it) carry .fcNN; AMD's own rpms carry .elN, which names no distribution
# zypper refreshes the SUSE Customer Center service of the installed product:
# "Refreshing service 'SUSE_Linux_Enterprise_Server_15_SP4_x86_64'." (os-release: ID=sles, VERSION_ID=15.4)
_SLE_SERVICE = lazy(r"Refreshing service 'SUSE_Linux_Enterprise_(?P<product>Server|Desktop)_(?P<major>\d{2})(?:_SP(?P<sp>\d{1,2}))?_\w{3,8}'")
_SLE_IDS = {"Server": "sles", "Desktop": "sled"}
_FEDORA_TAG = lazy(r"[0-9][\w.~^+]{0,40}\.fc(?P<ver>\d{2})(?:\.(?:x86_64|noarch|aarch64|i686)\b|\s)")


def _os_from_rpm_lines(source: Source, system: System) -> None:
    """No os-release: dnf's repository names or zypper's SUSE product service (distribution and
    release), else Fedora's .fcNN release tags on the packages dnf or rpm lists (the release of the
    system they were installed on)."""
    info = system.os
    if info.id is not None:
        return
    from .probes._core_util import pastes

    named: Dict[tuple, int] = {}
    tags: Dict[str, int] = {}
    for _name, text in pastes(source):
        if " - " in text:
            for m in _DNF_REPO.finditer(text):
                key = (_DNF_IDS[m.group("name")], m.group("ver"))
                named[key] = named.get(key, 0) + 1
        if "Refreshing service 'SUSE_" in text:
            for m in _SLE_SERVICE.finditer(text):
                key = (_SLE_IDS[m.group("product")], "%s.%s" % (m.group("major"), m.group("sp") or "0"))
                named[key] = named.get(key, 0) + 1
        if ".fc" in text:
            for m in _FEDORA_TAG.finditer(text):
                tags[m.group("ver")] = tags.get(m.group("ver"), 0) + 1
    if named:
        if len({d for d, _v in named}) != 1:
            return  # repositories of two distributions: no answer
        os_id, version = max(named, key=lambda k: named[k])
        src = "inferred:dnf/zypper repository names (%s %s)" % (os_id, version)
    elif tags and len(tags) == 1:  # (kernels or packages of two Fedora releases: no answer)
        os_id, version = "fedora", next(iter(tags))
        src = "inferred:rpm release tags (.fc%s)" % version
    else:
        return
    info.put("id", os_id, src)
    info.put("version_id", version, src)
    info.note("the distribution was inferred from dnf/rpm lines (no os-release in the outputs)")


# distribution kernels name their distribution in the release string: Fedora's dist tag
# (6.9.8-200.fc40.x86_64), Debian's ABI suffix since Debian 13 (6.12.48+deb13-amd64), Arch's
# (6.17.9-arch1-1), CachyOS's (6.17.9-2-cachyos) and Manjaro's (6.6.54-1-MANJARO); an EL (.el9) or
# SUSE (-default) kernel is shared by several distributions and names none
_KERNEL_DISTRO = (
    (lazy(r"\.fc(?P<ver>\d{2})(?:\.|$)"), "fedora"),
    (lazy(r"\+deb(?P<ver>\d{2})(?:u\d+)?-"), "debian"),
    (lazy(r"-arch\d+-\d+$"), "arch"),
    (lazy(r"-cachyos(?:-\w+)?$"), "cachyos"),
    (lazy(r"-MANJARO$"), "manjaro"),
)


def _os_from_kernel_release(system: System) -> None:
    """No os-release, package or repository lines: the distribution a distribution kernel's release names."""
    info = system.os
    if info.id is not None or not info.kernel:
        return
    for rx, distro in _KERNEL_DISTRO:
        m = rx.search(info.kernel)
        if m:
            src = "inferred:kernel release %s" % info.kernel
            info.put("id", distro, src)
            version = m.groupdict().get("ver")
            if version:
                info.put("version_id", version, src)
            info.note("the distribution was inferred from its kernel's release string (no os-release in the outputs)")
            return


def _hwe_from_packages(system: System) -> None:
    info = system.os
    if info.id != "ubuntu" or info.hwe:
        return
    for name in system.rocm.packages:
        if name.startswith("linux-generic-hwe-") or name.startswith("linux-image-generic-hwe-"):
            info.put("hwe", True, "package:" + name)
            return
