"""OS probe: distribution, kernel (+ flavour, Ubuntu HWE), WSL, container, architecture, CPU model,
system Python.

Sources, best first: the files of the described system (``/etc/os-release``,
``/usr/lib/os-release``, ``/etc/system-release``, ``/proc/sys/kernel/osrelease``,
``/proc/sys/kernel/arch``, ``/proc/cpuinfo``), then pasted or recorded outputs (``uname``,
os-release texts, collect_env's ``OS`` / ``Python platform`` lines, dmesg's boot line).  When
outputs disagree (a paste taken before and after a kernel update), the kernel named by most of
them wins.
"""
from __future__ import annotations

import posixpath
import re
from typing import Dict, List, Optional, Tuple

from ...model import OSInfo, System
from ..parsers import collect_env as p_collect_env
from ..parsers import os_release as p_os_release
from ..parsers import uname as p_uname
from ..parsers._core_text import lazy, lazy_module
from ..sources import Source
from ._core_util import env, fallback_pastes, ok_outputs, paste_label, pastes, read_text, readlink_or_none, stat, vote

# the WSL parser reads pasted texts only (WSL itself is told by the kernel release and files): a live
# detection, with none, does not import it
p_wsl = lazy_module("rocm_wizard.detect.parsers.wsl")
p_dmesg = lazy_module("rocm_wizard.detect.parsers.dmesg")  # a kernel log given as such (a paste, a snapshot)

p_issue_form = lazy_module("rocm_wizard.detect.parsers.issue_form")  # pasted text only
p_paste_facts = lazy_module("rocm_wizard.detect.parsers.paste_facts")  # pasted text only

# kernel flavours that are separate tracks, neither GA nor HWE
_VENDOR_TRACKS = ("oem", "azure", "aws", "gcp", "gke", "oracle", "ibm", "nvidia", "raspi", "kvm", "intel", "realtime")

OS_RELEASE_FILES = ("/etc/os-release", "/usr/lib/os-release")
RELEASE_FILES = ("/etc/system-release", "/etc/redhat-release")
ARCH_FILE = "/proc/sys/kernel/arch"
KERNEL_FILE = "/proc/sys/kernel/osrelease"
# UEFI's SecureBoot variable (EFI global variable GUID): 4 bytes of attributes, then 1 (on) or 0 (off)
SECURE_BOOT_VAR = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
WSL_INTEROP = ("/proc/sys/fs/binfmt_misc/WSLInterop", "/proc/sys/fs/binfmt_misc/WSLInterop-late")


def probe(source: Source, system: System) -> None:
    info = system.os
    _distribution(source, info)
    _kernel(source, info)
    _arch(source, info)
    _wsl(source, info)
    _container(source, info)
    _cpu(source, info)
    _python(source, info)
    _hwe(source, info)
    _secure_boot(source, info)


# -- distribution ------------------------------------------------------------------------------

def _distribution(source: Source, info: OSInfo) -> None:
    found: List[Tuple[p_os_release.OsRelease, str]] = []
    for path in OS_RELEASE_FILES:
        raw = read_text(source, path)
        if raw is not None:
            rel = p_os_release.parse(raw.text)
            if rel.ok:
                found.append((rel, raw.source))
                break
    for path in RELEASE_FILES:
        raw = read_text(source, path)
        if raw is not None:
            rel = p_os_release.parse(raw.text)
            if rel.ok:
                found.append((rel, raw.source))
                break
    pasted = ok_outputs(source, "os-release")
    for raw in pasted:
        rel = p_os_release.parse(raw.text)
        if rel.ok:
            found.append((rel, raw.source))
    if not any(r.id for r, _ in found):
        for raw in fallback_pastes(source, p_os_release.looks_like, "os-release", 0.6):
            rel = p_os_release.parse(raw.text)
            if rel.ok:
                found.append((rel, raw.source))
    # collect_env's OS line describes where torch ran (possibly a container): last resort
    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        if ce.os:
            rel = p_os_release.from_pretty(ce.os)
            if rel.ok:
                found.append((rel, raw.source + "#OS"))
    if not any(r.id for r, _ in found):
        found += _distribution_from_lines(source)
    best = next(((r, s) for r, s in found if r.id), None)
    if best is None:
        if found:
            info.put("pretty_name", found[0][0].pretty_name or found[0][0].name, found[0][1])
        return
    rel, src = best
    info.put("id", rel.id, src)
    info.put("pretty_name", rel.pretty_name or rel.name, src)
    info.put("version_id", rel.version_id, src)
    info.put("codename", rel.codename, src)
    if rel.id_like:
        info.put("id_like", rel.id_like, src)
    if rel.fields.get("UBUNTU_CODENAME"):
        info.put("ubuntu_codename", rel.fields["UBUNTU_CODENAME"].strip().lower(), src)
    # fill gaps from other outputs about the same distribution
    for other, osrc in found:
        if other is rel or other.id != rel.id:
            continue
        if other.version_id and info.version_id and other.version_id != info.version_id:
            continue
        info.put("version_id", other.version_id, osrc, overwrite=False)
        info.put("codename", other.codename, osrc, overwrite=False)
        info.put("pretty_name", other.pretty_name, osrc, overwrite=False)


def _distribution_from_lines(source: Source) -> List[Tuple[p_os_release.OsRelease, str]]:
    """ROCm's issue-form OS block whose os-release lines looks_like() does not take (NAME= alone), a line
    that is only a distribution's name and version (ROCm's issue template: 'Ubuntu 24.04.3 LTS (Noble
    Numbat)'), else the Ubuntu build tag in a uname line ('#81~16.04.1-Ubuntu')."""
    out: List[Tuple[p_os_release.OsRelease, str]] = []
    for name, text in pastes(source):
        rel = p_os_release.form_os_block(text)  # ROCm's issue form: "OS:" and NAME= alone on a rolling release
        if rel.id:
            out.append((rel, paste_label(name, "issue form: OS block")))
        facts = p_paste_facts.parse_cached(text)
        for pretty in facts.distros:
            rel = p_os_release.from_pretty(pretty)
            if rel.id:
                out.append((rel, paste_label(name, "distribution line")))
        form = p_issue_form.parse_cached(text)
        for value in form.os:
            dist, _kernel, _wsl = p_issue_form.os_parts(value)
            if not dist:
                continue
            rel = p_os_release.parse(dist) if "=" in dist else p_os_release.from_pretty(dist)
            if rel.id:
                if rel.id == "ubuntu" and rel.version_id and not re.fullmatch(r"\d\d\.\d\d", rel.version_id):
                    rel.version_id = None  # "Ubuntu 24": no release of that name
                out.append((rel, paste_label(name, "issue form: OS")))
        for line in facts.uname_lines:
            m = re.search(r"#\d+~(\d\d\.\d\d)(?:\.\d+)?-Ubuntu\b", line)
            if m or re.search(r"#\d+-Ubuntu\b", line):
                rel = p_os_release.OsRelease(format="uname")
                rel.id = "ubuntu"
                rel.version_id = m.group(1) if m else None
                out.append((rel, paste_label(name, "uname line")))
    return out


# -- kernel --------------------------------------------------------------------------------------

# apt prints "<package> is already the newest version (<version>)." only for a package named on its command
# line (apt-private/private-install.cc); AMD's install steps and amdgpu-install's dkms use case name the
# running kernel's headers as "linux-headers-$(uname -r)", so the release in that line is the running kernel's
# (a weak, last candidate: it says which headers were asked for, not what runs; none when two kernels' are)
_APT_HEADERS_NEWEST = lazy(r"^[ \t]*linux-headers-(" + p_uname.RELEASE_RE + r") is already the newest version \(", re.M)

def _kernel_candidates(source: Source) -> Tuple[List[Tuple[str, str, float]], Optional[str], Optional[str]]:
    cands: List[Tuple[str, str, float]] = []
    machine = None
    machine_src = None
    raw = read_text(source, KERNEL_FILE, 4096)
    if raw is not None and raw.text.strip():
        rel = raw.text.strip().splitlines()[0].strip()
        if re.match(r"^" + p_uname.RELEASE_RE + r"$", rel):
            cands.append((rel, raw.source, 10.0))
    arch_raw = read_text(source, ARCH_FILE, 256)
    have_arch = arch_raw is not None and arch_raw.text.strip() in p_uname.ARCHES
    if not (cands and have_arch):
        outs = ok_outputs(source, "uname")
        if not outs and not cands:
            outs = fallback_pastes(source, p_uname.looks_like, "uname", 0.7)
        for raw in outs:
            u = p_uname.parse(raw.text)
            if u.release:
                cands.append((u.release, raw.source, 1.0))
            if u.machine and machine is None:
                machine, machine_src = u.machine, raw.source
    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        if ce.kernel:
            cands.append((ce.kernel, raw.source + "#Python platform", 1.0))
    for raw in ok_outputs(source, "dmesg"):
        version = p_dmesg.kernel_version(raw.text)
        if version:
            cands.append((version, raw.source, 1.0))
    if not cands:
        # a uname line (or "Kernel version: ...") inside some other paste or prose
        for name, text in pastes(source):
            facts = p_paste_facts.parse_cached(text)
            for rel in facts.kernels:
                cands.append((rel, paste_label(name, "uname line"), 0.8))
            for rel in facts.kernel_lines:
                cands.append((rel, paste_label(name, "kernel line"), 0.5))
            if "is already the newest version" in text:
                asked = {m.group(1) for m in _APT_HEADERS_NEWEST.finditer(text)}
                if len(asked) == 1:  # headers of two kernels asked for: which one runs is not said
                    cands.append((asked.pop(), paste_label(name, "apt: headers already installed"), 0.3))
            form = p_issue_form.parse_cached(text)
            for value in form.kernel + form.os:
                rel = value if value in form.kernel else p_issue_form.os_parts(value)[1]
                if rel and rel[:6].lower() == "linux ":  # "- **Kernel**: Linux 6.17.0-20-generic"
                    rel = rel[6:].strip()
                if rel and re.match(r"^" + p_uname.RELEASE_RE + r"$", rel):
                    cands.append((rel, paste_label(name, "issue form: kernel"), 0.4))
    return cands, machine, machine_src


def _kernel(source: Source, info: OSInfo) -> None:
    cands, machine, machine_src = _kernel_candidates(source)
    best = vote(cands)
    if best is None:
        return
    release, src = best
    info.put("kernel", release, src)
    info.put("kernel_flavour", p_uname.flavour(release), src)
    others = sorted({c[0] for c in cands if c[0] != release})
    if others:
        info.note("other kernel releases appear in the outputs: %s (outputs taken at different times?); "
                  "using %s" % (", ".join(others), release))
    if machine:
        info.put("arch", machine, machine_src, overwrite=False)


def _arch(source: Source, info: OSInfo) -> None:
    raw = read_text(source, ARCH_FILE, 256)
    if raw is not None and raw.text.strip() in p_uname.ARCHES:
        info.put("arch", raw.text.strip(), raw.source)
        return
    if info.arch:
        return
    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        if ce.arch:
            info.put("arch", ce.arch, raw.source, overwrite=False)
            return


# -- WSL / container -----------------------------------------------------------------------------

_WSL_ROCMINFO = lazy(r"^[ \t]*WSL environment detected\.", re.M)


def _wsl(source: Source, info: OSInfo) -> None:
    _wsl_sure(source, info)
    _wsl_markers(source, info)


def _wsl_markers(source: Source, info: OSInfo) -> None:
    """The ROCm-on-WSL user space pasted outputs show (with its source ids), and WSL itself from the
    markers the other checks do not read (/usr/lib/wsl/lib, DXCore, the DXG switch)."""
    texts = pastes(source)
    us = p_wsl.userspace(texts) if texts else None
    if us is not None:
        info.put("wsl_userspace", us.generation, "%s ('%s'; sources: %s)" % (paste_label(us.where), us.evidence,
                                                                              ", ".join(us.sources)))
        info.put("wsl", True, paste_label(us.where) + " ('%s')" % us.evidence, overwrite=False)
        return
    for name, text in texts if info.wsl is None else ():
        mark = p_wsl.wsl_mark(text)
        if mark:
            info.put("wsl", True, paste_label(name) + " ('%s')" % mark)
            return


def _wsl_sure(source: Source, info: OSInfo) -> None:
    if info.kernel and p_uname.is_wsl(info.kernel):
        info.put("wsl", True, info.sources.get("kernel", "kernel"))
        return
    for path in WSL_INTEROP:
        if stat(source, path) is not None:
            info.put("wsl", True, "file:" + path)
            return
    e = env(source)
    if e.get("WSL_DISTRO_NAME"):
        info.put("wsl", True, "env:WSL_DISTRO_NAME")
        return
    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        if ce.wsl:
            info.put("wsl", True, raw.source + "#Python platform")
            return
    for name, text in pastes(source):  # rocminfo of ROCm's WSL builds opens with this line
        if "WSL environment detected" in text and _WSL_ROCMINFO.search(text):
            info.put("wsl", True, paste_label(name) + " (rocminfo: 'WSL environment detected.')")
            return
    for name, text in pastes(source):
        if "microsoft-standard-WSL" in text or "/dev/dxg" in text:
            m = _WSL_SIGN.search(text)
            if m:
                info.put("wsl", True, paste_label(name) + " ('%s')" % m.group(0).strip()[:80])
                return
        form = p_issue_form.parse_cached(text)
        if form.wsl:
            info.put("wsl", True, paste_label(name, "issue form: OS") + " ('%s')" % form.wsl[:80])
            return
    if info.kernel:
        info.put("wsl", False, info.sources.get("kernel", "kernel"))


# a WSL kernel release anywhere ("5.15.167.4-microsoft-standard-WSL2"), or the paravirtual GPU node
# listed ("crw-rw-rw- 1 root root 10, 125 ... /dev/dxg")
_WSL_SIGN = lazy(r"\b\d+\.\d+\.\d+[.\d]*-microsoft-standard-WSL2?\b|^.*\s/dev/dxg\s*$", re.M)

_CGROUP_HINTS = (("kubepods", "kubernetes"), ("libpod", "podman"), ("docker", "docker"), ("containerd", "containerd"),
                 ("lxc", "lxc"), ("machine.slice/machine-", "systemd-nspawn"))


_DOCKERENV = lazy(r"(?:^|\s)/?\.dockerenv\s*$", re.M)
_CGROUP_LINE = lazy(r"^\d+:[\w,=]*:/(?:docker|kubepods|machine\.slice/libpod|libpod|lxc|system\.slice/docker-)[\w./-]*$", re.M)
# docker names a container's host after the first 12 hex digits of its id
_CONTAINER_PROMPT = lazy(r"^root@[0-9a-f]{12}:[/~]", re.M)


def _container(source: Source, info: OSInfo) -> None:
    raw = read_text(source, "/run/systemd/container", 256)
    if raw is not None and raw.text.strip() and raw.text.strip() != "wsl":
        info.put("container", raw.text.strip().split()[0], raw.source)
        return
    if stat(source, "/.dockerenv") is not None:
        info.put("container", "docker", "file:/.dockerenv")
        return
    if stat(source, "/run/.containerenv") is not None:
        info.put("container", "podman", "file:/run/.containerenv")
        return
    raw = read_text(source, "/proc/1/cgroup", 16 * 1024)
    if raw is not None:
        low = raw.text.lower()
        for needle, name in _CGROUP_HINTS:
            if needle in low:
                info.put("container", name, raw.source)
                return
    # pasted signs: /.dockerenv in a listing, a container's cgroup line, a container's shell prompt,
    # an issue form's "Docker Image:" line
    for name, text in pastes(source):
        if ".dockerenv" in text and _DOCKERENV.search(text):
            info.put("container", "docker", paste_label(name) + " (/.dockerenv listed)")
            return
        if "/" in text:
            m = _CGROUP_LINE.search(text)
            if m:
                low = m.group(0).lower()
                kind = next((k for needle, k in _CGROUP_HINTS if needle in low), "docker")
                info.put("container", kind, paste_label(name) + " (cgroup '%s')" % m.group(0).strip()[:80])
                return
        if "root@" in text:
            m = _CONTAINER_PROMPT.search(text)
            if m:
                info.put("container", "docker", paste_label(name) + " (container shell prompt '%s')" % m.group(0).strip())
                return
        form = p_issue_form.parse_cached(text)
        if form.docker_images:
            info.put("container", "docker", paste_label(name, "issue form: Docker Image") + " (%s)" % form.docker_images[0])
            return


# -- CPU / python ----------------------------------------------------------------------------------

# a typed CPU field that names a CPU ("AMD Ryzen 5 5600X 6-Core Processor", "Intel(R) Core(TM) i7-..."),
# not a count or a vague word
_CORES_PREFIX = lazy(r"^\d{1,3}-core\s+")  # inxi's "CPU: 8-core AMD Ryzen 7 ..."
_TYPED_CPU = lazy(r"^`?(?:AMD|Intel|Hygon)\b[\w() @./+-]{4,120}$")
# (s20: blanks, not \s, before the key: "^\s*" under re.M ran over every blank line after each line start, quadratic
# in a paste of many blank lines -- 25,600 took 4 s)
_CPU_LINE = lazy(r"^[ \t]*model name[ \t]*:[ \t]*(\S.*?)[ \t]*$", re.I | re.M)
_LSCPU_LINE = lazy(r"^[ \t]*Model name[ \t]*:[ \t]*(\S.*?)[ \t]*$", re.M)


_ROCMINFO_CPU_AGENT = lazy(r"^[ \t]*Name:[ \t]+(\S[^\n]{0,120}?)[ \t]*\n[ \t]*Uuid:[ \t]+CPU-", re.M)


def _cpu(source: Source, info: OSInfo) -> None:
    raw = read_text(source, "/proc/cpuinfo", 16 * 1024)
    if raw is not None:
        m = _CPU_LINE.search(raw.text)
        if m:
            info.put("cpu", m.group(1), raw.source)
            return
    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        if ce.cpu_model:
            info.put("cpu", ce.cpu_model, raw.source + "#CPU")
            return
    for name, text in pastes(source):
        m = _CPU_LINE.search(text) or _LSCPU_LINE.search(text)
        if m and m.group(1).strip():
            info.put("cpu", m.group(1), "paste:%s" % name)
            return
    for name, text in pastes(source):  # rocminfo's CPU agent, in a paste no parser took for rocminfo
        if "CPU-" in text:
            m = _ROCMINFO_CPU_AGENT.search(text)
            if m:
                info.put("cpu", m.group(1), paste_label(name, "rocminfo CPU agent"))
                return
    for name, text in pastes(source):  # what a user typed into an issue form's CPU field, last
        for value in p_issue_form.parse_cached(text).cpu:
            v = _CORES_PREFIX.sub("", value.strip().strip("`").rstrip(":").strip())
            if _TYPED_CPU.match(v):
                info.put("cpu", v, paste_label(name, "issue form: CPU"))
                return


def _python(source: Source, info: OSInfo) -> None:
    for path in ("/usr/bin/python3", "/usr/local/bin/python3"):
        target = readlink_or_none(source, path)
        if target:
            m = re.search(r"python(\d+\.\d+)$", posixpath.basename(target))
            if m:
                info.put("python", m.group(1), "link:%s" % path)
                return
    for name, text in pastes(source):  # the Python REPL's banner in a paste
        for ver in p_paste_facts.parse_cached(text).pythons:
            info.put("python", ver, paste_label(name, "Python banner"))
            return
    for name, text in pastes(source):  # an issue form's or bug template's "Python:" field, last
        for value in p_issue_form.parse_cached(text).python:
            ver = p_issue_form.python_version(value)
            if ver:
                info.put("python", ver, paste_label(name, "issue form: Python"))
                return
    # (s9-heldr) the one interpreter the pasted pyenv / uv install directories name (its full version), when they
    # name one only; (s8-heldq) then the one the pasted site-packages paths name; (s10-heldaf) last, the one the
    # traceback frames in an interpreter's standard library name
    # (s19-detgen) first of these, the one interpreter uv says it made the environment with
    # (s21-webuiwin) with it, the one an app's JSON dependency report names ('"python": "3.10.12"', InvokeAI's)
    # (s25-buildwin) last, the one a build log builds with (CMake's 'Found Python: ... (found version "X.Y.Z")', a
    # Nix 'pythonX.Y-<pkg>> ' log prefix); (s25-pipwin) after it, the one the Windows Python install manager installs
    for field_name, how in (("tool_pythons", "uv's interpreter line"),
                            ("app_pythons", "an app's dependency report or start-up line"),
                            ("install_pythons", "interpreter directory"), ("site_pythons", "site-packages path"),
                            ("stdlib_pythons", "standard-library traceback frame"),
                            ("build_pythons", "a build log's interpreter (CMake's FindPython, a Nix python derivation)"),
                            ("manager_pythons", "the Windows Python install manager's install line")):
        seen: Dict[str, str] = {}
        for name, text in pastes(source):
            for ver in getattr(p_paste_facts.parse_cached(text), field_name):
                seen.setdefault(ver, name)
        if len(seen) == 1:
            ver, name = next(iter(seen.items()))
            info.put("python", ver, paste_label(name, how))
            return


# -- Ubuntu HWE ----------------------------------------------------------------------------------

def kernel_series(release: Optional[str]) -> Optional[str]:
    m = re.match(r"^(\d+)\.(\d+)", release or "")
    return "%s.%s" % (m.group(1), m.group(2)) if m else None


def _hwe(source: Source, info: OSInfo) -> None:
    if info.id != "ubuntu" or not info.kernel or info.wsl:
        return
    from ...catalog import ubuntu

    ga = ubuntu.ga_kernel(info.version_id) if info.version_id else None
    for path in ("/usr/share/doc/linux-generic-hwe-%s" % (info.version_id or ""),
                 "/usr/share/doc/linux-image-generic-hwe-%s" % (info.version_id or "")):
        st = stat(source, path)
        if st is not None and info.version_id:
            info.put("hwe", True, "file:" + path)
            return
    if ga is None:
        return
    series = kernel_series(info.kernel)
    flav = info.kernel_flavour or ""
    if any(flav.startswith(t) for t in _VENDOR_TRACKS):
        info.put("hwe", False, "rule:vendor kernel track (%s)" % flav)
        info.note("kernel %s is a vendor kernel track (%s), neither the GA nor the HWE kernel" % (info.kernel, flav))
        return
    if series is None:
        return
    info.put("hwe", series != ga[0], "rule:ubuntu %s GA kernel is %s (%s)" % (info.version_id, ga[0], ga[1]))



# -- Secure Boot ---------------------------------------------------------------------------------

def secure_boot_of(text: str) -> Optional[bool]:
    """What ``mokutil --sb-state`` says: "SecureBoot enabled" / "SecureBoot disabled", or that the
    machine has no (EFI) Secure Boot at all (then False); None for anything else."""
    low = text.lower()
    if "secureboot enabled" in low:
        return True
    if "secureboot disabled" in low or "doesn't support secure boot" in low or "efi variables are not supported" in low:
        return False
    return None


def _secure_boot(source: Source, info: OSInfo) -> None:
    raw = read_text(source, SECURE_BOOT_VAR, 64)
    if raw is not None and len(raw.text) == 5 and raw.text[4] in "\x00\x01":
        info.put("secure_boot", raw.text[4] == "\x01", raw.source)
        return
    try:
        no_uefi = getattr(source, "kind", "") == "live" and source.exists("/sys/bus") and \
            not source.exists("/sys/firmware/efi")
    except Exception:
        no_uefi = False
    if no_uefi:
        info.put("secure_boot", False, "file:/sys/firmware/efi (absent: booted without UEFI)")
        return
    for out in ok_outputs(source, "mokutil"):
        state = secure_boot_of(out.text)
        if state is not None:
            info.put("secure_boot", state, out.source)
            return
