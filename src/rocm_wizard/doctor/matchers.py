"""The matching logic of every rule in ``rules.toml``: one small function per rule id.

A matcher takes a :class:`~rocm_wizard.doctor.context.Context` and the rule's metadata and returns
``None`` (the rule does not apply) or a :class:`Match` with the evidence to show.  A Match may
replace the generic fix with a concrete one, or change the severity with a stated reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..catalog import gpus as gpu_table
from ..catalog import overrides, releases, support, wheels
from .context import TRITON_DISTS, Context, _clip, kernel_series, parse_version, s
from .registry import RuleMeta


@dataclass
class Match:
    evidence: List[str]
    fix: Optional[str] = None
    severity: Optional[str] = None
    community: bool = False
    data: Dict[str, Any] = field(default_factory=dict)


Matcher = Callable[[Context, RuleMeta], Optional[Match]]
MATCHERS: Dict[str, Matcher] = {}


def rule(rule_id: str) -> Callable[[Matcher], Matcher]:
    def deco(fn: Matcher) -> Matcher:
        if rule_id in MATCHERS:
            raise ValueError(f"duplicate matcher for {rule_id}")
        MATCHERS[rule_id] = fn
        return fn

    return deco


def _src(rec: Any, name: str) -> str:
    srcs = getattr(rec, "sources", None)
    where = s(srcs.get(name)) if isinstance(srcs, dict) else ""
    return f" ({where})" if where else ""


def _gpu_lines(ctx: Context, views=None) -> List[str]:
    return [f"GPU {v.index}: {v.label}" + (f" [gfx from {v.gfx_source}]" if v.gfx_source else "")
            for v in (ctx.gpus if views is None else views)]


def _pre_vega(gfx: Optional[str]) -> bool:
    return bool(gfx) and gfx in overrides.pre_vega().applies_to


# ================================================================== GPU and kernel driver
_RADEON_APU_CPU = re.compile(r"\bAMD\b[^\n]{0,80}?\b(?:w/|with) Radeon\b", re.I)


@rule("no-amd-gpu")
def no_amd_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if ctx.amd_present:
        return None
    others = [g for g in ctx.system.gpus if not getattr(g, "is_amd", True) or s(getattr(g, "vendor_id", "")) not in ("", "1002")]
    clues = []
    if others:
        clues.append("GPUs found, none from AMD: " + ", ".join(s(g.name) or s(g.pci_id) or "unnamed" for g in others))
    if ctx.rocm_installed:
        clues.append(f"ROCm is installed (host release {ctx.host_rocm or 'unknown'})")
    if ctx.rocm.amdgpu_loaded is True:
        clues.append("the amdgpu module is loaded but no AMD GPU agent was enumerated")
    listed = bool(others)
    for text, where, sig in ctx.error_lines:
        if sig == "no_gpu_agent":
            clues.append(f"rocminfo lists only CPU agents ({where})")
            listed = True
            break
    if not clues:
        return None  # nothing was detected at all: no basis for a claim
    if listed and not others and _RADEON_APU_CPU.search(s(getattr(ctx.system.os, "cpu", ""))):
        # s25-smiwin (set IS, 3481): the CPU the paste names is an AMD APU with its Radeon graphics on the die ('AMD
        # RYZEN AI MAX+ PRO 395 w/ Radeon 8060S', 'AMD Ryzen 5 5600G with Radeon Graphics': the model names AMD gives
        # its APUs, which rocminfo's CPU agent and /proc/cpuinfo print): an AMD GPU is there, so "no AMD GPU" is no
        # claim to make; rocminfo listing only the CPU agent is the runtime's finding (no_gpu_agent), which
        # known-failure reports
        return None
    if ctx.wsl and not others:
        # s8-heldp: under WSL the GPU is Windows' (reached through /dev/dxg), never bound to the Linux
        # kernel's amdgpu: rocminfo's CPU-only list is the WSL runtime's (rocr4wsl/librocdxg) answer, which
        # the runtime's no_gpu_agent row and the WSL rules speak for; "not seen by the kernel" is no claim here
        return None
    if s(ctx.system.origin) == "snapshot" and not listed:
        return None  # a paste that lists no device (lsmod, a modprobe error) cannot show that there is no GPU
    clues.append("no AMD GPU in PCI listing, KFD topology or rocminfo")
    return Match(clues)


@rule("amdgpu-not-loaded")
def amdgpu_not_loaded(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.amd_present or ctx.wsl or ctx.container or ctx.rocm.amdgpu_loaded is not False:
        return None
    return Match(_gpu_lines(ctx) + ["amdgpu module not loaded" + _src(ctx.rocm, "amdgpu_loaded")])


@rule("kfd-missing")
def kfd_missing(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    kfd = ctx.access.kfd
    if not ctx.amd_present or ctx.wsl or kfd is None or kfd.exists:
        return None
    ev = _gpu_lines(ctx) + ["/dev/kfd does not exist" + _src(kfd, "exists")]
    if ctx.container:
        return Match(ev, fix="Restart the container with --device=/dev/kfd --device=/dev/dri --group-add video.")
    return Match(ev)


@rule("kfd-not-accessible")
def kfd_not_accessible(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    kfd = ctx.access.kfd
    if kfd is None or not kfd.exists or kfd.accessible is not False or ctx.is_root:
        return None
    ev = [f"/dev/kfd mode {s(kfd.mode) or '?'} group {s(kfd.group) or '?'}; user {s(ctx.access.user) or '?'} "
          f"has no read/write access"]
    group = s(kfd.group) or "render"
    return Match(ev, fix=f"sudo usermod -a -G {group},video $LOGNAME, then log out and back in.")


@rule("user-not-in-render-video")
def user_not_in_groups(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if ctx.is_root or ctx.wsl:
        return None
    missing = [g for g, flag in (("render", ctx.access.in_render), ("video", ctx.access.in_video)) if flag is False]
    if not missing:
        return None
    ev = [f"user {s(ctx.access.user) or '?'} is in groups: {', '.join(s(g) for g in ctx.access.groups) or '(none listed)'}",
          f"missing: {', '.join(missing)}"]
    kfd = ctx.access.kfd
    severity = None
    if kfd is not None and kfd.accessible is True:
        severity = "warning"
        ev.append("/dev/kfd is accessible anyway (e.g. through a login-session ACL); a non-graphical login (SSH, service) may not be")
    return Match(ev, fix=f"sudo usermod -a -G {','.join(missing)} $LOGNAME, then log out and back in.", severity=severity)


@rule("dkms-not-built-for-kernel")
def dkms_not_built(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    text = s(ctx.rocm.amdgpu_dkms)
    kernel = s(ctx.os.kernel)
    if not text or not kernel or ctx.wsl or ctx.container:
        return None
    lines = [ln.strip() for ln in text.splitlines() if "amdgpu" in ln.lower() and ":" in ln]
    if not lines:
        return None  # a bare package version says nothing about kernels
    built_for_running = any(kernel in ln and re.search(r":\s*installed", ln, re.I) for ln in lines)
    if built_for_running:
        return None
    return Match([f"running kernel: {kernel}" + _src(ctx.os, "kernel")] + [f"dkms: {ln}" for ln in lines[:6]])


@rule("dpkg-audit-unclean")
def dpkg_unclean(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if ctx.rocm.dpkg_audit_clean is not False:
        return None
    out = [ln for ln in s(ctx.rocm.dpkg_audit).splitlines() if ln.strip()]
    return Match(["dpkg --audit is not clean" + _src(ctx.rocm, "dpkg_audit_clean")] + [f"  {ln}" for ln in out[:8]])


# ================================================================== apt repositories
def _radeon_sources(ctx: Context):
    return [a for a in ctx.rocm.apt_sources if getattr(a, "radeon", False) and getattr(a, "enabled", True) is not False]


def _src_line(a) -> str:
    return f"{s(a.file) or '?'}: {s(a.line) or s(a.uri)}"


def _pin_mentions_radeon(p, hosts) -> bool:
    text = s(p.pin).lower()
    return "repo.radeon.com" in text or any(h and h in text for h in hosts)


def _pin_related(p, hosts) -> bool:
    return _pin_mentions_radeon(p, hosts) or "rocm" in s(p.package).lower() or "rocm" in s(p.file).lower()


def _pin_good(p, hosts) -> bool:
    pr = p.priority if isinstance(p.priority, int) and not isinstance(p.priority, bool) else None
    pkg = s(p.package)
    return _pin_mentions_radeon(p, hosts) and pr is not None and pr > 500 and pkg in ("*", "")


def _hosts(srcs) -> List[str]:
    out = []
    for a in srcs:
        m = re.match(r"\w+://([^/]+)", s(a.uri))
        if m:
            out.append(m.group(1).lower())
    return out


@rule("apt-pin-missing")
def apt_pin_missing(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    srcs = _radeon_sources(ctx)
    if not srcs:
        return None
    hosts = _hosts(srcs)
    if any(_pin_related(p, hosts) for p in ctx.rocm.apt_pins):
        return None
    ev = [f"source {_src_line(a)}" for a in srcs[:6]] + ["no file in /etc/apt/preferences.d pins repo.radeon.com"]
    severity = None
    if ctx.rocm.distro_offers_rocm is True:
        ev.append("the distribution's archive also offers ROCm packages" + _src(ctx.rocm, "distro_offers_rocm"))
    else:
        severity = "warning"
        ev.append("the distribution's archive was not seen offering ROCm packages (yet): no mix-up today, but AMD's setup requires the pin")
    return Match(ev, severity=severity)


@rule("apt-pin-wrong")
def apt_pin_wrong(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    srcs = _radeon_sources(ctx)
    hosts = _hosts(srcs)
    related = [p for p in ctx.rocm.apt_pins if _pin_related(p, hosts)]
    if not srcs or not related or any(_pin_good(p, hosts) for p in related):
        return None
    ev = [f"pin {s(p.file) or '?'}: Package: {s(p.package) or '?'} / Pin: {s(p.pin) or '?'} / Pin-Priority: {p.priority}"
          for p in related[:6]]
    return Match(ev)


@rule("apt-floating-repo")
def apt_floating(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    floating = set(releases.repo().floating_dirs)
    bad = [a for a in _radeon_sources(ctx) if s(a.release).lower() in floating]
    if not bad:
        return None
    return Match([f"source {_src_line(a)} (release directory '{s(a.release)}')" for a in bad[:6]])


@rule("apt-mixed-releases")
def apt_mixed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    srcs = _radeon_sources(ctx)
    rocm = [a for a in srcs if s(a.repo_kind) == "rocm" and s(a.release)]
    rocm_rels = list(dict.fromkeys(s(a.release) for a in rocm))
    ev = []
    if len(rocm_rels) > 1:
        ev.append(f"ROCm repositories of {len(rocm_rels)} releases are enabled: {', '.join(rocm_rels)}")
        ev += [f"  {_src_line(a)}" for a in rocm[:6]]
    elif len(rocm_rels) == 1:
        rel = releases.get(rocm_rels[0]) if re.fullmatch(r"\d+(\.\d+){1,2}", rocm_rels[0]) else None
        for kind, expected in (("amdgpu", rel.amdgpu_dir if rel else None), ("graphics", rel.graphics_dir if rel else None)):
            if rel is None:
                break
            for a in srcs:
                got = s(a.release)
                if s(a.repo_kind) == kind and got and expected and got != expected:
                    ev.append(f"{kind} repository is release {got} but ROCm {rel.version} uses {kind}/{expected}: {_src_line(a)}")
                elif s(a.repo_kind) == kind and got and expected is None and rel.layout == "rocm+amdgpu" and got != rel.apt_dir:
                    ev.append(f"{kind} repository is release {got} but ROCm is {rel.apt_dir}: {_src_line(a)}")
    if not ev:
        return None
    return Match(ev)


# ================================================================== host ROCm release
@rule("rocm-older-than-catalog")
def rocm_older(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    v = parse_version(ctx.host_rocm)
    oldest = releases.all_releases()[0]
    if v is None or v >= parse_version(oldest.version):
        return None
    return Match([f"host ROCm {ctx.host_rocm}" + _src(ctx.rocm, "version"),
                  f"oldest release the catalog knows: {oldest.version}"])


def _native_windows(ctx: Context) -> bool:
    """A native Windows host (detect/windows_facts.py): the Linux support list (AMD's system requirements
    for Linux) does not speak for it -- the HIP SDK and TheRock's Windows wheels have their own lists,
    which the catalogue does not hold, so a rule resting on the Linux list stays silent there."""
    return getattr(ctx.os, "windows_native", None) is True


@rule("rocm-too-old-for-gpu")
def rocm_too_old_for_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if _native_windows(ctx):
        return None  # the Linux list's first release for a GPU is not Windows' (HIP SDK / TheRock wheels)
    v = parse_version(ctx.host_rocm)
    if v is None:
        return None
    ev = []
    oldest = releases.all_releases()[0].version
    for g in ctx.gpus:
        first = support.first_official(g.gfx)
        if first is None or first.version == oldest:
            continue  # listed since the catalog's first release: when support began is not known here
        if v < parse_version(first.version):
            ev.append(f"{g.label}: officially supported from ROCm {first.version}; host has {ctx.host_rocm}")
    if not ev:
        return None
    if ctx.rocm_envs:
        ev.append("the PyTorch wheels in use carry their own ROCm; see their own findings")
    return Match(ev)


@rule("rocm-dropped-gpu")
def rocm_dropped_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if _native_windows(ctx):
        return None  # the Linux support list; Windows' own list is not in the catalogue
    rel = ctx.host_release
    if rel is None:
        return None
    ev = []
    for g in ctx.gpus:
        st = support.status(g.gfx, rel) if g.gfx else None
        if st is not None and st.level in ("unsupported", "deprecated"):
            last = [r.version for r in support.official_releases(g.gfx)]
            ev.append(f"{g.label}: {st.level} in ROCm {rel.version}" + (f"; last listed in {last[-1]}" if last else ""))
    return Match(ev) if ev else None


@rule("rocm-ubuntu-unsupported")
def rocm_ubuntu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    rel = ctx.host_release
    if rel is None or s(ctx.os.id).lower() != "ubuntu" or not s(ctx.os.version_id):
        return None
    if rel.supports_ubuntu(ctx.os.version_id) is not False:
        return None
    ev = [f"Ubuntu {s(ctx.os.version_id)}" + _src(ctx.os, "version_id"),
          f"ROCm {rel.version} lists Ubuntu {', '.join(rel.ubuntu)}"]
    if rel.support_status != "documented":
        ev.append(f"(the list for {rel.version} is {rel.support_status}: {rel.support_note or 'not read from AMD'})")
    return Match(ev)


@rule("rocm-kernel-unlisted")
def rocm_kernel(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    rel = ctx.host_release
    ks = kernel_series(ctx.os.kernel)
    if rel is None or ks is None or ctx.wsl or s(ctx.os.id).lower() != "ubuntu":
        return None
    listed = rel.kernel_series(s(ctx.os.version_id))
    if not listed or ks in listed:
        return None
    return Match([f"running kernel {s(ctx.os.kernel)} (series {ks})" + _src(ctx.os, "kernel"),
                  f"ROCm {rel.version} on Ubuntu {s(ctx.os.version_id)} lists kernel series {', '.join(listed)}"])


@rule("opt-rocm-elsewhere")
def opt_rocm_elsewhere(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    installs = [i for i in ctx.rocm.installs if s(getattr(i, "path", None))]
    target = s(ctx.rocm.opt_rocm_target)
    if len(installs) < 2 or not target:
        return None
    m = re.search(r"rocm-(\d+\.\d+\.\d+)", target)
    target_ver = m.group(1) if m else None
    expected = ctx.host_rocm
    ev = [f"installed: {', '.join(s(i.path) + (' (' + s(i.version) + ')' if s(i.version) else '') for i in installs)}",
          f"/opt/rocm -> {target}"]
    if expected and target_ver and parse_version(target_ver) != parse_version(expected):
        ev.append(f"the package manager reports ROCm {expected}")
        return Match(ev)
    paths = {s(i.path).rstrip("/") for i in installs}
    if target_ver is None and target.rstrip("/") not in paths:
        ev.append("the link points at none of the installs")
        return Match(ev)
    return None


@rule("rocm-bin-not-on-path")
def rocm_bin_path(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if ctx.access.path_has_rocm_bin is not False or not (ctx.rocm.installs or ctx.host_rocm):
        return None
    if s(ctx.rocm.stream) in ("core-sdk", "distro"):
        return None  # the Core SDK's alternatives and a distribution's packages put the tools in /usr/bin
    path = ctx.env.get("PATH", "")
    return Match(["ROCm is installed" + (f" ({ctx.host_rocm})" if ctx.host_rocm else ""),
                  "PATH has no ROCm bin directory" + (f": {path[:160]}" if path else "")])


@rule("wsl2")
def wsl2(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.wsl:
        return None
    ev = [f"kernel {s(ctx.os.kernel) or '?'}" + _src(ctx.os, "kernel")]
    gen = s(getattr(ctx.os, "wsl_userspace", None))
    if not gen:
        return Match(ev)
    from ..catalog import compat

    w = compat.wsl_facts()
    ev.append(f"ROCm WSL user space: {gen}" + _src(ctx.os, "wsl_userspace"))
    if gen == "librocdxg":
        fix = (f"This is the ROCm {w.get('librocdxg_from', '7.2')}+ WSL user space: the runtime loads librocdxg only "
               f"with {w.get('dxg_env', 'HSA_ENABLE_DXG_DETECTION=1')} set; keep the torch wheel's own HSA runtime "
               f"(sources: {', '.join(w.get('librocdxg_sources', []))}).")
    else:
        fix = (f"This is the ROCm 6.x WSL runtime (hsa-runtime-rocr4wsl-amdgpu, amdgpu-install --usecase=wsl,rocm "
               f"--no-dkms): a torch wheel for it needs its own libhsa-runtime64 removed ({w.get('hsa_removal', '')}); "
               f"a ROCm {w.get('librocdxg_from', '7.2')}+ wheel needs the librocdxg user space instead "
               f"(sources: {', '.join(list(w.get('hsa_removal_sources', [])) + list(w.get('librocdxg_sources', [])))}).")
    return Match(ev, fix=fix, data={"wsl_userspace": gen})


# ================================================================== GPU support
@rule("gfx-no-official-build")
def gfx_no_official(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    known = [g for g in ctx.gpus if g.gfx]
    if not known or any(support.has_official_build(g.gfx) for g in known):
        return None
    # (s13-heldbg, 1460) a device wheel built for the target is installed (TheRock's torch[device-gfx90c]): kernels
    # for it are there, so neither "no build" nor an override is the advice for that GPU
    known = [g for g in known if ctx.device_wheel_env(g.gfx) is None]
    if not known:
        return None
    ev, fixes, severity, community = [], [], None, False
    for g in known:
        ev.append(f"{g.label}: no ROCm release lists {g.gfx}; no download.pytorch.org index carries it")
        ov = overrides.for_gfx(g.gfx)
        none = overrides.no_override(g.gfx)
        if _pre_vega(g.gfx):
            severity = "critical"
            pv = overrides.pre_vega()
            fixes.append(f"{g.gfx}: official support ended with ROCm 4.0 and HSA_OVERRIDE_GFX_VERSION cannot make a "
                         f"gfx8 GPU run gfx9+ code. The only route is a community source build of the ROCm libraries "
                         f"and PyTorch for {g.gfx}, run with {pv.variable}={pv.value} (a community setting).")
            community = True
        elif ov is not None:
            fixes.append(f"{g.gfx}: community override {overrides.variable()}={ov.value} (makes ROCm load "
                         f"{overrides.gfx_of_value(ov.value)} kernels; not supported by AMD).")
            community = True
        elif none is not None:
            fixes.append(f"{g.gfx}: {none.reason}")
        else:
            fixes.append(f"{g.gfx}: no community override is known either.")
    fix = meta.fix + " " + " ".join(fixes) + " The wizard offers no upgrade for it: none would be supported."
    return Match(ev, fix=fix, severity=severity, community=community, data={"gfx": [g.gfx for g in known]})


@rule("gfx-not-official")
def gfx_not_official(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    ev = []
    for g in ctx.gpus:
        if not g.gfx or support.official_releases(g.gfx):
            continue
        idx = support.wheel_indexes(g.gfx)
        if idx:
            ev.append(f"{g.label}: no ROCm release lists {g.gfx}; wheels with its kernels: {', '.join(i.name for i in idx)}")
    return Match(ev) if ev else None


@rule("mixed-gpu-left-out")
def mixed_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    known = [g for g in ctx.gpus if g.gfx]
    if len({g.gfx for g in known}) < 2:
        return None
    good = [g for g in known if ctx.covered(g.gfx)]
    bad = [g for g in known if ctx.covered(g.gfx) is False]
    if not good or not bad:
        return None
    vis = ctx.visible_devices
    ev = [f"supported: {g.label}" for g in good] + [f"left out: {g.label}" for g in bad]
    ev.append(f"coverage from {ctx.coverage_basis}")
    if vis:
        return None  # the user already chose which GPUs ROCm sees
    ids = ",".join(str(g.index) for g in good)
    fix = (f"export HIP_VISIBLE_DEVICES={ids} (the supported GPU's index in ROCm's order; check with rocminfo or "
           f"rocm-smi), or disable the unsupported GPU in the firmware setup.")
    # (s11-heldak) the left-out GPU hurts a program that runs on it: as device 0 (a supported GPU listed first is
    # the default device of PyTorch and HIP), or when a failure names its target.  When a supported GPU comes first
    # and every known failure the paste shows sits above the runtime and HIP (a library's status, a framework's,
    # an install's) without naming the left-out target, that failure is the device-0 GPU's own: the advice stays
    # a note and does not lead it (legacy-rocm-build#6082: hipBLASLt's heuristic fails for an RX 7600 listed
    # before a gfx1036 iGPU, as it does for an RX 7600 alone, TheRock#2847)
    above = _problem_layers(ctx)
    first_good = min(g.index for g in good) < min(g.index for g in bad)
    named = any(re.search(r"\b%s\b" % re.escape(g.gfx), text, re.I) for g in bad for text, _w, _s in ctx.error_lines)
    if first_good and above and above <= {"libraries", "framework", "packaging"} and not named:
        return Match(ev + ["the supported GPU is ROCm's first device; the failures shown sit above the runtime: "
                           + ", ".join(sorted(above))], fix=fix, data={"visible": ids}, severity="info")
    return Match(ev, fix=fix, data={"visible": ids})


def _override_value(ctx: Context) -> Optional[str]:
    ov = ctx.hsa_override
    return ov.get("HSA_OVERRIDE_GFX_VERSION") or (next(iter(ov.values())) if ov else None)


@rule("hsa-override-unneeded")
def hsa_override_unneeded(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    ov = ctx.hsa_override
    if not ov:
        return None
    native = [g for g in ctx.gpus if g.gfx and ctx.covered(g.gfx)]
    if not native or len(native) < len([g for g in ctx.gpus if g.gfx]):
        return None  # some GPU does need something; the per-GPU form is the user's business then
    own = {g.gfx for g in native}
    ev = []
    for k, v in ov.items():
        as_gfx = overrides.gfx_of_value(v)
        if as_gfx and as_gfx in own:
            ev.append(f"{k}={v} names the GPU's own target {as_gfx}: it has no effect")
        elif as_gfx:
            ev.append(f"{k}={v} (makes the GPU pretend to be {as_gfx})")
        else:
            ev.append(f"{k}={v} (not a valid major.minor.stepping value)")
    ev += [f"{g.label}: native kernels available ({ctx.coverage_basis})" for g in native]
    # An override naming each GPU's own target changes nothing ROCr reports (set CQ, 1822: LocalAI built for
    # gfx1200 with HSA_OVERRIDE_GFX_VERSION=12.0.0 "just in case"): tell it, but as information, so that it
    # does not lead over the failure the paste shows.
    no_op = all(overrides.gfx_of_value(v) in own for v in ov.values())
    return Match(ev, community=True, severity="info" if no_op else None)


def _chip_of(g) -> Tuple[Optional[str], str]:
    """(the chip's own gfx target, how it is known) of a GPU record: from its PCI id, or -- without one
    (s9-helds) -- from the marketing name the same runtime line gives beside the target it reports.
    The name comes from the chip (amdgpu.ids / the agent's marketing name), which HSA_OVERRIDE_GFX_VERSION
    does not touch, while the target is the runtime's (ROCr reports the overridden version for every
    agent: ggml's "Device 1: Radeon 8060S Graphics, gfx1100 (0x1100)"); only a name the GPU table maps
    to one target counts ("AMD Radeon Graphics" names no chip)."""
    chip = gpu_table.chip_gfx(s(g.device_id) or None, s(g.revision) or None)
    if chip:
        return chip, f"PCI id 1002:{s(g.device_id).lower()} is a {chip} chip (catalog:gpus.csv)"
    src = g.sources or {}
    name, where = s(g.name), s(src.get("name"))
    if not name or s(g.device_id) or not where or where != s(src.get("gfx_target")):
        return None, ""
    chip = gpu_table.gfx_of_product(name)
    return (chip, f"the name '{name}' is a {chip} product (catalog:gpus.csv)") if chip else (None, "")


@rule("reported-target-not-chip")
def reported_target_not_chip(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """A GPU whose PCI id (or, without one, the product name its runtime line gives) names a chip of
    one target while the runtime reported another (issue 28, item 4): say so, name the override that
    does it and whether to unset it; plans use the chip."""
    ev = []
    for v in ctx.gpus:
        g = v.gpu
        chip, how = _chip_of(g)
        reported = support.normalize_gfx(g.gfx_target) or support.normalize_gfx(g.isa)
        if not chip or not reported or chip == reported:
            continue
        where = s((g.sources or {}).get("gfx_target") or (g.sources or {}).get("isa")) or "a ROCm tool"
        ev.append(f"{v.label}: {how}; the runtime reports {reported} ({where})")
    if not ev:
        return None
    ov = ctx.hsa_override
    for k, val in ov.items():
        as_gfx = overrides.gfx_of_value(val)
        native = [v for v in ctx.gpus if v.gfx and ctx.covered(v.gfx)]
        verdict = ("unset it: the chip's own target has kernels in the software in use" if native
                   else "it may be meant for another GPU: use the per-GPU form HSA_OVERRIDE_GFX_VERSION_<n>")
        ev.append(f"{k}={val} makes the runtime report {as_gfx or val}" + ("" if k != "HSA_OVERRIDE_GFX_VERSION" else
                  " for every GPU") + f" ({s((ctx.access.sources or {}).get('env')) or 'environment'}); {verdict}")
    if not ov:
        ev.append("no HSA_OVERRIDE_GFX_VERSION is visible here, yet a runtime reporting another target than the chip is "
                  "what one does: look in ~/.bashrc, systemd units (systemctl show -p Environment <service>) and the "
                  "container's env; without one, the ROCm release does not know this chip")
    ev.append("plans use the chip's own target")
    return Match(ev)


def _reported_elsewhere(v) -> bool:
    """The runtime reports another target than the chip is (an override is in effect somewhere)."""
    g = v.gpu
    chip, _how = _chip_of(g)
    reported = support.normalize_gfx(g.gfx_target) or support.normalize_gfx(g.isa)
    return bool(chip and reported and chip != reported)


@rule("hsa-override-missing")
def hsa_override_missing(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if _native_windows(ctx):
        return None  # the variable is read by the Linux thunk's topology code (libhsakmt); HIP on Windows runs without it
    if ctx.hsa_override or any(_reported_elsewhere(v) for v in ctx.gpus):
        return None  # set already (reported-target-not-chip speaks when the runtime shows it)
    views = ctx.primary
    if any(ctx.covered(g.gfx) for g in ctx.gpus if not g.igpu) and any(not g.igpu for g in ctx.gpus):
        views = [g for g in views if not g.igpu]
    ev, exports = [], []
    for g in views:
        if not g.gfx or ctx.covered(g.gfx) is not False:
            continue
        ov = overrides.for_gfx(g.gfx)
        if ov is None:
            continue
        target = overrides.gfx_of_value(ov.value)
        if not ctx.covered(target):
            continue
        ev.append(f"{g.label}: no native kernels ({ctx.coverage_basis}); community value {ov.value} "
                  f"(loads {target} kernels; {ov.products})" + (f"; note: {ov.note}" if ov.note else ""))
        exports.append(f"export {overrides.variable()}={ov.value}" +
                       "".join(f" {k}={v}" for k, v in ov.also_set))
    if not ev:
        return None
    fix = ("Community setting, not supported by AMD, at your own risk: " + "; ".join(dict.fromkeys(exports)) +
           " before starting Python. Remove it again when you move to software with native kernels for this GPU.")
    # (s10-heldx) the override answers missing code objects, which show at the runtime, HIP or a library; when
    # every known failure of the paste sits above them (a framework's own kernel compile, an install) it shows
    # no symptom the override cures: the finding is then advice (a note), not the failure's lead
    above = _problem_layers(ctx)
    if above and above <= {"framework", "packaging"}:
        return Match(ev + ["the failures shown are the framework's or the install's: " + ", ".join(sorted(above))],
                     fix=fix, community=True, severity="info")
    return Match(ev, fix=fix, community=True)


def _problem_layers(ctx: Context) -> set:
    """The layers of the known failures the paste shows (catalogue rows and Python signatures; information
    rows and the catch-alls, which have no layer of their own, aside)."""
    from ..detect import error_signatures

    out = set()
    for e in ctx.system.errors or []:
        sid = s(getattr(e, "signature", None))
        row = error_signatures.failure(sid)
        if row is not None and row.severity == "info":
            continue
        layer = error_signatures.failure_layer(sid)
        if layer:
            out.add(layer)
    return out


# ================================================================== PyTorch environments
@rule("torch-not-rocm")
def torch_not_rocm(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    # s8-heldp: outputs pasted for this tool that name no GPU of any vendor still describe the AMD
    # machine they were pasted for (a live machine without an AMD GPU is left alone)
    pasted_blind = s(getattr(ctx.system, "origin", None)) == "snapshot" and not list(ctx.system.gpus or [])
    if not (ctx.amd_present or ctx.rocm_installed or pasted_blind):
        return None
    bad = [v for v in ctx.envs if v.build in ("cuda", "cpu")]
    if not bad:
        return None
    ev = [f"{v.label}: torch {v.version or '?'} is a {v.build.upper()} build" +
          (f" (cuda {s(v.env.cuda)})" if s(v.env.cuda) else "") for v in bad]
    if pasted_blind and not (ctx.amd_present or ctx.rocm_installed):
        ev.append("the pasted outputs name no GPU; a CUDA or CPU build of torch cannot use an AMD GPU whatever it is")
    nv = [k for v in bad for k in v.env.packages if str(k).lower().startswith("nvidia-")]
    if nv:
        ev.append("NVIDIA runtime packages installed alongside: " + ", ".join(sorted(set(nv))[:5]))
    return Match(ev, data={"envs": [v.label for v in bad]})


@rule("guard-broken")
def guard_broken(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    ev, fixes = [], []
    for v in ctx.envs:
        pins = getattr(v.env, "guard", None) or {}
        pinned = s(pins.get("torch"))
        if not pins:
            continue
        where = s(v.env.path) or v.label
        if pinned and v.version and v.version != pinned:
            kind = f" (a {v.build.upper()} build)" if v.build in ("cuda", "cpu") else ""
            who = s(getattr(v.env, "torch_installer", None))
            ev.append(f"{where}: the guard pins torch=={pinned}, but torch {v.version}{kind} is installed"
                      + (f", by {who}" if who else ""))
            fixes.append(f"rocm-wizard --path torch-reinstall --venv {where} --torch {pinned}")
        if getattr(v.env, "guard_wired", None) is False:
            ev.append(f"{where}: rocm-wizard-guard.txt is there but the venv's pip.conf no longer names it: pip "
                      "installs in this venv are not guarded")
            if pinned:
                fixes.append(f"rocm-wizard --path torch-reinstall --venv {where} --torch {pinned}")
    if not ev:
        return None
    fix = None
    if fixes:
        fix = "Put the pinned build back and rewrite the guard:\n" + "\n".join(dict.fromkeys(fixes))
    return Match(ev, fix=fix, data={"commands": list(dict.fromkeys(fixes))})


@rule("wheel-missing-gfx")
def wheel_missing_gfx(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    known = [g for g in ctx.gpus if g.gfx]
    if not known:
        return None
    ov = _override_value(ctx)
    ov_gfx = overrides.gfx_of_value(ov) if ov else None
    ev = []
    for v in ctx.rocm_envs:
        if v.coverage is None:
            continue
        if any(g.gfx in v.coverage for g in known):
            continue  # at least one GPU is served; the mixed-GPU rule covers the rest
        if ov_gfx and ov_gfx in v.coverage:
            continue  # the (community) override is in effect; the override rules speak about it
        if all(g.gfx in v.library_gaps for g in known):
            continue  # on the arch list, missing in a bundled library: wheel-library-lacks-kernels
        have = ", ".join(sorted(v.coverage))
        ev.append(f"{v.label}: torch {v.version} ({v.coverage_source}: {have})")
        ev += [f"  lacks {g.gfx} for {g.label}" for g in known]
    return Match(ev) if ev else None


@rule("torch-bundles-userspace")
def torch_bundles(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.host_series:
        return None
    ev = []
    for v in ctx.rocm_envs:
        wheel_series = releases.series_of(v.wheel_rocm) if v.wheel_rocm else None
        if wheel_series and wheel_series != ctx.host_series:
            ev.append(f"{v.label}: torch {v.version} uses its bundled ROCm {wheel_series}; host ROCm is {ctx.host_rocm}")
    return Match(ev) if ev else None


@rule("triton-shadowed")
def triton_shadowed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    ev = [f"{v.label}: 'import triton' finds {s(v.env.triton_shadow)}" for v in ctx.envs if s(v.env.triton_shadow)]
    return Match(ev) if ev else None


def _pinned_triton(v) -> Optional[str]:
    """The Triton distribution torch itself pins in ``v``: its wheel's ``Requires-Dist`` (AMD's own
    builds pin ``triton`` with a ``+rocm`` local version, PyTorch's ``pytorch-triton-rocm`` or
    ``triton-rocm``), else the catalog's pin for that torch release; None when neither is known."""
    req = _requirement(v)
    if not req:
        return None
    name = re.split(r"[<>=!~ ;\[]", req.strip(), 1)[0]
    return re.sub(r"[-_.]+", "-", name.lower()) or None


@rule("triton-duplicate")
def triton_duplicate(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """Two Triton distributions share one ``triton/`` directory.  The one torch's wheel pins
    (``Requires-Dist``) is torch's own and is kept; only a second one conflicts.  In a vendor
    container (vLLM, SGLang) the image's own Triton is intended (vendor-triton-intended)."""
    from ..catalog import compat

    if compat.vendor_triton_containers(ctx.error_text):
        return None
    ev = []
    for v in ctx.envs:
        dists = [d for d in TRITON_DISTS if d in v.triton]
        if len(dists) < 2:
            continue
        pinned = _pinned_triton(v)
        others = [d for d in dists if d != pinned]
        if pinned in dists:
            ev.append(f"{v.label}: {', '.join(f'{d}=={v.triton[d]}' for d in others)} beside {pinned}=={v.triton[pinned]}, "
                      f"the Triton torch {v.version or ''} itself requires ({_requirement(v)}): keep {pinned}, remove "
                      f"{' and '.join(others)}")
        else:
            ev.append(f"{v.label}: " + ", ".join(f"{d}=={v.triton[d]}" for d in dists)
                      + (f" (torch requires {_requirement(v)}, which is none of them)" if pinned else ""))
    if not ev:
        return None
    return Match(ev)


def _requirement(v) -> Optional[str]:
    req = s(v.env.triton_required)
    if req:
        return req
    if v.index:  # a download.pytorch.org wheel: the catalog knows its pin
        return wheels.triton_requirement(v.version)
    return None


# a plain pin, "NAME==VERSION" (the catalogue's and most wheels' own Requires-Dist): read without
# packaging.requirements, whose import (markers, tags, its parser: about 30 ms) costs more than the
# rule; its name and specifier are what Requirement gives for it.  Anything else goes to Requirement.
_PLAIN_PIN = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)==(\d+(?:\.\d+)*(?:\+[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*)?)")


class _Pin:
    __slots__ = ("name", "specifier")

    def __init__(self, name: str, specifier: Any) -> None:
        self.name = name
        self.specifier = specifier


def _pin(text: str) -> Optional[Any]:
    """``packaging.requirements.Requirement(text)`` (its ``name`` and ``specifier``), None where it
    is not a valid requirement."""
    m = _PLAIN_PIN.fullmatch(text)
    if m:
        from packaging.specifiers import SpecifierSet

        return _Pin(m.group(1), SpecifierSet("==" + m.group(2)))
    from packaging.requirements import InvalidRequirement, Requirement  # costly: only when needed

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


@rule("triton-pin-mismatch")
def triton_pin_mismatch(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import compat

    if compat.vendor_triton_containers(ctx.error_text):
        return None  # a vendor container's own Triton is intended (vendor-triton-intended)
    ev = []
    for v in ctx.rocm_envs:
        req_text = _requirement(v)
        if not req_text or not v.triton:
            continue
        req = _pin(req_text.split(";")[0].strip())
        if req is None:
            continue
        name = re.sub(r"[-_.]+", "-", req.name.lower())
        have = v.triton.get(name)
        if have is None:
            ev.append(f"{v.label}: torch {v.version} requires {req_text}, but it is not installed "
                      f"(installed: {', '.join(f'{k}=={x}' for k, x in v.triton.items())})")
            continue
        hv = parse_version(have)
        if hv is not None and req.specifier and not req.specifier.contains(hv, prereleases=True):
            ev.append(f"{v.label}: torch {v.version} requires {req_text}; installed {name}=={have}")
    return Match(ev) if ev else None


_TORCH_TREE = re.compile(r"(^|/)(py)?torch(-[\w.]+)?/?$|/pytorch(/|$)", re.I)


@rule("two-torch-builds")
def two_torch_builds(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    ev = []
    pp = [p for p in ctx.env.get("PYTHONPATH", "").split(":") if p.strip()]
    trees = [p for p in pp if _TORCH_TREE.search(p.strip())]
    if trees:
        ev.append("PYTHONPATH contains a torch tree: " + ", ".join(trees))
    ev += ctx.error_hits(meta.compiled, meta.error_signatures)
    return Match(ev) if ev else None


@rule("user-site-torch")
def user_site_torch(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    def user_site(v) -> bool:
        text = (s(v.env.site_packages) or s(v.env.path))
        return "/.local/lib/python" in text

    users = [v for v in ctx.envs if user_site(v) and v.version]
    others = [v for v in ctx.envs if not user_site(v) and v.version]
    if not users or not others:
        return None
    ev = [f"user site: {v.label} has torch {v.version}" for v in users]
    ev += [f"also: {v.label} has torch {v.version}" for v in others[:4]]
    return Match(ev)


# ================================================================== errors in pasted logs
@rule("triton-language-error")
def triton_language(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = ctx.error_hits(meta.compiled, meta.error_signatures)
    if not hits:
        return None
    ev = list(hits)
    causes = []
    for v in ctx.envs:
        if s(v.env.triton_shadow):
            causes.append(f"{v.label}: stray triton directory {s(v.env.triton_shadow)}")
        dists = [d for d in TRITON_DISTS if d in v.triton]
        if len(dists) > 1:
            causes.append(f"{v.label}: several triton distributions ({', '.join(dists)})")
        if v.build in ("cuda", "cpu"):
            causes.append(f"{v.label}: torch {v.version} is a {v.build} build")
        req = _requirement(v)
        if req:
            ev.append(f"{v.label}: torch {v.version} requires {req}; installed: "
                      f"{', '.join(f'{k}=={x}' for k, x in v.triton.items()) or 'none seen'}")
    ev += [f"likely cause: {c}" for c in causes]
    if not causes:
        ev.append("no cause visible in the detected environments: check for a 'triton' folder in the directory the "
                  "program runs from")
    return Match(ev)


def _error_rule(ctx: Context, meta: RuleMeta) -> Optional[List[str]]:
    hits = ctx.error_hits(meta.compiled, meta.error_signatures)
    return hits or None


@rule("hipblaslt-unsupported-warning")
def hipblaslt_warning(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _error_rule(ctx, meta)
    return Match(hits) if hits else None


@rule("hipblaslt-hard-error")
def hipblaslt_hard(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _error_rule(ctx, meta)
    if not hits:
        return None
    return Match(hits + [f"{v.label}: torch {v.version}" for v in ctx.rocm_envs])


@rule("hipblas-alloc-failed")
def hipblas_alloc(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _error_rule(ctx, meta)
    if not hits:
        return None
    ev = list(hits)
    pref = ctx.env.get("TORCH_BLAS_PREFER_HIPBLASLT")
    if pref is not None:
        ev.append(f"TORCH_BLAS_PREFER_HIPBLASLT={pref} is set: it chooses between hipBLASLt and hipBLAS and cannot "
                  f"cure a hipBLAS allocation failure")
    for v in ctx.rocm_envs:
        ev.append(f"{v.label}: torch {v.version} (bundles ROCm {v.wheel_rocm or '?'})")
    if ctx.host_rocm:
        ev.append(f"host ROCm {ctx.host_rocm} (not used by a pip wheel's torch)")
    igpus = [g for g in ctx.gpus if g.igpu]
    if igpus and len(ctx.gpus) > 1 and not ctx.visible_devices:
        ev.append("an integrated GPU is visible to ROCm: " + ", ".join(g.label for g in igpus))
    return Match(ev)


@rule("hipblas-not-supported")
def hipblas_not_supported(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _error_rule(ctx, meta)
    if not hits:
        return None
    ev = list(hits)
    for v in ctx.rocm_envs:
        since = str(meta.params.get("since_torch", ""))
        tv = parse_version(wheels.public_version(v.version))
        if tv is not None and since and tv < parse_version(since):
            ev.append(f"{v.label}: torch {v.version} predates the {since} architecture check; TORCH_BLAS_PREFER_HIPBLASLT "
                      f"is honoured from {since}")
        else:
            ev.append(f"{v.label}: torch {v.version}")
    return Match(ev)


# (s10-heldx) RCCL reports HIP's error for its own collective kernels: a line that names RCCL, its WARN or one of
# its calls (ncclAllReduce, ncclCommInitRank...) is the collective library's missing code, not the program's;
# a framework wheel with the GPU's kernels is no fix for it (ROCm/rccl#2189: one process driving gfx1200 and
# gfx1201, RCCL's first all-reduce fails with 'invalid device function' on one of them).
_RCCL_LINE = re.compile(r"\bNCCL WARN\b|\bRCCL\b|\bnccl(?:AllReduce|AllGather|ReduceScatter|Reduce|Broadcast|"
                        r"AllToAll|Send|Recv|GroupEnd|CommInit\w*)\b")


_BUNDLE_LINE_CUT = re.compile(r"Cannot find CO in the bundle\s*$")
# (s12-heldat) CLR's "Cannot find CO in the bundle <file> for ISA: <isa>" (ROCm/clr hipamd/src/hip_fatbin.cpp) whose
# bundle is a ROCm library's shared object (the path may wrap onto the next line)
_LIBRARY_BUNDLE_NO_CO = re.compile(
    r"Cannot find CO in the bundle\W{1,16}\S*(?:lib(?:rocblas|hipblaslt|hipblas|MIOpen|rocsolver|rocsparse|hipsparse|hipsparselt"
    r"|rocfft|hipfft|rccl|rocrand|hiprand)|(?:rocblas|hipblaslt|MIOpen|rocsolver|rocsparse|rocfft|rccl))[\w.-]*\.(?:so|dll)")


# (s15-heldcz) Composable Kernel's HIP check (ROCm/composable_kernel include/ck_tile/host/hip_check_error.hpp and
# include/ck/host_utility/hip_check_error.hpp: HIP_CHECK_ERROR throws "HIP Function Failed (<__FILE__>,<__LINE__>) <HIP
# error string>", hip_check_error "HIP runtime error: <string>. <file>: <line>in function: ...") naming one of CK's
# own files (its kernel launch, ck_tile/host/kernel_launch_hip.hpp): the CK kernels compiled into an extension
# (xformers, flash-attention, aiter) carry no code for the GPU.  Other projects copy the macro: a file outside CK
# is the program's own launch and stays HIP's reading.
_CK_FILE = r"[^\s(),]*?(?:composable_kernel|ck_tile[\\/]|[\\/]include[\\/]ck[\\/])[^\s(),]*"
_CK_CHECK_LINE = re.compile(r"HIP Function Failed \(" + _CK_FILE + r",\s*\d+\)|HIP runtime error: [^\n]*?\.\s+"
                            + _CK_FILE + r": \d+")


# (s19-libmore) rocThrust's thrust::system_error for a failed HIP call of one of its algorithms (ROCm/rocThrust
# thrust/system/hip/detail/util.h throw_on_error, what() "<msg>: <hipErrorName>: <hipErrorString>"; row
# lm_rocthrust_system_error_hip): the library's report, its kernels built into the program that calls it
_ROCTHRUST_LINE = re.compile(r"(?<![\w.])[a-z][a-z_]{1,40}:? failed(?: on (?:1st|2nd) step| to synchronize)?: "
                             r"hipError(?:InvalidDeviceFunction|NoBinaryForGpu|InvalidImage): [a-z]")


# (s23-ollama3win, set HC: 3104) rocBLAS logs the HIP error of its own kernel launch before it returns a status
# (ROCm/rocBLAS library/src/utility.cpp, rocblas_internal_convert_hip_to_rocblas_status_and_log: "rocBLAS error from
# hip error code: '<hipGetErrorName>':<code>"; catalogue row rocblas_hip_error_logged).  With a code-object error
# there, the kernel without code for the GPU is rocBLAS's (ggml's SOLVE_TRI handed to rocBLAS's batched strsm:
# ggml-org/llama.cpp#19972), and the application's 'invalid device function' after it is the echo of that call.
_ROCBLAS_CODE_OBJECT_LOG = r"rocBLAS error from hip error code: 'hipError(?:InvalidDeviceFunction|NoBinaryForGpu|InvalidImage)'"


def _library_lacks_target(ctx: Context, hits: List[str], fix: str) -> Match:
    """no-binary-for-gpu placed at the libraries: the lines, each GPU's target, the library's fix."""
    return Match(list(hits) + [f"{g.label}: {g.gfx}" for g in ctx.gpus or [] if g.gfx], fix=fix,
                 data={"layer": "libraries"})


@rule("no-binary-for-gpu")
def no_binary(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _error_rule(ctx, meta)
    if not hits:
        return None
    if all(_RCCL_LINE.search(h) for h in hits):
        return _library_lacks_target(ctx, hits, (
            "The collective library (RCCL) has no code for one of the GPUs it drives: use an RCCL (ROCm release, or "
            "the framework's bundled one) built for every gfx target in the process; with GPUs of two targets in one "
            "process, try one target per process (HIP_VISIBLE_DEVICES) and report the RCCL version with "
            "NCCL_DEBUG=INFO."))
    if all(_ROCTHRUST_LINE.search(h) for h in hits):
        return _library_lacks_target(ctx, hits, (
            "rocThrust (header-only, over rocPRIM) runs kernels compiled into the program or extension that calls it, "
            "and that build has no code for this GPU's target: rebuild it for the target (--offload-arch / "
            "GPU_TARGETS / AMDGPU_TARGETS / PYTORCH_ROCM_ARCH) or use a build or image made for this GPU."))
    if all(_CK_CHECK_LINE.search(h) for h in hits):
        return _library_lacks_target(ctx, hits, (
            "The Composable Kernel (CK) kernels built into the extension named in the path (xformers, "
            "flash-attention, aiter...) have no code for this GPU's target: use a build of that extension compiled "
            "for the target (its GPU_ARCHS / PYTORCH_ROCM_ARCH list), or turn its CK path off (xformers: run without "
            "--xformers; PyTorch's SDPA instead) where CK has no kernels for the GPU family."))
    if ctx.error_search(_ROCBLAS_CODE_OBJECT_LOG):
        return _library_lacks_target(ctx, hits, (
            "rocBLAS logged that its own kernel launch found no code for this GPU: the rocBLAS build the program "
            "loads (a ROCm release, the library bundled with the application, a TheRock build) lacks the target for "
            "this routine. Use a rocBLAS whose kernels list the GPU's gfx target (or an application release that "
            "ships one), and remove an HSA_OVERRIDE_GFX_VERSION that names another target."))
    # (a wrapped line is also sighted as its first half alone, "... Cannot find CO in the bundle": the same line)
    if any(_LIBRARY_BUNDLE_NO_CO.search(h) for h in hits) and all(
            _LIBRARY_BUNDLE_NO_CO.search(h) or _BUNDLE_LINE_CUT.search(h) for h in hits):
        # (s12-heldat) CLR's "Cannot find CO in the bundle <file> for ISA: <isa>" naming a ROCm library's file: that
        # library's build lacks the target (detect/failures.toml s12at_rocm_library_bundle_no_co), whatever the program
        return _library_lacks_target(ctx, hits, (
            "The ROCm library named has no code for this GPU's target: use a build of it (a ROCm release, "
            "distribution package or community build) that lists the target, or, where the family's ISA is "
            "identical, HSA_OVERRIDE_GFX_VERSION to a target it carries (community setting)."))
    ev = list(hits)
    named = ctx.error_search(r"gfx[0-9]{2,4}[0-9a-f]?")
    gfx = support.normalize_gfx(named) if named else None
    if gfx and gfx not in ctx.gfx_targets:
        ev.append(f"the error names {gfx}")
    from ..resolve.facts import vllm_line

    vllm = vllm_line(ctx.system, ctx.error_text)
    if vllm:  # vLLM's own build: its torch and kernels come with it, a torch wheel is no fix
        from ..catalog import docker as docker_cat

        v = docker_cat.vllm_gpus()
        ev.append(f"the work runs in a vLLM image or build: {vllm}")
        for g in ctx.gpus or []:
            if g.gfx:
                ev.append(f"{g.label}: " + ("one of vLLM's ROCm targets" if g.gfx in v.gpus else
                                            f"not one of vLLM's ROCm targets ({', '.join(v.gpus)})"))
        return Match(ev, fix=("Use a vLLM build that includes the target: AMD's vLLM image for this GPU (see ways "
                              "out) or vLLM built from source for it. vLLM's torch is its own: a pip torch "
                              "reinstall under vLLM is no fix."), data={"path": "docker"})
    for g in ctx.gpus or []:
        if g.gfx:
            idx = support.wheel_indexes(g.gfx)
            ev.append(f"{g.label}: " + (f"wheels with its kernels: {', '.join(i.name for i in idx)}" if idx
                                        else "no download.pytorch.org index carries its kernels"))
    if gfx and not ctx.gpus:
        idx = support.wheel_indexes(gfx)
        ev.append(f"{gfx}: " + (f"wheels with its kernels: {', '.join(i.name for i in idx)}" if idx
                                else "no download.pytorch.org index carries its kernels"))
    return Match(ev)


# HSA statuses that name a code object the runtime's loader refused (ROCr's hsa_status_string,
# rocr-runtime core/runtime/hsa.cpp): the program's device code is at fault, the failure HIP reports
# as hipErrorInvalidImage ('device kernel image is invalid', catalogue row hip_invalid_image).
_CODE_OBJECT_STATUSES = frozenset({"HSA_STATUS_ERROR_INVALID_CODE_OBJECT"})
_HSA_STATUS = re.compile(r"HSA_STATUS_ERROR_[A-Z_]+")
# HSA statuses a queue reports when a kernel running on it faulted (ROCr's hsa_status_string and the queue error
# callback, 'Queue error - HSA_STATUS_ERROR_...'): the runtime reports the kernel's failure; when the paste names the
# faulting kernel as one rocBLAS/hipBLASLt's Tensile generated (its 'Cijk_<A>_<B>_...' kernel names, Tensile's
# Contraction naming, or 'Tensile GEMM/kernel'), the fault is in the library's kernel (s11-heldao: 1100, 1101)
_KERNEL_FAULT_STATUSES = frozenset({"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", "HSA_STATUS_ERROR_MEMORY_FAULT",
                                    "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "HSA_STATUS_ERROR_EXCEPTION"})
_TENSILE_KERNEL = re.compile(r"\bCijk_[A-Za-z]{2,8}_[A-Za-z]{2,8}_\w+|\bTensile\b[^\n]{0,40}?\b(?:GEMMs?|kernels?)\b"
                             r"|\b(?:GEMM|kernel)s?\b[^\n]{0,40}?\bTensile\b(?!\s*host)", re.I)


def _tensile_kernel_line(ctx: Context) -> Optional[str]:
    for text, where, _sig in ctx.error_lines:  # the pasted lines and the detected sightings (titles included)
        if _TENSILE_KERNEL.search(text):
            return f"{_clip(text)} ({where})"
    return None


@rule("hsa-runtime-error")
def hsa_runtime(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _error_rule(ctx, meta)
    if not hits:
        return None
    joined = " ".join(hits)
    statuses = set(_HSA_STATUS.findall(joined))
    low = joined.lower()
    at_start = "call returned" in low or "hsa api call failure" in low  # rocminfo's own call: the runtime's objects
    if statuses and statuses <= _CODE_OBJECT_STATUSES and not at_start and not ctx.hsa_override:
        # s11-heldaj (1005): the runtime started and loaded the program, then refused its code object; without an
        # HSA_OVERRIDE_GFX_VERSION (the override's runtime layer) the fault is in how the device code was built
        return Match(hits + _gpu_lines(ctx),
                     fix="Rebuild the program (or get a build) with code objects for this GPU's gfx target and a "
                         "compiler of the installed ROCm release, in a Release build; if it came pre-built, use a "
                         "build for this ROCm and GPU family. AMD_LOG_LEVEL=3 names the code object refused.",
                     data={"layer": "hip"})
    if statuses and statuses <= _KERNEL_FAULT_STATUSES and not at_start:
        named = _tensile_kernel_line(ctx)
        if named:
            return Match(hits + [f"the faulting kernel is a Tensile GEMM of rocBLAS/hipBLASLt: {named}"] + _gpu_lines(ctx),
                         fix="The GEMM kernel rocBLAS/hipBLASLt picked for this GPU, data type and shape faults: route "
                             "the GEMMs to the other library while it is fixed (TORCH_BLAS_PREFER_HIPBLASLT=0 or =1 for "
                             "PyTorch, ROCBLAS_USE_HIPBLASLT=0), try the next or previous ROCm release of the libraries, "
                             "and report the kernel name (AMD_LOG_LEVEL=3 or the ShaderName the fault prints) with the "
                             "shape to ROCm/rocm-libraries.",
                         data={"layer": "libraries"})
    frames = [text for text, _w, sig in ctx.error_lines if sig in _KERNEL_LIBRARY_FRAMES]
    if statuses and statuses <= _LIBRARY_CALL_FAULT_STATUSES and frames and not at_start and not ctx.hsa_override:
        # s11-heldam (1060): a kernel's exception on the device (the queue aborted with HSA_STATUS_ERROR_EXCEPTION or
        # a memory aperture violation) while the paste's traceback is inside the workload's GPU kernel library (a
        # frame of AITER): the runtime reports the library kernel's fault, as the memory-access-fault rule says
        return Match(hits + [f"raised inside the kernel library's call: {_clip_text(frames[0])}"],
                     fix="Report the failure with the library call shown to its project (ROCm/aiter for AITER), with the "
                         "model and the serving flags; meanwhile run without that library path (e.g. VLLM_ROCM_USE_AITER=0, "
                         "or another attention backend or tensor-parallel size). AMD_SERIALIZE_KERNEL=3 makes the "
                         "failing kernel's own call report it.",
                     data={"layer": "framework"})
    return Match(hits)


# a kernel faulting on the device inside a kernel library's call, as the runtime's queue reports it (s11-heldam)
_LIBRARY_CALL_FAULT_STATUSES = frozenset({"HSA_STATUS_ERROR_EXCEPTION", "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"})


# ================================================================== failures that are not version skew (issue 13)
def _signature_hits(ctx: Context, meta: RuleMeta) -> Optional[List[str]]:
    """Lines of the detected sightings and of the pasted error text that carry one of the rule's
    error signatures (the patterns of detect/error_signatures.py, so both paths agree)."""
    hits = ctx.error_hits(meta.compiled, meta.error_signatures)
    for sid, line in _scanned(ctx):
        text = f"error text: {_clip(line)}"
        if sid in meta.error_signatures and not any(_clip(line) in h for h in hits):
            hits.append(text)
    return hits or None


def _scanned(ctx: Context) -> List[tuple]:
    """(signature id, line) of every known error in the pasted error text (scanned once)."""
    if not ctx.error_text:
        return []
    scanned = getattr(ctx, "_scanned_error_text", None)
    if scanned is None:
        from ..detect import error_signatures

        scanned = [(sig.id, line) for sig, line in error_signatures.scan(ctx.error_text)]
        setattr(ctx, "_scanned_error_text", scanned)
    return scanned

def _with_gpus(ctx: Context, hits: List[str]) -> List[str]:
    return hits + _gpu_lines(ctx)


def _hsa_follow_up(ctx: Context) -> List[str]:
    """The runtime error this failure shows up as, when the paste has it too."""
    for text, where, sig in ctx.error_lines:
        if sig in ("hsa_out_of_resources", "no_gpu_agent", "amdgpu_not_loaded", "kfd_open_failed"):
            return [f"what ROCm reports because of it: {_clip(text)} ({where})"]
    return []


# the catalogue's other lines of a firmware file amdgpu asked for and did not get: the loader's "Direct firmware load for
# amdgpu/<file> failed", an IP block's "Failed to load firmware", linux-libre's refusal of a non-free blob (s19-fwblobs,
# s20-forums)
_FIRMWARE_NOT_LOADED = frozenset({"dv_amdgpu_firmware_file_missing", "dv_amdgpu_ip_block_firmware_load_failed",
                                  "ea_linux_libre_nonfree_firmware_rejected"})
_RING_TEST_FAILED = re.compile(r"\bring \S+ test failed", re.I)
_GPU_RESET_LINE = r"\bGPU reset begin\b|\bGPU reset\(\d+\)|\bGPU reset succeeded\b|\bamdgpu_device_gpu_recover\b|\bGPU recovery\b"


@rule("amdgpu-init-failed")
def amdgpu_init_failed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    if all(_RING_TEST_FAILED.search(h) for h in hits) and ctx.error_search(_GPU_RESET_LINE):
        # s19-creative (2330): amdgpu runs its ring tests (amdgpu_ring.c, amdgpu_ring_test_helper: "ring %s test failed
        # (%d)") at init and again while a GPU reset tears the engines down and brings them back (amdgpu_device.c,
        # amdgpu_device_gpu_recover -> the IP blocks' hw_fini/hw_init; gfx_v10_0_hw_fini's KIQ unmapping): with a reset
        # in the text and no other init-failure line, the failed ring test is the reset failing, which gpu-hang-reset
        # reports, not the GPU failing to start
        return None
    ev = _with_gpus(ctx, hits) + _hsa_follow_up(ctx)
    errno = ctx.error_search(r"failed with error -\d+")
    if errno and errno.endswith("-12"):
        return Match(ev, fix="Error -12 is ENOMEM at probe: the GPU's memory BARs could not be mapped. Enable Above 4G "
                             "Decoding (and Resizable BAR) in the firmware setup, then check dmesg again.")
    sigs = {sig for _t, _w, sig in ctx.error_lines}
    if "amdgpu_firmware_missing" in sigs and "amdgpu_init_failed" not in sigs:
        # a firmware file the driver asked for is missing, but no line says the GPU failed to start:
        # amdgpu asks for some files it can do without (the PSP's TA/ASD/DTM applications), so this
        # is the firmware layer's warning, not an init failure
        return Match(ev + ["no line of the paste says the GPU failed to initialise (no 'Fatal error during GPU "
                           "init' or failed IP block): the GPU may work without this file"],
                     fix="Install a newer linux-firmware (or the firmware that comes with amdgpu-dkms) that has "
                         "this GPU's files; if the GPU works, check dmesg for 'Fatal error during GPU init' first.",
                     severity="warning", data={"layer": "firmware"})
    if "amdgpu_firmware_missing" in sigs or sigs & _FIRMWARE_NOT_LOADED:
        # s20: the GPU failed to start and the driver named a firmware file it could not load: the init failure sits at
        # the firmware layer, as a failed discovery table's or a stuck VBIOS table's does below (the catalogue's
        # missing-firmware rows say firmware too; fixture 204)
        return Match(ev, fix="Install a newer linux-firmware (or the firmware that comes with amdgpu-dkms) that has "
                             "this GPU's files, then reboot.",
                     data={"layer": "firmware"})
    discovery = _firmware_discovery_lines(ctx)
    if discovery:
        # s15-heldcy (1981): the init failed because the IP discovery table the GPU's firmware (IFWI) leaves in VRAM
        # at power-on fails its signature or checksum check (amdgpu_discovery.c): amdgpu cannot enumerate the IP
        # blocks, so the failure sits in the firmware, as the discovery rows' own layer says (533 without this line)
        return Match(ev + [f"the cause amdgpu names: {discovery[0]}"],
                     fix="Power-cycle the node fully (AC off, not a warm reboot); if it persists, check and update the "
                         "GPU/board firmware (IFWI, VBIOS) with the system vendor, and compare another GPU of the node.",
                     data={"layer": "firmware"})
    if "atombios_stuck" in sigs or any("atombios stuck" in h.lower() for h in hits):
        # s10-heldv: the driver's AtomBIOS interpreter (atom.c) ran one of the VBIOS's command tables while posting
        # the GPU and it never finished: the init fails in the card's own VBIOS code (the catalogue row's layer)
        return Match(ev, fix="On a hypervisor: reset the GPU before the VM starts (vendor-reset for consumer cards, a "
                             "host reboot otherwise) and pass the card's own ROM; on bare metal: reflash the board's "
                             "original VBIOS or test the card in another machine.",
                     data={"layer": "firmware"})
    return Match(ev)


@rule("amdgpu-disabled-by-cmdline")
def amdgpu_disabled_by_cmdline(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = _with_gpus(ctx, hits) + _hsa_follow_up(ctx)
    if ctx.rocm.amdgpu_loaded is True and not any("nomodeset" in h or "modeset=0" in h for h in hits):
        # a blacklist with amdgpu loaded anyway: loaded later on purpose (AMD's MI300X guide does this)
        ev.append("amdgpu is loaded now" + _src(ctx.rocm, "amdgpu_loaded") + ": it was loaded after boot")
        return Match(ev, severity="info")
    return Match(ev)


# the catalogue rows of AMD's SR-IOV host driver (GIM, amd/MxGPU-Virtualization) logging on the host
_SRIOV_HOST_SIGNATURES = frozenset({"kernel_gim_vf_limit", "bn_gim_libgv_error"})


@rule("vm-gpu-unsupported")
def vm_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = _with_gpus(ctx, hits) + _hsa_follow_up(ctx)
    if any(sig in _SRIOV_HOST_SIGNATURES for _t, _w, sig in ctx.error_lines):
        # s14-heldbn: the paste holds the SR-IOV host driver's own log (AMD's GIM, "gim error libgv: ..."): the outputs
        # are the hypervisor host's, where the virtual functions are made, not a guest's; the host driver's error lines
        # are the failure and the virtualisation is their setting
        return Match(ev + ["the paste holds the SR-IOV host driver's (GIM's) own log: these outputs are the hypervisor "
                           "host's, and its driver's errors are the failure"], severity="info")
    virtual_gpu = any(re.search(r"MxGPU|vkms|virtual display|NV\d+as", h, re.I) for h in hits)
    if not virtual_gpu and not ctx.gpus:
        ev.append("no AMD GPU is visible in this virtual machine: it was not passed through")
    elif not virtual_gpu:
        # a hypervisor with a real GPU inside: whole-GPU passthrough can be supported
        return Match(ev, severity="warning")
    return Match(ev)


@rule("pcie-atomics-missing")
def pcie_atomics(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = list(hits)
    for text, _where, _sig in ctx.error_lines:
        m = re.search(r"skipped device 1002:([0-9a-f]{4})", text, re.I)
        entry = gpu_table.lookup_pci(m.group(1)) if m else None
        if entry is not None:
            line = f"1002:{entry.device_id} is {entry.chip_family} ({entry.gfx_target})"
            if line not in ev:
                ev.append(line)
    if any("hostcall not supported" in h.lower() for h in hits):
        # CLR's own check before a kernel that needs a hostcall buffer (device printf/malloc/assert)
        ev.append("HIP refuses kernels that need hostcall (device printf, malloc, assert) without PCIe atomics: "
                  "their launch fails with hipErrorIllegalState ('AQL dispatch failed')")
    return Match(ev + _hsa_follow_up(ctx))


@rule("gpu-hang-reset")
def gpu_hang_reset(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(_with_gpus(ctx, hits)) if hits else None


@rule("dkms-build-failed")
def dkms_build_failed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = list(hits)
    failed = ctx.error_search(r"(?<=module build on kernel: )\S+")
    running = s(ctx.os.kernel)
    if failed and running:
        ev.append(f"running kernel {running}" + (" (the one that failed)" if running == failed else
                                                 f"; the build failed for {failed}"))
    return Match(ev)


@rule("secure-boot-module-rejected")
def secure_boot(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(hits) if hits else None


@rule("gpu-off-bus")
def gpu_off_bus(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(_with_gpus(ctx, hits)) if hits else None


@rule("rocminfo-crashed")
def rocminfo_crashed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    return Match(_with_gpus(ctx, hits))


@rule("hipblaslt-library-missing")
def hipblaslt_library_missing(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = list(hits)
    for v in ctx.rocm_envs:
        ev.append(f"{v.label}: torch {v.version}")
    for g in ctx.gpus:
        if g.gfx:
            ev.append(f"{g.label}")
    pref = ctx.env.get("TORCH_BLAS_PREFER_HIPBLASLT")
    if pref is not None:
        ev.append(f"TORCH_BLAS_PREFER_HIPBLASLT={pref} is set")
    ld = ctx.env.get("LD_LIBRARY_PATH", "")
    if "/opt/rocm" in ld:
        ev.append(f"LD_LIBRARY_PATH puts a system ROCm first: {ld}")
    if ctx.error_search(_ROCBLAS_TENSILE_FALLBACK):
        # rocBLAS tried hipBLASLt, and on its failure ran the same GEMM with its own Tensile kernels, saying so once
        # (ROCm/rocBLAS library/src/tensile_host.cpp: print_once("rocBLAS warning: hipBlasLT failed, falling back
        # to tensile. "), after 'hipBlasLT exception encountered.' for an exception): the missing hipBLASLt library
        # cost speed, not the call, so a failure later in the paste is not this one's (set BE, 1423)
        ev.append("rocBLAS fell back to its Tensile kernels ('hipBlasLT failed, falling back to tensile'): "
                  "the call did not fail here")
        return Match(ev, severity="warning")
    return Match(ev)


_ROCBLAS_TENSILE_FALLBACK = r"hipBlasLT failed, falling back to tensile"


@rule("smi-sensors-implausible")
def smi_implausible(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(hits) if hits else None


@rule("smi-sensors-unavailable")
def smi_unavailable(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(_with_gpus(ctx, hits)) if hits else None


@rule("memory-access-fault")
def memory_access_fault(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = _with_gpus(ctx, hits)
    override = ctx.env.get("HSA_OVERRIDE_GFX_VERSION")
    if override:
        ev.append(f"HSA_OVERRIDE_GFX_VERSION={override} is set: code for another target runs on this GPU")
        return Match(ev, fix="Unset HSA_OVERRIDE_GFX_VERSION (or set it to this GPU's own version) and run again.")
    if any("page fault" in text for text, _w, _s in ctx.error_lines):
        ev.append("the kernel log shows a GPU page fault at the same time")
    begun = _compile_window_open(ctx)
    if begun:
        # s14-heldbz: the fault came during onnxruntime's MIGraphX compile (see _compile_window_faults)
        ev.append(f"the GPU faulted during onnxruntime's MIGraphX compile ({_clip_text(begun)} and no 'Model Compile: "
                  "Complete'): a kernel MIGraphX built or benchmarked for this graph and input shape")
        return Match(ev, fix="Pin the model's input shapes so MIGraphX compiles once (a shape that compiled keeps "
                             "working), try another MIGraphX/ROCm release, and report the model and the input shape to "
                             "ROCm/AMDMIGraphX with these lines.",
                     data={"layer": "libraries"})
    frames = [text for text, _w, sig in ctx.error_lines if sig in _KERNEL_LIBRARY_FRAMES]
    if not frames and _hip_error_only(ctx, meta):
        # s14-heldbl: only HIP's error code for the fault is shown (hipErrorIllegalAddress, ROCm/clr
        # hipamd/src/hip_error.cpp: "an illegal memory access was encountered"), as the program that launched the
        # kernel prints it from its own HIP error check (ggml's "ROCm error: %s", ggml-cuda.cu ggml_cuda_error;
        # torch's "HIP error: %s", c10/hip): the faulting kernel is that program's, so the fault sits at its layer
        # (the corpus's 930, 1060, 1540); ROCr's own "Memory access fault by GPU node-N" line keeps it at runtime
        ev.append("HIP returned the fault to the program as an error code (hipErrorIllegalAddress): a kernel the "
                  "program launched read or wrote memory it does not own")
        return Match(ev, fix="Run again with AMD_SERIALIZE_KERNEL=3 (and HIP_LAUNCH_BLOCKING=1) so the error names "
                             "the kernel that faulted; lower the context, batch or model size if the fault follows "
                             "them; update the program and report the fault upstream with the lines shown.",
                     data={"layer": "framework"})
    if frames:
        # the paste names the call of the workload's GPU kernel library that was running when the runtime
        # aborted (a traceback or call-site frame of AITER): the fault is that library's, not the runtime's
        # (ROCm/aiter#2821: a sparse-MLA decode with no kernel for its head ratio reading a null pointer)
        ev.append(f"raised inside the kernel library's call: {_clip_text(frames[0])}")
        return Match(ev, fix="Report the fault with the library call shown to its project (ROCm/aiter for AITER), with "
                             "the model and the serving flags; meanwhile run without that library path (e.g. "
                             "VLLM_ROCM_USE_AITER=0, or another attention backend or tensor-parallel size).",
                     data={"layer": "framework"})
    return Match(ev)


# catalogue rows naming a frame of a workload's GPU kernel library (doctor's memory-access-fault rule)
_KERNEL_LIBRARY_FRAMES = ("s11am_aiter_call_frame",)

# the fault as HIP's error code (the catalogue's hip_illegal_address), not ROCr's or the offload plugin's own report
_HIP_FAULT_CODE_ROWS = frozenset({"hip_illegal_address"})


def _hip_error_only(ctx: Context, meta: RuleMeta) -> bool:
    """Whether every line the memory-access-fault rule read is HIP's error code for the fault."""
    sigs = {s(getattr(e, "signature", None)) for e in ctx.system.errors or []}
    sigs |= {sid for sid, _line in _scanned(ctx)}
    sigs &= set(meta.error_signatures)
    return bool(sigs) and sigs <= _HIP_FAULT_CODE_ROWS


def _clip_text(text: str, n: int = 160) -> str:
    text = text.strip()
    return text if len(text) <= n else text[: n - 1] + "\u2026"


@rule("miopen-cache-error")
def miopen_cache(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(hits) if hits else None


@rule("lds-limit-exceeded")
def lds_limit(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(_with_gpus(ctx, hits)) if hits else None


@rule("invalid-device")
def invalid_device(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = _with_gpus(ctx, hits)
    ev += [f"{k}={v}" for k, v in ctx.visible_devices.items()]
    if any(re.search(r"hipGetDeviceCount|hipInit|NumHipDevices", h) for h in hits):
        ev.append("raised while HIP counted the GPUs at start-up: it found none it can use")
        return Match(ev, fix="Run rocminfo as the same user (in the same container): it must list the GPU as an agent. "
                             "If it does not: add the user to the render and video groups (a container needs "
                             "--device=/dev/kfd --device=/dev/dri), and check that the installed ROCm release (or the "
                             "image's) supports this GPU.",
                     # what fails is the runtime finding a usable GPU (groups, devices, the release's GPU list),
                     # as the catalogue's torch_hip_device_count_error row says; not a HIP call of the program
                     data={"layer": "runtime"})
    return Match(ev)


@rule("iommu-p2p-settings")
def iommu_p2p(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    return Match(_with_gpus(ctx, hits)) if hits else None


@rule("gpu-memory-small")
def gpu_memory_small(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = _with_gpus(ctx, hits)
    if any("out of memory" in h.lower() for h in hits):
        return Match(ev, severity="error")
    return Match(ev)


# ================================================================== compatibility resolver (issue 10)
@rule("torch-python-no-wheel")
def torch_python_no_wheel(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    ev = []
    gfx = [g for g in ctx.primary_gfx]
    for v in ctx.rocm_envs:
        m = re.match(r"^(\d+)\.(\d+)", s(v.env.python))
        if not m:
            continue
        py = f"{m.group(1)}.{m.group(2)}"
        rel = wheels.torch_release(v.version)
        if v.index and rel is not None and wheels.wheel_for_python(rel, py) is False:
            ev.append(f"{v.label}: torch {v.version} has wheels for Python {rel.python[0]}-{rel.python[-1]}, the venv "
                      f"runs {py}")
        fits = [t for t in wheels.torch_releases() if t.installable and wheels.wheel_for_python(t, py) is not False
                and any(all(wheels.wheel_has_gfx(t, i, g) for g in gfx) for i in wheels.indexes_for(t.version))]
        if gfx and not fits:
            ok = sorted({p for t in wheels.torch_releases() if t.installable for p in t.python},
                        key=lambda x: tuple(int(n) for n in x.split(".")))
            ev.append(f"{v.label}: Python {py}; no torch ROCm wheel with {', '.join(gfx)} kernels exists for it "
                      f"(wheels exist for Python {ok[0]}-{ok[-1]})" if ok else f"{v.label}: Python {py}")
    return Match(ev) if ev else None


@rule("driver-outside-window")
def driver_outside_window(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import compat
    from ..resolve.facts import driver_train

    if ctx.wsl:
        return None  # under WSL the GPU driver is the Windows one
    train, where = driver_train(ctx.system)
    if not train:
        return None
    window = compat.window_of(train)
    ev = []
    for v in ctx.rocm_envs:
        if v.index and compat.in_window(train, v.wheel_rocm)[0] is False:
            ev.append(f"{v.label}: torch {v.version} brings ROCm {v.wheel_rocm} user space")
    if ctx.host_rocm and compat.in_window(train, ctx.host_rocm)[0] is False:
        ev.append(f"host ROCm {ctx.host_rocm}")
    if not ev:
        return None
    return Match(ev + [f"the amdgpu driver is train {train} ({where}); AMD supports it with ROCm "
                       f"{window[0]}-{window[1]} user space" if window else f"driver train {train} ({where})"])


@rule("hsa-override-other-isa")
def hsa_override_other_isa(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """The global override names a target outside the chip's group of interchangeable targets."""
    value = ctx.hsa_override.get("HSA_OVERRIDE_GFX_VERSION")
    as_gfx = overrides.gfx_of_value(value) if value else None
    if not as_gfx:
        return None
    ev = []
    for v in ctx.gpus:
        g = v.gpu
        chip = gpu_table.chip_gfx(s(g.device_id) or None, s(g.revision) or None)
        how = f"PCI id 1002:{s(g.device_id).lower()} (catalog:gpus.csv)" if chip else ""
        if not chip and v.gfx and v.gfx != as_gfx:
            # no PCI id: the target a tool or the product name gives (one the override did not set)
            chip, how = v.gfx, s((g.sources or {}).get("gfx_target")) or "detected"
        if not chip or overrides.isa_group(chip) == overrides.isa_group(as_gfx):
            continue
        ev.append(f"{v.label}: the chip is {chip} ({how}), group {overrides.isa_group(chip)}; "
                  f"HSA_OVERRIDE_GFX_VERSION={value} makes it load {as_gfx} code (group {overrides.isa_group(as_gfx)})")
    if not ev:
        return None
    where = s((ctx.access.sources or {}).get("env")) or "environment"
    return Match(ev + [f"HSA_OVERRIDE_GFX_VERSION={value} is set in {where}"], community=True)


@rule("hsa-override-retargets-supported")
def hsa_override_retargets(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    value = ctx.hsa_override.get("HSA_OVERRIDE_GFX_VERSION")  # the global form, not _<n>
    if not value:
        return None
    as_gfx = overrides.gfx_of_value(value)
    native = [g for g in ctx.gpus if g.gfx and g.gfx != as_gfx and ctx.covered(g.gfx)]
    needy = [g for g in ctx.gpus if g.gfx and ctx.covered(g.gfx) is False]
    if not native or not needy:
        return None  # all native: hsa-override-unneeded speaks; none native: the override is the point
    ev = [f"HSA_OVERRIDE_GFX_VERSION={value} applies to every GPU"]
    ev += [f"{g.label}: native kernels ({ctx.coverage_basis}); the override makes it load {as_gfx or value}"
           for g in native]
    ev += [f"{g.label}: the GPU the override is for" for g in needy]
    return Match(ev, community=True)


@rule("workload-not-pytorch")
def workload_not_pytorch(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import compat

    found = compat.workload_lines("not_torch", ctx.error_text) + _seen_workloads(ctx, "not_torch")
    return Match([f"{line} (from {w})" for w, line in found]) if found else None


def _seen_workloads(ctx: Context, kind: str) -> List[Tuple[str, str]]:
    """(workload id, line) of the programs detection saw in the pasted outputs (system.workloads)
    whose id the catalog lists under ``kind``, except those the error text already showed."""
    from ..catalog import compat

    ids = {w for w, _line in compat.workload_lines(kind, "\n".join(
        w.id or "" for w in list(getattr(ctx.system, "workloads", None) or [])))}
    shown = {w for w, _line in compat.workload_lines(kind, ctx.error_text)}
    out = []
    for w in list(getattr(ctx.system, "workloads", None) or []):
        if w.id in ids and w.id not in shown and w.line:
            where = w.sources.get("line", "") if isinstance(getattr(w, "sources", None), dict) else ""
            out.append((w.id, f"{where}: {w.line}" if where else w.line))
            shown.add(w.id)
    return out


@rule("vendor-triton-intended")
def vendor_triton_intended(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import compat

    found = compat.workload_lines("vendor_triton", ctx.error_text) + _seen_workloads(ctx, "vendor_triton")
    if not found or not any(v.triton for v in ctx.envs):
        return None
    return Match([f"{line} (a {w} container)" for w, line in found]
                 + [f"{v.label}: " + ", ".join(f"{d}=={x}" for d, x in v.triton.items()) for v in ctx.envs if v.triton])



def _kernel_tuple(text: str):
    m = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:-(\d+))?", text or "")
    return tuple(int(x or 0) for x in m.groups()) if m else None


@rule("apu-kernel-too-old")
def apu_kernel_too_old(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import compat

    running = _kernel_tuple(s(ctx.os.kernel))
    if running is None or ctx.wsl:
        return None
    ev = []
    for row in compat.apu_facts().get("kernel_min", []):
        if row["gfx"] not in ctx.gfx_targets:
            continue
        flavour = s(ctx.os.kernel).lower()
        key = "ubuntu_oem" if "oem" in flavour else ("ubuntu_hwe" if s(ctx.os.id).lower() == "ubuntu" else "other")
        need = _kernel_tuple(str(row.get(key) or row.get("other") or ""))
        if need is not None and running < need:
            ev.append(f"{row['gfx']}: kernel {s(ctx.os.kernel)}; AMD's minimum here is {row.get(key) or row.get('other')} "
                      f"(Ubuntu 24.04 HWE {row.get('ubuntu_hwe')}, OEM {row.get('ubuntu_oem')}, other {row.get('other')})")
    return Match(ev) if ev else None


# ================================================================== (issue 13, rest) a GPU no driver claimed; HSA out of resources by cause
# why a driver did not bind, from other sightings in the same paste
_UNBOUND_BECAUSE = (
    ("amdgpu_init_failed", "amdgpu tried to start it and failed (see the driver initialisation finding)"),
    ("amdgpu_firmware_missing", "amdgpu could not load the GPU's firmware"),
    ("amdgpu_disabled_cmdline", "the kernel command line keeps amdgpu from starting"),
    ("module_key_rejected", "Secure Boot refused the amdgpu module"),
    ("dkms_build_failed", "amdgpu-dkms did not build for the kernel"),
)


@rule("gpu-unclaimed")
def gpu_unclaimed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _signature_hits(ctx, meta)
    if not hits:
        return None
    ev = list(hits)
    sigs = {sig for _t, _w, sig in ctx.error_lines}
    because = [why for sig, why in _UNBOUND_BECAUSE if sig in sigs]
    if not because and ctx.rocm.amdgpu_loaded is False:
        because.append("the amdgpu module is not loaded" + _src(ctx.rocm, "amdgpu_loaded"))
    ev += [f"why: {b}" for b in because] or ["the outputs do not say why: read the kernel log"]
    return Match(ev)


def _oor(ctx: Context, meta: RuleMeta) -> Optional[List[str]]:
    """The HSA_STATUS_ERROR_OUT_OF_RESOURCES lines of the outputs (None: there are none)."""
    return _signature_hits(ctx, meta)


def _sighted(ctx: Context, *sigs: str) -> List[str]:
    """The lines (detected sightings and pasted error text) that carry one of ``sigs``."""
    out = [f"{where}: {_clip(text)}" for text, where, sig in ctx.error_lines if sig in sigs]
    return out + [f"error text: {_clip(line)}" for sid, line in _scanned(ctx)
                  if sid in sigs and not any(_clip(line) in o for o in out)]


@rule("hsa-oor-wsl-unsupported")
def hsa_oor_wsl(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _oor(ctx, meta)
    wsl = _sighted(ctx, "wsl_runtime")
    if not hits or not (wsl or ctx.wsl):
        return None
    ev = hits + (wsl or ["WSL kernel " + s(ctx.os.kernel)])
    unsupported = _sighted(ctx, "rocr_unsupported_gpu")
    if unsupported:
        ev += unsupported + ["cause: the runtime of this release does not support this GPU under WSL"]
    else:
        ev.append("cause: no GPU reached the WSL runtime: a release without WSL support, a GPU not on its WSL "
                  "list, or a Windows driver without WSL compute")
    return Match(_with_gpus(ctx, ev))


@rule("hsa-oor-gpu-unsupported")
def hsa_oor_gpu_unsupported(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _oor(ctx, meta)
    if not hits:
        return None
    causes = _sighted(ctx, "kfd_unsupported_asic")
    if not _sighted(ctx, "wsl_runtime") and not ctx.wsl:  # under WSL the WSL rule says it
        causes += _sighted(ctx, "rocr_unsupported_gpu")
    v = parse_version(ctx.host_rocm)
    for g in ctx.gpus if v is not None else []:
        first = support.first_official(g.gfx) if g.gfx else None
        if first is not None and first.version != releases.all_releases()[0].version and v < parse_version(first.version):
            causes.append(f"{g.label}: supported from ROCm {first.version}; the host has {ctx.host_rocm}")
    if not causes:
        return None
    return Match(_with_gpus(ctx, hits + causes))


@rule("hsa-oor-after-gpu-hang")
def hsa_oor_after_hang(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _oor(ctx, meta)
    hang = _sighted(ctx, "gpu_hang", "mes_hang", "gpu_off_bus") if hits else []
    return Match(_with_gpus(ctx, hits + hang[:4])) if hang else None


@rule("hsa-oor-virtual-gpu")
def hsa_oor_virtual(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _oor(ctx, meta)
    vm = _sighted(ctx, "vm_guest") if hits else []
    return Match(_with_gpus(ctx, hits + vm[:3])) if vm else None


# ================================================================== ROCm release streams (issue 11)
def _package_streams(ctx: Context) -> Dict[str, List[str]]:
    """stream -> "name version" of the installed packages that belong to it."""
    from ..detect.parsers.packages import Package, stream_of_package

    out: Dict[str, List[str]] = {}
    for name, version in sorted(_items(ctx.rocm.packages)):
        st = stream_of_package(Package(s(name), s(version) or None))
        if st:
            out.setdefault(st, []).append(f"{s(name)} {s(version)}")
    return out


def _items(value) -> list:
    return list(value.items()) if isinstance(value, dict) else []


def _host_is_core_sdk(ctx: Context) -> bool:
    from ..catalog import streams

    if s(ctx.rocm.stream) == "core-sdk":
        return True
    of = streams.stream_of(ctx.host_rocm) if ctx.host_rocm and not s(ctx.rocm.stream) else None
    return of is not None and of.stream == "core-sdk"


def _few(items: List[str], n: int = 4) -> str:
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")


@rule("rocm-streams-mixed")
def rocm_streams_mixed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    by_pkg = _package_streams(ctx)
    trees: Dict[str, List[str]] = {}
    for inst in ctx.rocm.installs if isinstance(ctx.rocm.installs, list) else []:
        st = s(getattr(inst, "stream", None))
        if st in ("legacy", "core-sdk"):
            trees.setdefault(st, []).append(f"{s(inst.path)} ({s(inst.version) or 'release unknown'})")
    if not all(st in by_pkg or st in trees for st in ("legacy", "core-sdk")):
        return None
    ev = []
    for st, words in (("legacy", "legacy ROCm"), ("core-sdk", "ROCm Core SDK")):
        if st in by_pkg:
            ev.append(f"{words} packages: {_few(by_pkg[st])}" + _src(ctx.rocm, "packages"))
        if st in trees:
            ev.append(f"{words} trees: {_few(trees[st])}")
    if "legacy" in by_pkg and "core-sdk" in by_pkg:
        return Match(ev)
    # only trees show one of the streams (a left-over /opt/rocm-X.Y.Z): less sure than two package sets
    return Match(ev + ["one of the streams is seen only as a directory, not as installed packages"], severity="warning")


def _env_stream(v) -> str:
    """The environment's stream as detected; for records without one (a detect --json of an older
    rocm-wizard), a legacy ROCm in the version label with no rocm wheels next to it."""
    from ..catalog import streams

    st = s(getattr(v.env, "stream", None))
    if st or getattr(v.env, "rocm_wheels", None):
        return st
    of = streams.stream_of(wheels.rocm_of_version(v.version))
    return "legacy" if of is not None and of.stream == "legacy" else ""


@rule("torch-legacy-on-core-sdk")
def torch_legacy_on_core_sdk(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not _host_is_core_sdk(ctx):
        return None
    ev = [f"{v.label}: torch {v.version} carries its own ROCm {s(v.env.rocm) or v.wheel_rocm or '?'} (legacy, bundled "
          f"in torch/lib)" for v in ctx.rocm_envs if _env_stream(v) == "legacy"]
    if not ev:
        return None
    return Match(ev + [f"host ROCm {ctx.host_rocm or '?'} is the Core SDK" + _src(ctx.rocm, "version")])


def _load_failure(ctx: Context, meta: RuleMeta) -> List[str]:
    return ctx.error_hits(meta.compiled)


@rule("torch-rocm-wheels-missing")
def torch_rocm_wheels_missing(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    hits = _load_failure(ctx, meta)
    ev = []
    for v in ctx.rocm_envs:
        e = v.env
        if s(getattr(e, "stream", None)) != "pip" or not s(e.version):
            continue
        wheels_ = e.rocm_wheels if isinstance(e.rocm_wheels, dict) else {}
        if any(k in wheels_ for k in ("rocm", "rocm-sdk-core", "_rocm_sdk_core")):
            continue
        if e.path is None and not hits:
            continue  # a pasted list may have been filtered (pip freeze | grep torch): no claim without a failure
        ev.append(f"{v.label}: torch {v.version} is built for ROCm {s(e.rocm) or '?'} from the rocm pip wheels, and "
                  f"the venv has none (no rocm, rocm-sdk-core or _rocm_sdk_core)" + _src(e, "version"))
    return Match(ev + hits) if ev else None


def _device_covers(target: str, gfx: str) -> bool:
    """Whether a device wheel's target (gfx1201, gfx11, gfx12-0, gfx110X-all, all) holds kernels for ``gfx``."""
    t = re.sub(r"-(all|dgpu|dcgpu|igpu)$", "", target.lower()) if target.lower() != "all" else "all"
    if t == "all" or t == gfx:
        return True
    if t.endswith("x"):
        return gfx.startswith(t[:-1])
    m = re.fullmatch(r"(gfx\d+)-(\d+)", t)  # gfx12-0: the gfx120x family
    if m:
        return gfx.startswith(m.group(1) + m.group(2))
    return bool(re.fullmatch(r"gfx\d{1,2}", t)) and gfx.startswith(t) and len(gfx) >= len(t) + 2


@rule("torch-device-wheel-missing")
def torch_device_wheel_missing(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    gfx = ctx.primary_gfx
    hits = _load_failure(ctx, meta)
    ev = []
    for v in ctx.rocm_envs:
        e = v.env
        wheels_ = e.rocm_wheels if isinstance(e.rocm_wheels, dict) else {}
        devices = [s(d) for d in (e.device_gfx if isinstance(e.device_gfx, list) else []) if s(d)]
        if s(getattr(e, "stream", None)) != "pip" or not wheels_:
            continue  # without any rocm wheel listed, the missing-wheels rule speaks
        missing = [g for g in gfx if not any(_device_covers(d, g) for d in devices)]
        if not missing:
            continue
        have = ", ".join(devices) if devices else "none"
        ev.append(f"{v.label}: device wheels for {have}; the GPU needs {', '.join(missing)}" + _src(e, "rocm_wheels"))
    if not ev:
        return None
    return Match(_gpu_lines(ctx, ctx.primary) + ev + hits)


@rule("preview-or-nightly-build")
def preview_or_nightly(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import streams

    ev = []
    host = s(ctx.rocm.version)
    of = streams.stream_of(host) if host else None
    if of is not None and (of.channel == "preview" or of.nightly):
        kind = "a nightly" if of.nightly else "a technology preview"
        ev.append(f"host ROCm {host} is {kind} of the Core SDK" + _src(ctx.rocm, "version"))
    for name, version in sorted(_items(ctx.rocm.packages)):
        if s(name).startswith("amdrocm") and streams.is_nightly(s(version)):
            ev.append(f"package {s(name)} {s(version)} is a nightly build" + _src(ctx.rocm, "packages"))
            break
    host_ev = len(ev)
    for v in ctx.envs:
        ch = s(getattr(v.env, "channel", None))
        if ch in ("preview", "nightly"):
            rocm = s(v.env.rocm)
            what = "a nightly build" if ch == "nightly" else "built for a preview ROCm"
            ev.append(f"{v.label}: torch {v.version} is {what}" + (f" (ROCm {rocm})" if rocm else "") + _src(v.env, "version"))
    if not ev:
        return None
    return Match(ev, severity="warning") if host_ev else Match(ev)

__all__ = ["MATCHERS", "Match", "rule"]


# ================================================================== per-library coverage (issue 30)
_TENSILE_MISSING = re.compile(r"rocBLAS error: Cannot read (\S{0,400}?TensileLibrary\S{0,80}?)(?::| ).{0,200}?for GPU arch ?: ?(gfx[0-9a-f]{3,4})",
                              re.I)


def _rocblas_owner(path: str, params: Optional[Dict[str, Any]] = None) -> str:
    """Whose rocBLAS a 'Cannot read .../TensileLibrary.dat' path is: "wheel" (a Python environment's: torch's own
    torch/lib, or ROCm's pip wheels in site-packages such as TheRock's _rocm_sdk_devel), "host" (a ROCm installed for
    the system: /opt/rocm[-X], the system library folder's rocblas, a Nix store path, the Windows HIP SDK under
    Program Files\\AMD\\ROCm), else "application" (a folder an application ships its own ROCm libraries in:
    ~/.lmstudio's engines, Ollama's lib/ollama or AppData folder, an unpacked app bundle).  The two path patterns are
    the rule's params in rules.toml (``params``: the rule's own; by default read from the registry)."""
    if params is None:
        from .registry import rules as all_rules

        params = all_rules()["wheel-library-lacks-kernels"].params
    p = path.replace("\\\\", "/").replace("\\", "/")
    if re.search(params["rocblas_wheel_path"], p, re.I):
        return "wheel"
    if re.match(params["rocblas_host_path"], p, re.I):
        return "host"
    return "application"


@rule("wheel-library-lacks-kernels")
def wheel_library_lacks_kernels(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """torch's arch list names the GPU, but a library bundled in the wheel (rocBLAS's Tensile
    kernels, hipBLASLt, MIOpen...) has none for it: the first matrix product aborts."""
    ev: List[str] = []
    gfxs: List[str] = []
    for v in ctx.rocm_envs:
        for g in ctx.gpus:
            for gap in v.library_gaps.get(g.gfx or "", []):
                ev.append(f"{v.label}: torch {v.version} lists {g.gfx} ({g.label}) in its arch list, but its bundled "
                          f"{gap.library} has none: {gap.part} ({gap.status})")
                gfxs.append(g.gfx or "")
    wheel_gaps = bool(ev)
    host = False
    owners = set()
    for text, where, _sig in ctx.error_lines:
        m = _TENSILE_MISSING.search(text)
        if m:
            line = f"{where}: {text.strip()[:300]}"
            if line not in ev:  # (the same line pasted or logged again says nothing more)
                ev.append(line)
            gfxs.append(m.group(2).lower())
            owner = _rocblas_owner(m.group(1), meta.params)
            owners.add(owner)
            host = host or owner == "host"  # the host's ROCm (not a wheel's, not an application's own)
    if not ev:
        return None
    if not wheel_gaps and owners == {"application"}:
        # (s24, set IK 3400, 264) an application's own bundled rocBLAS (LM Studio's, Ollama's, a llama.cpp build's):
        # no torch is involved, and neither a torch reinstall nor the host's ROCm changes what the application loads
        targets = ", ".join(sorted(set(gfxs)))
        return Match(ev, fix=(f"Use a release or build of that application whose bundled ROCm libraries carry {targets} "
                              "(its ROCm backend's list of supported GPUs), or its Vulkan backend where it has one; "
                              "neither a torch reinstall nor upgrading the host's ROCm changes the rocBLAS it loads."),
                     data={"gfx": sorted(set(gfxs)), "path": None,
                           "title": "A ROCm library bundled with an application has no kernels for this GPU",
                           "explanation": ("The rocBLAS that failed is the one an application ships in its own folder "
                                           "(not a PyTorch wheel's, not the host's /opt/rocm): it carries Tensile kernels "
                                           "only for the GPU targets that application's build chose, and this GPU's is "
                                           "not among them, so its first matrix product aborts (rocBLAS 'Cannot read "
                                           ".../TensileLibrary.dat ... for GPU arch').")})
    legacy = sorted({g for g in gfxs if g in meta.params.get("rocm63_last", [])})
    fix = None
    if legacy:
        fix = (f"{meta.fix} For {', '.join(legacy)}: the rocm6.3 index (torch 2.9.1+rocm6.3 or older) is the last "
               "PyTorch index whose rocBLAS has their kernels; or AMD's multi-arch index with the "
               f"{', '.join('device-' + g for g in legacy)} extra.")
        if host:
            fix += (" The failing rocBLAS here is the host's ROCm (not a wheel's): ROCm 6.4 and later ship no Tensile "
                    f"kernels for {', '.join(legacy)}; ROCm 6.3.x is the last release whose rocBLAS has them.")
    return Match(ev, fix=fix, data={"gfx": sorted(set(gfxs))})


# ================================================================== nothing that looks like an error is silent
_LAYER_ORDER = ("firmware", "kernel", "runtime", "hip", "libraries", "framework", "packaging")


def _sightings(ctx: Context, signature: str) -> Dict[str, List[str]]:
    """``{layer: [evidence line]}`` of the sightings of ``signature`` ("unrecognised",
    "failure_told"), each line with the file it came from."""
    by_layer: Dict[str, List[str]] = {}
    for e in ctx.system.errors or []:
        if s(getattr(e, "signature", None)) != signature:
            continue
        text = s(getattr(e, "text", None))
        if not text:
            continue
        srcs = getattr(e, "sources", None) or {}
        where = s(srcs.get("text")) if isinstance(srcs, dict) else ""
        where = where.split(":", 1)[1] if where.startswith(("paste:", "file:")) else where
        by_layer.setdefault(s(getattr(e, "layer", None)) or "unknown", []).append((where.split("#", 1)[0], text))
    return by_layer


def _by_layer_evidence(by_layer, what: str, per_layer: int = 6) -> Tuple[List[str], List[str]]:
    order = [l for l in _LAYER_ORDER if l in by_layer] + [l for l in by_layer if l not in _LAYER_ORDER]
    evidence: List[str] = []
    for layer in order:
        rows = by_layer[layer]
        evidence += [f"[{layer}] {what} in {where or 'the paste'}: {_clip(text, 240)}" for where, text in rows[:per_layer]]
        if len(rows) > per_layer:
            evidence.append(f"[{layer}] ... and {len(rows) - per_layer} more line(s) like these")
    return evidence, [l for l in order if l in _LAYER_ORDER]


@rule("unrecognised-failure")
def unrecognised_failure(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """Lines the errors probe found to read as errors that no known error text matched
    (``detect/failure_lines.py``), minus those a rule's own error patterns report: listed by layer,
    lowest first, with what to run next."""
    from ..detect import failure_lines
    from .registry import rules as all_rules

    patterns = [p for r in all_rules().values() if r.id != meta.id for p in r.compiled]
    from_log = _sightings(ctx, "unrecognised")
    if ctx.error_text.strip():  # the --error-log text is the user's paste too
        known = [t for t, _w, sig in ctx.error_lines if sig and sig not in ("unrecognised", "failure_told")]
        for line, layer, _label in failure_lines.scan([(ctx.error_text, "error-log", "error text")], known):
            from_log.setdefault(layer or "unknown", []).append(("the error text", line))
    by_layer = {}
    for layer, rows in from_log.items():
        rows = [(w, t) for w, t in rows if not any(p.search(t) for p in patterns)]
        if rows:
            by_layer[layer] = rows
    if not by_layer:
        return None
    evidence, layers = _by_layer_evidence(by_layer, "unrecognised failure")
    # (lines of no known layer only: the commands whose outputs tell which layer it is, bottom up)
    return Match(evidence=evidence, data={"layer": layers[0] if layers else None,
                                          "next_commands": failure_lines.next_commands(layers[:2] or ["unknown"])})


# (s10-heldx) sightings that carry a figure a rule reads (a size, the free memory), not a message about anything
# going wrong or right: they show nothing the user's prose could be about
_FIGURE_SIGHTINGS = frozenset({"ggml_device_free_memory", "s10x_kernel_gtt_memory_ready",
                               "s12ax_kernel_vram_memory_ready"})


@rule("failure-told-not-shown")
def failure_told_not_shown(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """Prose that tells of a failure in the stack when nothing in the paste shows one: ask for it."""
    from ..detect import failure_lines

    shown = [e for e in ctx.system.errors or [] if s(getattr(e, "signature", None)) not in ("", "failure_told")
             and s(getattr(e, "signature", None)) not in _FIGURE_SIGHTINGS]
    if shown or ctx.error_text.strip():
        return None
    by_layer = _sightings(ctx, "failure_told")
    if not by_layer:
        return None
    evidence, layers = _by_layer_evidence(by_layer, "told", per_layer=3)
    return Match(evidence=evidence, data={"layer": layers[0] if layers else None,
                                          "next_commands": failure_lines.next_commands(layers[:2] or ["runtime"])})


# ================================================================== apt: one URI, two keyrings
def _uri_key(a) -> str:
    return s(a.uri).rstrip("/").lower()


@rule("apt-signed-by-conflict")
def apt_signed_by_conflict(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """Enabled entries for one URI and suite whose Signed-By differ (apt-get update then fails)."""
    groups: Dict[Tuple[str, str], List[Any]] = {}
    for a in ctx.rocm.apt_sources:
        if getattr(a, "enabled", True) is False or not s(a.uri):
            continue
        groups.setdefault((_uri_key(a), s(a.suite)), []).append(a)
    ev: List[str] = []
    for (uri, suite), entries in sorted(groups.items()):
        keys = {s(a.signed_by) for a in entries}
        if len(keys) < 2 or not any(keys):
            continue
        ev.append(f"{uri} {suite}: Signed-By differs between entries")
        ev += [f"  {s(a.file) or '?'}: Signed-By {s(a.signed_by) or '(none)'}" for a in entries[:6]]
    return Match(ev) if ev else None


@rule("apt-repo-path-moving")
def apt_repo_path_moving(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """Enabled sources on a path AMD announced (in a draft, a preview) to move to another host."""
    from ..catalog.repo_moves import move_of

    ev: List[str] = []
    for a in ctx.rocm.apt_sources:
        m = move_of(s(a.uri)) if getattr(a, "enabled", True) is not False else None
        if m is not None:
            ev.append(f"{s(a.file) or '?'}: {s(a.uri)} -> {m['new']} ({m['status']}: {m['note']})")
    return Match(ev[:6]) if ev else None


_SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2, "critical": 3}


@dataclass(frozen=True)
class _SignatureRow:
    """What known-failure needs of a catalogue row, for a failure row of the Python table."""
    id: str
    layer: str
    meaning: str
    next: Tuple[str, ...]
    fix: str = ""
    severity: str = "error"
    path: Optional[str] = None


def _signature_row(sid: str) -> Optional[_SignatureRow]:
    from ..detect import error_signatures, failure_lines

    layer = error_signatures.failure_layer(sid)
    sig = error_signatures.by_id(sid)
    if not layer or sig is None:
        return None  # information, not a failure
    return _SignatureRow(id=sid, layer=layer, meaning=sig.meaning, next=tuple(failure_lines.next_commands([layer])))


# s9-heldr: rows that only name which check of a test harness failed, not why: TheRock's 'rocm-sdk test'
# (unittest's "ERROR: testConsoleScripts (rocm_sdk.tests.core_test...) [Check console-script rocminfo]"
# header, ROCm/TheRock build_tools/packaging/python/templates/rocm/src/rocm_sdk/tests/core_test.py).  The
# exception printed under the header says why the check failed (a tool that died with SIGSEGV, a system
# library missing); when a known row or a rule reads that line, it is the failure, and the header's guessed
# layer (packaging) must not lead it.  A header alone (no line under it is known) is still reported.
_HARNESS_HEADER_ROWS = frozenset({"rocm_sdk_selftest_failed",
                                   # s14-heldbl: ggml's abort line ("%s:%d: ROCm error", ggml-cuda.cu ggml_cuda_error) names
                                   # only where ggml stopped; the "ROCm error: <HIP's message>" line under it says why
                                   "ggml_rocm_error",
                                   # s14-heldbp: the same abort in older trees (GGML_ASSERT(!"CUDA error"), ggml.h's
                                   # "GGML_ASSERT: %s:%d: %s"); the "CUDA error: <HIP's message>" line above it says why
                                   "bp_ggml_assert_cuda_error",
                                   # s14-heldcr: clang's 'N errors generated when compiling for gfxNNN' (CompilerInstance::
                                   # printDiagnosticStats) counts the errors of a device compilation; the 'error:' line
                                   # above it says what failed to compile and whose code it is (an application's own
                                   # source over Kokkos, a library's kernels)
                                   "s10x_hip_device_code_compile_errors",
                                   # s15-heldcv: UCX's generic log line ('file.c:NNN UCX ERROR ...', ucs/debug/log.c)
                                   # is the communication library's error unless a row reads the same or another line
                                   # more precisely (ib_md.c's ibv_reg_mr at the kernel, rocm_ipc_md.c at the runtime)
                                   "cv_ucx_log_error",
                                   # s18-helddo: torchrun's elastic agent's report of the first failed worker ('failed
                                   # (exitcode: -6) local_rank: 0 (pid: N) of binary: ...', 'Signal 6 (SIGABRT) received
                                   # by PID N', torch/distributed/elastic/multiprocessing/api.py and errors/__init__.py)
                                   # names the rank and the signal; the worker's own abort line above it says why
                                   "do_torch_elastic_worker_failed"})


def _harness_headers(by_layer: Dict[str, List[Tuple[Any, str]]], pairs, claimed) -> Dict[str, List[Tuple[Any, str]]]:
    """``by_layer`` without the harness-header rows when another known row or a rule's signature
    read a line of the same paste."""
    others = any(row.id not in _HARNESS_HEADER_ROWS for rows in by_layer.values() for row, _t in rows)
    others = others or any(sid in claimed for sid, _t in pairs)
    if not others:
        return by_layer
    out = {}
    for layer, rows in by_layer.items():
        kept = [(row, text) for row, text in rows if row.id not in _HARNESS_HEADER_ROWS]
        if kept:
            out[layer] = kept
    return out


# s9-heldr: a library that logs the HIP error its own call got (rocBLAS's "rocBLAS error from hip error
# code: '%s':%d", ROCm/rocBLAS library/src/utility.cpp, rocblas_internal_convert_hip_to_rocblas_status_and_log)
# says whose call failed; the same error as the application echoes it afterwards (ggml's "ROCm error:
# <hipGetErrorString>" and "ggml_cuda_compute_forward: OP failed", llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu)
# is that library's failure, not one of HIP's own.  The error names a library row captures ('hipErrorX') and
# the strings HIP prints for them (ROCm/clr hipamd/src/hip_error.cpp, ihipGetErrorString).
# s18-libmacros: rocRAND's fatal check names the HIP error unquoted ("rocRAND internal error: %s in function %s at
# %s:%d", ROCm/rocRAND library/src/rng/common.hpp, ROCRAND_HIP_FATAL_ASSERT).
# s19-libmore: rocThrust's thrust::system_error ("<algorithm> failed[ on 2nd step]: <hipErrorName>: <string>",
# ROCm/rocThrust thrust/system/hip/detail/util.h throw_on_error) and rocDecode's CHECK_HIP ("HIP failure: <call> failed
# with 'status: <hipErrorName>' at <file>:<line>", ROCm/rocDecode src/rocdecode/roc_decoder.h) relay the HIP error too.
_LIBRARY_HIP_ERROR_ROWS = frozenset({"rocblas_hip_error_logged", "lm_rocrand_internal_hip_error",
                                     "lm_rocthrust_system_error_hip", "lm_rocdecode_hip_failure"})
_HIP_ERROR_NAME = re.compile(r"(?:'(?:status[:#] ?)?|\binternal error: |\bfailed(?: on (?:1st|2nd) step| to synchronize)?: )"
                             r"(hipError\w+)")
_HIP_ERROR_STRINGS = {
    "hipErrorInvalidImage": "device kernel image is invalid",
    "hipErrorInvalidDeviceFunction": "invalid device function",
    "hipErrorNoBinaryForGpu": "no kernel image is available for execution on the device",
}
# the application's wrappers that name no error themselves ("the HIP error is printed next to it")
_HIP_ERROR_ECHO_ROWS = frozenset({"ggml_rocm_error", "ggml_compute_forward_failed"})


def _library_hip_errors(by_layer: Dict[str, List[Tuple[Any, str]]]) -> Dict[str, List[Tuple[Any, str]]]:
    """Move the hip-layer lines that echo a HIP error a library logged as its own to that library's layer."""
    names = set()
    lib_layer = None
    for layer, rows in by_layer.items():
        for row, text in rows:
            if row.id in _LIBRARY_HIP_ERROR_ROWS:
                lib_layer = layer
                names.update(_HIP_ERROR_NAME.findall(text))
    if lib_layer is None or "hip" not in by_layer or lib_layer == "hip":
        return by_layer
    marks = [n.lower() for n in names] + [_HIP_ERROR_STRINGS[n] for n in names if n in _HIP_ERROR_STRINGS]
    return _rows_moved(by_layer, "hip", lib_layer,
                       lambda row, text: row.id in _HIP_ERROR_ECHO_ROWS or any(m in text.lower() for m in marks))


def _rows_moved(by_layer: Dict[str, List[Tuple[Any, str]]], src: str, dst: str, take: Callable[[Any, str], bool],
                first: bool = False) -> Dict[str, List[Tuple[Any, str]]]:
    """``by_layer`` with the ``(row, line)`` pairs of layer ``src`` that ``take`` picks moved to layer ``dst`` (after
    its own, or before them with ``first``); ``src`` goes when nothing is left in it.  Unchanged when none is picked."""
    moved = [(row, text) for row, text in by_layer.get(src, []) if take(row, text)]
    if not moved:
        return by_layer
    out = dict(by_layer)
    kept = [(row, text) for row, text in by_layer[src] if not take(row, text)]
    out[dst] = moved + list(by_layer.get(dst, [])) if first else list(by_layer.get(dst, [])) + moved
    if kept:
        out[src] = kept
    else:
        del out[src]
    return out


# s25-newestwin (set IX, 3532; fixture 350): PyTorch's "no GPU" is the HIP runtime's device count relayed:
# torch.cuda.is_available() returns torch._C._cuda_getDeviceCount() > 0 and _lazy_init raises "No HIP GPUs are available"
# when it is 0 (pytorch/pytorch torch/cuda/__init__.py), and that count is hipGetDeviceCount's, read as 0 when it returns
# hipErrorNoDevice (c10/cuda/CUDAFunctions.cpp device_count_impl, hipified to c10/hip).  Alone, the relay sits at the
# runtime (rows torch_gpu_unavailable, torch_no_hip_gpus: the runtime found no device).  When the same paste shows the HIP
# runtime's own report of that count (hipErrorNoDevice, "no ROCm-capable device is detected": rows hip_no_rocm_device,
# hip_no_device_name, ggml_no_rocm_device), the relay is that failure seen from torch: it joins HIP's lines after them,
# so the report HIP printed leads.  Only the relay rows move; a runtime line of its own (rocminfo, ROCr, /dev/kfd) stays.
_TORCH_NO_GPU_RELAY_ROWS = frozenset({"torch_gpu_unavailable", "torch_no_hip_gpus"})
_HIP_NO_DEVICE_ROWS = frozenset({"hip_no_rocm_device", "hip_no_device_name", "ggml_no_rocm_device"})


def _torch_relays_hip_no_device(by_layer: Dict[str, List[Tuple[Any, str]]]) -> Dict[str, List[Tuple[Any, str]]]:
    """Move torch's "no GPU" relay rows from the runtime layer to HIP's when HIP's own no-device line is there."""
    if "runtime" not in by_layer or not any(row.id in _HIP_NO_DEVICE_ROWS for row, _t in by_layer.get("hip", [])):
        return by_layer
    return _rows_moved(by_layer, "runtime", "hip", lambda row, text: row.id in _TORCH_NO_GPU_RELAY_ROWS)


# s14-heldbu (set BU, 1703): an HSA call's status printed while the process stops inside ROCm's profiler libraries
# (aqlprofile's hsa_ven_amd_aqlprofile_* entry points, rocprofiler-sdk's queue interception; row
# bu_crash_stack_in_rocm_profiler_library) is the status the profiler's own HSA call got (aqlprofile's 'Error Calling
# hsa_iterate_agents: HSA_STATUS_ERROR: ...'), not a failure of the runtime the program uses: those lines go to the
# profiler's layer.  Only the statuses an API call returns to its caller move; a queue's fault (memory fault, illegal
# instruction, exception) is the GPU's and stays where it is.  Statuses a specific rule reports (hsa-runtime-error's
# signatures) are that rule's and do not reach known-failure: not moved here.
# s25-smiwin (set IS, 3481): aqlprofile's HsaRsrcFactory CHECK_STATUS line (row is_profiler_hsa_rsrc_factory_check_failed,
# "Error Calling hsa_iterate_agents: <status>" then abort()) is the profiler's own call too, with or without a stack.
_PROFILER_STACK_ROWS = frozenset({"bu_crash_stack_in_rocm_profiler_library", "is_profiler_hsa_rsrc_factory_check_failed"})
_HSA_CALL_STATUS_ROWS = frozenset({"hsa_generic_error", "hsa_invalid_argument_text", "hsa_not_initialized_text",
                                   "hsa_incompatible_arguments", "hsa_invalid_allocation", "hsa_invalid_queue_creation",
                                   "rocr_call_returned"})


def _profiler_hsa_status(by_layer: Dict[str, List[Tuple[Any, str]]]) -> Dict[str, List[Tuple[Any, str]]]:
    """Move the runtime-layer HSA call statuses of a paste that stops in a profiler library to that library's layer."""
    prof_layer = next((layer for layer, rows in by_layer.items() if any(r.id in _PROFILER_STACK_ROWS for r, _t in rows)),
                      None)
    if prof_layer is None or prof_layer == "runtime" or "runtime" not in by_layer:
        return by_layer
    return _rows_moved(by_layer, "runtime", prof_layer, lambda row, _text: row.id in _HSA_CALL_STATUS_ROWS)


# s14-heldbz (1666): onnxruntime's MIGraphX provider compiles a graph between its "Model Compile: Begin" and "Model
# Compile: Complete" lines (onnxruntime migraphx_execution_provider.cc compile_program); migraphx::program::compile runs
# candidate kernels on the GPU to choose among them.  A GPU fault or hang ROCr reports (its VM fault and HW exception
# handlers, runtime.cpp) in a paste that shows the compile begun and never completed happened in a kernel MIGraphX built:
# the library's layer, not the runtime that reported it.  A paste with the compile completed keeps the fault at runtime.
_COMPILE_WINDOW_BEGIN = "bz_ort_migraphx_compile_begin"
_COMPILE_WINDOW_END = "bz_ort_migraphx_compile_complete"
_RUNTIME_GPU_FAULT_ROWS = frozenset({"rocr_hw_exception", "rocr_memory_access_fault_reason"})


def _compile_window_open(ctx: Context) -> Optional[str]:
    """The 'Model Compile: Begin' line when the paste shows a MIGraphX compile begun and never completed."""
    pairs = [(sig, text) for text, _w, sig in ctx.error_lines] + list(_scanned(ctx))
    sids = {sid for sid, _t in pairs}
    if _COMPILE_WINDOW_BEGIN not in sids or _COMPILE_WINDOW_END in sids:
        return None
    return next(t for sid, t in pairs if sid == _COMPILE_WINDOW_BEGIN)


def _compile_window_faults(by_layer: Dict[str, List[Tuple[Any, str]]], pairs) -> Tuple[Dict[str, List[Tuple[Any, str]]], Optional[str]]:
    """Move ROCr's GPU fault rows to libraries when the paste shows a MIGraphX compile begun and not completed."""
    sids = {sid for sid, _t in pairs}
    if _COMPILE_WINDOW_BEGIN not in sids or _COMPILE_WINDOW_END in sids or "runtime" not in by_layer:
        return by_layer, None
    out = _rows_moved(by_layer, "runtime", "libraries", lambda row, _text: row.id in _RUNTIME_GPU_FAULT_ROWS, first=True)
    if out is by_layer:
        return by_layer, None
    begin = next(t for sid, t in pairs if sid == _COMPILE_WINDOW_BEGIN)
    note = (f"[libraries] the GPU faulted during onnxruntime's MIGraphX compile ({_clip(begin, 160)} and no 'Model "
            "Compile: Complete'): a kernel MIGraphX built or benchmarked for this graph and input shape -- pin the "
            "model's input shapes so it compiles once, try another MIGraphX/ROCm release, or report the model and "
            "shape to ROCm/AMDMIGraphX")
    return out, note


# s19-fwblobs (set DV, 2360, 2362): the kernel's firmware-loader line ('Direct firmware load for amdgpu/<file> failed with
# error -2') and an old IP block's own 'gfx8: Failed to load firmware' are amdgpu-init-failed's signature lines
# (amdgpu_firmware_missing), which that rule reports at the kernel layer as the GPU failing to start when an init-failure
# line is there too.  The blocks' own '*ERROR* Failed to load <block> firmware!' (rows fw_psp_load_failed,
# fw_mc_load_failed..., which name the cause at firmware) is not always printed: an early_init failure has none (2362,
# amdgpu_device_ip_early_init), newer kernels dropped some as noise (an amd-gfx patch removing the SDMA blocks'), and a
# wrapped paste splits it (2360).  Then the missing file is named only by these lines: known-failure reports them as
# the cause beside the rule's consequence whenever an init failure is in the paste.  Alone (no init failure) the rule
# already reports them at firmware.
_FIRMWARE_CAUSE_ROWS = frozenset({"dv_amdgpu_firmware_file_missing", "dv_amdgpu_ip_block_firmware_load_failed"})

# s21-compwin (2539): a PSP command that fails while a GPU reset runs is the reset's teardown, not a firmware fault of
# its own.  amdgpu's recovery (amdgpu_device.c amdgpu_device_gpu_recover: "GPU reset begin!", then the IP blocks'
# suspend) unloads the PSP's trusted applications (amdgpu_psp.c psp_ta_unload -> psp_cmd_submit_buf: "psp gfx command
# %s(0x%X) failed and response status is (0x%X)") from a GPU that has just hung; such a line stamped at or after the
# reset's start line is reported with the hang and the reset at the kernel, not ahead of them at firmware.  Only plain
# dmesg stamps ("[  123.456789]") are compared; other lines keep the row's own layer.
_PSP_IN_RESET_ROWS = frozenset({"fw_psp_cmd_failed"})
_DMESG_SECONDS = re.compile(r"^\s*\[\s*(\d{1,9}\.\d{1,9})\]")
_RESET_BEGIN = re.compile(r"\bGPU reset begin\b|\bamdgpu_device_gpu_recover\b")


def _psp_in_reset(by_layer: Dict[str, List[Tuple[Any, str]]], pairs) -> Dict[str, List[Tuple[Any, str]]]:
    """Moves PSP command failures stamped at or after a GPU reset's start line to the kernel layer."""
    fw = by_layer.get("firmware") or []
    if not any(row.id in _PSP_IN_RESET_ROWS for row, _t in fw):
        return by_layer
    starts = []
    for _sid, text in pairs:
        if text and _RESET_BEGIN.search(text):
            m = _DMESG_SECONDS.match(text)
            if m:
                starts.append(float(m.group(1)))
    if not starts:
        return by_layer
    first = min(starts)
    keep, move = [], []
    for row, text in fw:
        m = _DMESG_SECONDS.match(text or "") if row.id in _PSP_IN_RESET_ROWS else None
        (move if m and float(m.group(1)) >= first else keep).append((row, text))
    if not move:
        return by_layer
    out = dict(by_layer)
    if keep:
        out["firmware"] = keep
    else:
        out.pop("firmware", None)
    out["kernel"] = list(out.get("kernel", [])) + move
    return out


def _rocminfo_gpu_agent_shown(ctx: Context) -> bool:
    """Whether the paste shows a GPU agent in rocminfo's lines: an AMD GPU whose gfx target detection read from a
    pasted rocminfo report (its source names rocminfo)."""
    for g in getattr(ctx.system, "amd_gpus", None) or []:
        src = s((getattr(g, "sources", None) or {}).get("gfx_target"))
        if s(getattr(g, "gfx_target", None)) and src.startswith("paste:") and "rocminfo" in src:
            return True
    return False


@rule("known-failure")
def known_failure(ctx: Context, meta: RuleMeta) -> Optional[List[Match]]:
    """Sightings of catalogue rows that no specific rule reports (a specific rule names the row in
    its ``error_signatures``): one finding per layer, lowest layer first, quoting the lines with
    what each row means; fix, next commands, severity and way out come from the rows."""
    pairs = [(s(getattr(e, "signature", None)), s(getattr(e, "text", None))) for e in ctx.system.errors or []]
    pairs += [(sid, line) for sid, line in _scanned(ctx)]  # the error text given to diagnose
    if not pairs:
        return None  # nothing to report: the error table is not even loaded (a plan for a system without errors)
    from ..detect import error_signatures
    from .registry import rules as _rules

    claimed = {sig for r in _rules().values() if r.id != meta.id for sig in r.error_signatures}
    by_layer: Dict[str, List[Tuple[Any, str]]] = {}
    seen = set()
    # (s19-libmore) a build's summary line (clang's 'N errors generated') sits at the layer of the first compiler
    # error above it, which the errors probe worked out from the paste (detect/failure_lines.py summary_layer)
    from ..detect import failure_lines

    summary_at = {(s(getattr(e, "signature", None)), s(getattr(e, "text", None))): s(getattr(e, "layer", None))
                  for e in ctx.system.errors or [] if s(getattr(e, "signature", None)) in failure_lines.SUMMARY_ROWS}
    for sid, line in pairs:
        if sid in failure_lines.SUMMARY_ROWS and (sid, line) not in summary_at and ctx.error_text:
            summary_at[(sid, line)] = failure_lines.summary_layer(ctx.error_text, line) or ""
    # a line a specific rule already reports (through one of its signatures) is left to that rule
    reported = {text for sid, text in pairs if sid in claimed}
    init_failed = any(sid == "amdgpu_init_failed" for sid, _t in pairs)
    quoted = "\n".join(ctx.reported)
    for sid, text in pairs:
        row = error_signatures.failure(sid)
        if row is None and sid not in claimed and text not in reported and text.strip()[:80] not in quoted:
            # a known failure text of the Python table (no catalogue row): its rule needs facts the
            # paste may lack (groups, the GPU list); when no finding quotes the line, report it here
            row = _signature_row(sid)
        if row is None or row.id in claimed or (text in reported and not (init_failed and row.id in _FIRMWARE_CAUSE_ROWS)):
            continue
        if sid == "amdgpu_not_loaded" and ctx.wsl:
            # (s24-win2win) rocminfo's 'ROCk module is NOT loaded' is its check for the amdgpu module in /sys/module
            # (ROCm/rocminfo rocminfo.cc CheckInitialState): under WSL2 there is no amdgpu module by design (the GPU is
            # Windows', reached through /dev/dxg), as the amdgpu-not-loaded rule knows; the line tells a native ROCm
            # run under WSL, not a kernel failure, and the runtime's own lines say what failed
            continue
        if sid == "no_gpu_agent" and _rocminfo_gpu_agent_shown(ctx):
            # (s25-ryzenaiwin, set JK, 3660) rocminfo's agent list with only the CPU agent is read as "no GPU" from
            # the lines a paste holds; when another part of the same paste shows rocminfo's GPU agent (its 'Name:
            # gfxNNNN' / 'amdgcn-amd-amdhsa--gfxNNNN' lines, which detection reads as the GPU's target), the CPU-only
            # list is a copy cut after the first agent, not the runtime finding no GPU
            continue
        if not text or (row.id, text) in seen:
            continue
        seen.add((row.id, text))
        by_layer.setdefault(summary_at.get((sid, text)) or row.layer, []).append((row, text))
    if not by_layer:
        return None
    by_layer = _library_hip_errors(_harness_headers(by_layer, pairs, claimed))
    by_layer = _profiler_hsa_status(_torch_relays_hip_no_device(by_layer))
    if not by_layer:
        return None  # only a harness's header, and a rule reports the line that says why
    by_layer, window_note = _compile_window_faults(by_layer, pairs)
    by_layer = _psp_in_reset(by_layer, pairs)
    order = [l for l in _LAYER_ORDER if l in by_layer] + sorted(l for l in by_layer if l not in _LAYER_ORDER)
    out: List[Match] = []
    for layer in order:
        evidence: List[str] = []
        rows: List[Any] = []
        for row, text in by_layer[layer]:
            if row not in rows:
                rows.append(row)
            if len(evidence) < 6:
                evidence.append(f"[{layer}] {row.id}: {_clip(text, 240)} -- {row.meaning}")
        if len(by_layer[layer]) > 6:
            evidence.append(f"[{layer}] ... and {len(by_layer[layer]) - 6} more line(s) like these")
        if window_note and layer == "libraries":
            evidence.append(window_note)
        next_commands: List[str] = []
        for r in rows:
            next_commands += [c for c in r.next if c not in next_commands]
        fix = " ".join(dict.fromkeys(r.fix for r in rows if r.fix))
        severity = max((r.severity for r in rows), key=lambda v: _SEVERITY_RANK.get(v, 2))
        data: Dict[str, Any] = {"layer": layer, "next_commands": next_commands[:6]}
        paths = {r.path for r in rows}
        if len(paths) == 1 and None not in paths:
            data["path"] = paths.pop()
        out.append(Match(evidence=evidence, fix=fix or None, severity=severity, data=data))
    return out


# the WSL 2 rules live in their own module (registered on import)
from . import wsl_rules as _wsl_rules  # noqa: E402,F401


# s8-regress ======================================================= a release the user changed (issue 28)
# A regression of a release (a kernel series, a linux-firmware release, an amdgpu-dkms build, a ROCm
# release, a torch wheel build) shows in a paste only as a symptom at another layer; these rules put
# the finding at the release's own layer (catalog/regressions.py, data/regressions.toml).
_CHANGE_LAYER = {"kernel": "kernel", "linux-firmware": "firmware", "amdgpu-dkms": "kernel", "rocm": "packaging",
                 "torch": "framework"}
_NOT_SYMPTOMS = ("", "unrecognised", "failure_told")


# s16-heldde: a ROCm release is many components (ROCr, HIP/CLR, the math libraries), each at its own layer.  When
# the paste shows a catalogued failure of one of them, the release's regression is in that component and the
# release change is placed at its layer (2102: rocBLAS 6.2's Tensile exception after a distribution upgraded
# "all ROCm libraries to 6.2.2" is a libraries failure, not an install's); the install (packaging) keeps it only
# when no known ROCm component failure is shown.  The lowest such layer in the running stack's order wins.
_ROCM_COMPONENT_LAYERS = ("runtime", "hip", "libraries")


def _rocm_component_layer(ctx: Context) -> Optional[str]:
    """The layer of the lowest ROCm component (runtime, hip, libraries) a catalogued failure line of the paste
    names, or None when the paste shows no known failure of a ROCm component."""
    from ..detect import error_signatures

    found = set()
    for e in ctx.system.errors or []:
        sig = s(getattr(e, "signature", None))
        if sig and sig not in _NOT_SYMPTOMS:
            found.add(error_signatures.failure_layer(sig))
    return next((l for l in _ROCM_COMPONENT_LAYERS if l in found), None)


def _failure_sightings(ctx: Context) -> List[Any]:
    """The error sightings of a failure (any signature, the catch-all's too), information rows aside."""
    out = []
    for e in ctx.system.errors or []:
        sig = s(getattr(e, "signature", None))
        if not sig:
            continue
        if sig not in _NOT_SYMPTOMS:
            row = _signature_row(sig)
            if row is not None and row.severity == "info":
                continue
        out.append(e)
    return out


def _installed_versions(ctx: Context) -> Dict[str, List[Tuple[str, str]]]:
    """``{component: [(version, where)]}`` of the releases detection read."""
    osi, r = ctx.system.os, ctx.rocm
    out: Dict[str, List[Tuple[str, str]]] = {}
    if s(osi.kernel):
        out["kernel"] = [(s(osi.kernel), _src(osi, "kernel") or "the kernel release")]
    if s(getattr(osi, "linux_firmware", None)):
        out["linux-firmware"] = [(s(osi.linux_firmware), _src(osi, "linux_firmware") or "the firmware package")]
    # only what names the DKMS package or build: amd-smi's "amdgpu version" is the kernel's own release
    # for the in-tree driver, so rocm.amdgpu_version says nothing of amdgpu-dkms
    if s(r.amdgpu_dkms):
        out["amdgpu-dkms"] = [(s(r.amdgpu_dkms), _src(r, "amdgpu_dkms") or "amdgpu-dkms")]
    if s(r.version):
        out["rocm"] = [(s(r.version), _src(r, "version") or "the ROCm release")]
    torch = [(s(e.version), s(e.rocm), s(e.path)) for e in ctx.system.torch or [] if s(getattr(e, "version", None))]
    if torch:
        out["torch"] = [(v, p) for v, _rocm, p in torch]
        out["torch-rocm"] = [(rocm, p) for _v, rocm, p in torch if rocm]
    return out


def _gpus_hit(row, gfxs: List[str]) -> List[str]:
    if "all" in row.targets:
        return gfxs or ["all"]
    return [g for g in gfxs if row.hits_gfx(g)]


@rule("known-regression")
def known_regression(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """A detected release (kernel, linux-firmware, amdgpu-dkms, ROCm, a torch wheel's ROCm build) in
    a known-bad range of ``data/regressions.toml`` for the detected GPU, while the paste shows one
    of the row's symptoms: one finding per layer, at the release's layer, naming the row's source
    and the move."""
    from ..catalog import regressions

    failing = _failure_sightings(ctx)
    if not failing:
        return None
    sigs = {s(getattr(e, "signature", None)) for e in failing}
    versions = _installed_versions(ctx)
    kernel = s(ctx.system.os.kernel) or None
    gfxs = [g.lower() for g in ctx.gfx_targets]
    by_layer: Dict[str, Tuple[List[str], List[str]]] = {}
    for row in regressions.rows():
        comp = "torch-rocm" if row.component == "torch" and row.version_of == "rocm" else row.component
        blob = regressions.blob_verdict(row, getattr(ctx.system.os, "gpu_firmware", None))
        if blob is False:  # the firmware file amdgpu loaded is a known-good one (an overlay, a revert)
            continue
        have = versions.get(comp)
        if blob is True:
            ver = s(ctx.system.os.gpu_firmware.get(row.blob))
            have = [(f"({row.blob} firmware {ver})", _src(ctx.system.os, "gpu_firmware") or "amdgpu_firmware_info")]
        if not have:
            continue
        hit_gpus = _gpus_hit(row, gfxs)
        if not hit_gpus:
            continue
        want = row.signatures()
        shown = [e for e in failing if s(getattr(e, "signature", None)) in want] if regressions.ANY_SYMPTOM not in row.symptoms \
            else [e for e in failing if s(getattr(e, "signature", None)) not in ("failure_told",)]
        if not shown:
            continue
        if regressions.kernel_condition(row, kernel) is not True:
            continue
        version, where = next(((v, w) for v, w in have if blob is True or regressions.in_range(row, v) is True), (None, None))
        if version is None:
            continue
        ev, fixes = by_layer.setdefault(row.layer, ([], []))
        name = "the wheel's ROCm build" if comp == "torch-rocm" else row.component
        ev.append(f"{name} {version} ({where}) on {', '.join(hit_gpus)}: known regression {row.id} "
                  f"({row.status}; {row.fixed_text}) -- {row.source}")
        ev.append(f"  its symptom here: {_clip(s(getattr(shown[0], 'text', None)), 200)}")
        fixes.append(row.fix)
    if not by_layer:
        return None
    out = []
    for layer in [l for l in _LAYER_ORDER if l in by_layer]:
        ev, fixes = by_layer[layer]
        out.append(Match(evidence=ev[:8], fix=" ".join(dict.fromkeys(fixes))[:1200], data={"layer": layer}))
    return out


@rule("release-changed")
def release_changed(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """The user's prose says a release changed before the failure ("after updating linux-firmware",
    "works on 6.17, broken on 6.18", "downgrading the firmware fixed it") and the paste shows or
    tells of a failure: a finding at the changed component's layer, with the known regressions of
    that component that match the release named.  "After updating X" without any failure in the paste
    gives nothing; "works on X, broken on Y" and "going back to X fixed it" tell of one themselves."""
    from ..catalog import regressions

    changes = [c for c in ctx.system.changes or [] if s(getattr(c, "component", None)) in _CHANGE_LAYER]
    if not changes:
        return None
    # "works on X, broken on Y" and "going back to X fixed it" tell of a failure themselves; "after
    # updating X" needs a failure in the paste (shown, or told elsewhere)
    if not _failure_sightings(ctx):
        changes = [c for c in changes if s(getattr(c, "direction", None)) in ("good-bad", "rolled-back", "moved-fixed")]
        if not changes:
            return None
    gfxs = [g.lower() for g in ctx.gfx_targets]
    by_layer: Dict[str, Tuple[List[str], List[str]]] = {}
    for c in changes[:6]:
        comp, direction = s(c.component), s(c.direction)
        layer = _CHANGE_LAYER[comp]
        if comp == "rocm":
            layer = _rocm_component_layer(ctx) or layer
        ev, fixes = by_layer.setdefault(layer, ([], []))
        what = {"updated": f"{comp} was updated{(' to ' + s(c.bad)) if s(c.bad) else ''} before the failure",
                "good-bad": f"{comp} {s(c.good)} worked and {s(c.bad)} fails",
                "rolled-back": f"going back to {comp}{(' ' + s(c.good)) if s(c.good) else ''} fixed it",
                "moved-fixed": f"moving {comp} to {s(c.bad) or 'another release'} fixed it"}.get(direction, comp)
        ev.append(f"the paste says {what}: \"{_clip(s(c.line), 220)}\" ({_src(c, 'line') or 'the paste'})")
        bad = s(c.bad) if direction != "moved-fixed" else ""
        known = False
        for row in regressions.for_component(comp):
            if not (gfxs and _gpus_hit(row, gfxs)) and "all" not in row.targets:
                continue
            if bad and regressions.in_range(row, bad) is not True:
                continue
            if s(c.good) and regressions.in_range(row, s(c.good)) is True:
                continue  # the release that worked is in the row's bad range: not this regression
            if not bad and not gfxs:
                continue
            ev.append(f"  a known regression of {comp} that fits: {row.id} ({row.status}; {row.fixed_text}) -- {row.source}")
            fixes.append(row.fix)
            known = True
            break
        if not known:
            fixes.append(f"Confirm it: boot (or install) the {comp} release that worked and run the failing command again; "
                         f"then pin it until a release with the fix is out, and report the two releases upstream.")
    out = []
    for layer in [l for l in _LAYER_ORDER if l in by_layer]:
        ev, fixes = by_layer[layer]
        out.append(Match(evidence=ev[:8], fix=" ".join(dict.fromkeys(fixes))[:1200], data={"layer": layer}))
    return out or None


# s9-helds ======================================================= several GPUs in one process (issue 28)
def _device_list(value: str) -> List[str]:
    return [x.strip() for x in s(value).split(",") if x.strip()]


@rule("visible-devices-stacked")
def visible_devices_stacked(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """ROCR_VISIBLE_DEVICES and a HIP-level mask both set, the HIP index past what ROCr left: ROCr exposes
    only its list, and HIP (CLR) numbers those from 0 before applying HIP_VISIBLE_DEVICES /
    CUDA_VISIBLE_DEVICES / GPU_DEVICE_ORDINAL, so an index counted on the whole machine names no GPU
    (PyTorch raises "HIP_VISIBLE_DEVICES out of bounds index after applying ROCR_VISIBLE_DEVICES")."""
    vis = ctx.visible_devices
    rocr = _device_list(vis.get("ROCR_VISIBLE_DEVICES", ""))
    if not rocr:
        return None
    ev = []
    for k in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"):
        idx = [int(x) for x in _device_list(vis.get(k, "")) if x.isdigit()]
        past = [i for i in idx if i >= len(rocr)]
        if past:
            ev.append(f"ROCR_VISIBLE_DEVICES={vis['ROCR_VISIBLE_DEVICES']} leaves {len(rocr)} GPU(s), which HIP numbers "
                      f"0..{len(rocr) - 1}; {k}={vis[k]} asks for index {', '.join(map(str, past))}: "
                      + ("no GPU is left" if len(past) == len(idx) else "that one does not exist"))
    if not ev:
        return None
    where = s((ctx.access.sources or {}).get("visible_devices")) or "the environment"
    ev.append(f"set in {where}")
    ev += ctx.error_hits(meta.compiled)[:3]
    keep = vis["ROCR_VISIBLE_DEVICES"]
    return Match(ev, fix=f"Set one mask only: keep ROCR_VISIBLE_DEVICES={keep} and unset HIP_VISIBLE_DEVICES / "
                         f"CUDA_VISIBLE_DEVICES (or give them indices counted from 0 among the GPUs ROCr left).")


# s14-heldcf ============================================= an AMD GPU beside another vendor's GPU (issue 28)
_HIP_MASKS = ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


@rule("visible-devices-hide-all")
def visible_devices_hide_all(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """A mask HIP reads (HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL) whose list starts with a
    negative index: HIP reads the list in order and -1 names no GPU, so the process sees none.  HIP reads
    CUDA_VISIBLE_DEVICES like HIP_VISIBLE_DEVICES (HIP's environment-variable reference), so the common
    'CUDA_VISIBLE_DEVICES=-1' meant to hide an NVIDIA GPU hides the AMD GPU too (ollama/ollama#15752).
    Silent for lists of real indices (visible-devices-stacked and the device-index rules speak for those)."""
    vis = ctx.visible_devices
    hiding = [k for k in _HIP_MASKS if re.fullmatch(r"-\d+", (_device_list(vis.get(k, "")) or [""])[0])]
    if not hiding:
        return None
    where = s((ctx.access.sources or {}).get("visible_devices")) or "the environment"
    ev = [f"{k}={vis[k]} (set in {where}) starts with a negative index: HIP shows the process no GPU" for k in hiding]
    if "CUDA_VISIBLE_DEVICES" in hiding:
        ev.append("HIP reads CUDA_VISIBLE_DEVICES as it reads HIP_VISIBLE_DEVICES: a value meant to hide an NVIDIA "
                  "GPU from CUDA hides the AMD GPU from HIP too")
    ev += ctx.error_hits(meta.compiled)[:3]
    return Match(ev, fix=f"Unset {', '.join(hiding)} for the ROCm program (run it in an environment without "
                         f"{hiding[0]}); to choose among AMD GPUs use ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES "
                         f"with the indices rocminfo shows.")


@rule("hsa-override-every-visible-gpu")
def hsa_override_every_visible_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """One global HSA_OVERRIDE_GFX_VERSION in a process that is shown more than one GPU, and GPU faults,
    when the paste does not tell the GPUs' own targets (the GPU-aware override rules speak when it does):
    libhsakmt (topology.c) applies HSA_OVERRIDE_GFX_VERSION_<node> to its node and the global form to every
    node without one, so every visible GPU runs code for the overridden target, and the faults of the GPU
    that is not that target follow from it (model.CAUSE_RULES: it leads the kernel's and runtime's fault lines)."""
    value = ctx.hsa_override.get("HSA_OVERRIDE_GFX_VERSION")
    if not value or len(ctx.hsa_override) > 1:
        return None  # no global override, or the per-node form is in use beside it
    vis = ctx.visible_devices
    key = next((k for k in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES") if vis.get(k)), None)
    shown = len(_device_list(vis[key])) if key else 0
    if shown < 2 or len({v.gfx for v in ctx.gpus if v.gfx}) >= 2:
        return None
    faults = ctx.error_hits(meta.compiled)
    if not faults:
        return None  # the setting alone may be harmless (GPUs of one target): it speaks when the GPUs fault
    as_gfx = overrides.gfx_of_value(value) or value
    where = s((ctx.access.sources or {}).get("env")) or "the environment"
    ev = [f"HSA_OVERRIDE_GFX_VERSION={value} ({where}) makes the runtime report {as_gfx} for every GPU of the process",
          f"{key}={vis[key]} shows the process {shown} GPUs; a GPU of another target than {as_gfx} then runs {as_gfx} "
          f"code (illegal instructions or memory violations, GPU resets)"]
    ev += faults[:3]
    return Match(ev, community=True,
                 fix=f"Give the override to the GPU that needs it only: HSA_OVERRIDE_GFX_VERSION_<node>={value} (the "
                     f"node number rocminfo prints for that GPU, 'Node:'; the CPU is node 0) and unset "
                     f"HSA_OVERRIDE_GFX_VERSION; or run one process per GPU with ROCR_VISIBLE_DEVICES.")


_GPU_FAULT = re.compile(r"Memory access fault by GPU|HW Exception by GPU|Page not present or supervisor privilege", re.I)
# (s12-heldat) what the kernel driver reports of a GPU running code it cannot: a VM page fault of a hub, a WARNING
# trace in amdgpu, KFD's interrupt ring overflowing, a ring timeout or MES not answering
# (drivers/gpu/drm/amd/amdgpu/gmc_v*.c, amdgpu_job.c, amdkfd/kfd_interrupt.c, mes_v*.c)
_KERNEL_GPU_FAULT = re.compile(r"\[(?:gfxhub|mmhub|vmhub)\d*\] (?:no-)?(?:retry )?page fault"
                               r"|WARNING: CPU: \d+ PID: \d+ at drivers/gpu/drm/amd/|\bih_fifo overflow\b"
                               r"|\bring \S+ timeout\b|\bMES failed to respond\b")


@rule("hsa-override-gpu-fault")
def hsa_override_gpu_fault(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """A global HSA_OVERRIDE_GFX_VERSION that retargets the GPU (or whose GPU the paste does not tell) and the
    kernel driver reporting the GPU faulting: the override makes the runtime load code built for another target,
    and ROCm's own fix for such crashes (ROCm/rocm-systems PR #3461, #5686: libhsakmt refusing overrides to other
    targets because they cause 'kernel crashes, KFD interrupt handler overflows, and GPU resets') names it the cause.
    Silent when the override names the GPU's own target, when it crosses instruction-set groups
    (hsa-override-other-isa speaks) and when several GPUs share it (hsa-override-every-visible-gpu speaks)."""
    value = ctx.hsa_override.get("HSA_OVERRIDE_GFX_VERSION")
    if not value or len(ctx.hsa_override) > 1:
        return None
    as_gfx = overrides.gfx_of_value(value)
    if not as_gfx:
        return None
    known = {v.gfx for v in ctx.gpus if v.gfx}
    if len(known) > 1 or len(ctx.gpus) > 1:
        return None  # several GPUs: the rules for one override over several GPUs speak
    if known and (as_gfx in known or overrides.isa_group(next(iter(known))) != overrides.isa_group(as_gfx)):
        return None  # the GPU's own target (a no-op), or another group (hsa-override-other-isa)
    faults = ctx.error_hits([_KERNEL_GPU_FAULT])
    if not faults:
        return None  # the setting alone is the community practice: it speaks when the GPU faults
    where = s((ctx.access.sources or {}).get("env")) or "the environment"
    chip = next(iter(known)) if known else None
    ev = [f"HSA_OVERRIDE_GFX_VERSION={value} ({where}) makes the runtime load {as_gfx} code"
          + (f" on the {chip} GPU" if chip else " on a GPU whose own target the paste does not show")]
    ev += faults[:3]
    return Match(ev, community=True)


# a collective RCCL runs (its API names, its INFO log of one): the fault is in that collective's kernel
_RCCL_COLLECTIVE = re.compile(r"\bnccl(?:AllReduce|AllGather|ReduceScatter|Broadcast|Reduce|AllToAll|Send|Recv)\b"
                              r"|NCCL INFO (?:AllReduce|AllGather|ReduceScatter|Broadcast|Reduce): opCount")


@rule("rccl-collective-gpu-fault")
def rccl_collective_gpu_fault(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """A GPU memory fault the paste ties to an RCCL collective (ncclAllReduce and kin): ROCr's queue error
    handler prints the fault for whatever kernel faulted, here RCCL's, which reads and writes the other
    GPUs' buffers through peer (P2P) or IPC mappings."""
    faults = ctx.error_hits([_GPU_FAULT])
    colls = ctx.error_hits([_RCCL_COLLECTIVE])
    if not faults or not colls:
        return None
    ev = faults[:2] + colls[:2]
    if len(ctx.gpus) > 1:
        ev.append("GPUs: " + ", ".join(v.label for v in ctx.gpus))
    return Match(ev)


# (s12-heldat) a ROCm library's own driver or benchmark client, as detection found it run (detect/parsers/workloads.py)
_LIBRARY_CLIENTS = ("MIOpenDriver", "rocblas-bench", "hipblaslt-bench")


@rule("library-client-gpu-fault")
def library_client_gpu_fault(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """A GPU memory fault in a process the paste shows to be a ROCm library's own driver or benchmark client
    (MIOpenDriver, rocblas-bench, hipblaslt-bench): such a client runs that library's kernels and nothing else,
    so the kernel ROCr's queue error handler reports faulting is the library's (as rccl-collective-gpu-fault
    puts a fault inside an RCCL collective in RCCL)."""
    faults = ctx.error_hits([_GPU_FAULT])
    if not faults:
        return None
    from ..detect.parsers import workloads as _workloads

    # the clients detection saw in the pasted outputs, and those in the error text given to diagnose
    seen = [(s(w.id), s(w.line)) for w in list(getattr(ctx.system, "workloads", None) or [])]
    seen += _workloads.scan(ctx.error_text)
    clients = list(dict.fromkeys((wid, line) for wid, line in seen if wid in _LIBRARY_CLIENTS))
    if not clients:
        return None
    return Match(faults[:2] + [f"{line} (the process: {wid}, the library's own client)" for wid, line in clients[:2]])


_NO_CODE = re.compile(r"no kernel image is available|hipErrorNoBinaryForGpu|invalid device function|"
                      r"hipErrorInvalidDeviceFunction|The program ISA \S+ is not compatible with the device ISA", re.I)
# the matrix-multiply path that goes through rocBLAS/hipBLAS (ggml's MUL_MAT ops hand large products to it)
_BLAS_CALL = re.compile(r"\bMUL_MAT(?:_ID)? failed|\brocblas|\bhipblas(?!lt)|\bTensile|\bCijk_", re.I)
_ISA_PAIR = re.compile(r"The program ISA amdgcn-amd-amdhsa--(gfx\w+)\S* is not compatible with the device ISA "
                       r"amdgcn-amd-amdhsa--?(gfx\w+)")


@rule("blas-library-of-another-gpu")
def blas_library_of_another_gpu(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """GPUs of two targets in one process and a BLAS kernel without code for the GPU it runs on: either a
    build without one target, or rocBLAS before ROCm/rocm-libraries#4781 (merged 2026-02-20), which keeps one
    Tensile solution library per process, loaded for the first GPU it is used on, so a GPU of another target is
    handed kernels of the first (rocm-libraries#3413, rocBLAS#1346).  CLR's "The program ISA <a> is not
    compatible with the device ISA <b>" with both targets in the machine settles it (an error then)."""
    targets = sorted({support.normalize_gfx(v.gfx) for v in ctx.gpus if v.gfx} - {None, ""})
    if len(targets) < 2:
        return None
    code = ctx.error_hits([_NO_CODE])
    if not code:
        return None
    blas = ctx.error_hits([_BLAS_CALL])
    pairs = [m.groups() for line in code for m in [_ISA_PAIR.search(line)] if m]
    crossed = [(a, b) for a, b in pairs if a in targets and b in targets and a != b]
    if not blas and not crossed:
        return None
    ev = code[:2] + blas[:2]
    ev += [f"code built for {a} was loaded on the {b} GPU: both are in this machine" for a, b in crossed[:2]]
    ev.append("GPU targets in the process: " + ", ".join(targets) + " (" + ", ".join(v.label for v in ctx.gpus) + ")")
    return Match(ev, severity="error" if crossed else None)


# s10-heldx ========================================== an APU out of GPU memory at the kernel's GTT size
# amdgpu logs the GTT it set up ("<N>M of GTT memory ready.", drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c); on an APU
# that is the GPU's memory beside the BIOS carve-out, capped by the kernel's TTM limit (about half of RAM by
# default), so an out-of-memory of a program on that GPU is the GTT ceiling (antirez/ds4#475 on a 128 GB Strix Halo
# with 63968M of GTT; AMD's RDNA3.5 guidance raises it with amd-ttm).
_GTT_READY = re.compile(r"\b(\d{1,10})M of GTT memory ready\.")
_OUT_OF_MEMORY = re.compile(r"\bout of memory\b|OutOfMemoryError|hipErrorOutOfMemory", re.I)


@rule("apu-gtt-ceiling")
def apu_gtt_ceiling(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    from ..catalog import gpus as gpu_catalog

    apus = [v for v in ctx.gpus if v.igpu or (v.gfx and gpu_catalog.apu_only_gfx(v.gfx))]
    if not apus or any(s(v.gpu.kind) == "dgpu" for v in ctx.gpus):
        return None  # a discrete GPU in the machine: its own memory, not GTT, may be what ran out
    gtt = ctx.error_hits([_GTT_READY], meta.error_signatures)
    oom = [h for h in ctx.error_hits([_OUT_OF_MEMORY]) if not _GTT_READY.search(h)]
    if not gtt or not oom:
        return None
    return Match(gtt[:2] + oom[:2] + [f"{v.label}: an APU's GPU (its memory is GTT beside the carve-out)" for v in apus])


# s12-heldax ====================================== the runtime's total far below the memory the driver set up
# amdgpu_ttm.c's "%uM of VRAM memory ready" / "%uM of GTT memory ready." and PyTorch's allocator message ("GPU %d has
# a total capacity of %s", c10/cuda/CUDACachingAllocator.cpp; "(GPU %d; %s total capacity" before 2.1, "capacty" in 2.1)
_DRIVER_READY = re.compile(r"\b(\d{1,10})M of (VRAM|GTT) memory ready\b")
_TORCH_TOTAL = re.compile(r"GPU \d+ has a total capaci?ty of (\d+(?:\.\d+)?) ([GM]iB)"
                          r"|\(GPU \d+; (\d+(?:\.\d+)?) ([GM]iB) total capacity")


@rule("gpu-memory-below-driver")
def gpu_memory_below_driver(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """The total GPU memory a program reports (PyTorch's allocator message) is less than half of the largest pool
    amdgpu set up (its VRAM or GTT 'memory ready' line): the kernel's KFD hands ROCm a smaller pool than the driver
    has (ROCm/ROCm#5444: kernels before 6.16.9 sized a Strix Halo's pool from GTT, not its 96 GB carve-out)."""
    ready: Tuple[int, str] = (0, "")
    total: Tuple[float, str] = (0.0, "")
    for text, where, _sig in ctx.error_lines:
        for m in _DRIVER_READY.finditer(text):
            if int(m.group(1)) > ready[0]:
                ready = (int(m.group(1)), f"{where}: {_clip(text)}")
        for m in _TORCH_TOTAL.finditer(text):
            num, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            mib = float(num) * (1024 if unit == "GiB" else 1)
            if mib > total[0]:
                total = (mib, f"{where}: {_clip(text)}")
    if not ready[0] or not total[0] or total[0] * 2 > ready[0]:
        return None
    return Match([ready[1], total[1],
                  f"the program sees {total[0] / 1024:.2f} GiB of GPU memory, the driver set up {ready[0] / 1024:.2f} GiB"])


# s9 ================================================ an allocation refused although the device reported it free
# ggml's refused hipMalloc ("<func>: allocating <N> MiB on device <d>: cudaMalloc failed: out of memory") and the
# memory the same program reported free on that device (--list-devices' "ROCm<d>: <name> (<total> MiB, <free> MiB
# free)", the model loader's "using device ROCm<d> (...) - <free> MiB free"): ggml-org/llama.cpp ggml-cuda.cu,
# common/arg.cpp, src/llama.cpp
_GGML_ALLOC_OOM = re.compile(r"allocating (\d+(?:\.\d+)?) MiB on device (\d{1,2}): cudaMalloc failed: out of memory")
_GGML_FREE = re.compile(r"(?:^|[\s-])ROCm(\d{1,2})[ \t]*: [^\n]{1,160}\(\d{1,9} MiB, (\d{1,9}) MiB free\)|"
                        r": using device ROCm(\d{1,2}) \([^\n]{1,200}?\) - (\d{1,9}) MiB free\b")


@rule("allocation-refused-below-free")
def allocation_refused_below_free(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """ggml's hipMalloc refused with "out of memory" for a block smaller than the memory the same program
    reported free on that device: the model's size is not what failed but the HIP runtime's limit on one
    allocation (Windows' HIP runtime and APUs cap a single block below the free memory they report), so the
    finding is at hip, ahead of the framework's out-of-memory row (wl_ggml_device_malloc_oom)."""
    asked: Dict[str, Tuple[float, str]] = {}
    free: Dict[str, Tuple[int, str]] = {}
    for text, where, _sig in ctx.error_lines:
        for m in _GGML_ALLOC_OOM.finditer(text):
            mib, dev = float(m.group(1)), m.group(2)
            if dev not in asked or mib < asked[dev][0]:
                asked[dev] = (mib, f"{where}: {_clip(text)}")
        for m in _GGML_FREE.finditer(text):
            dev, mib = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if dev not in free or int(mib) > free[dev][0]:
                free[dev] = (int(mib), f"{where}: {_clip(text)}")
    ev = []
    for dev, (mib, line) in sorted(asked.items()):
        if dev in free and mib < free[dev][0]:
            ev += [line, free[dev][1],
                   f"device {dev}: {mib:g} MiB asked in one block, {free[dev][0]} MiB reported free by the same program"]
    return Match(ev) if ev else None


# s10-heldv (held-out set V: containers, VMs and clouds) ----------------------------------------------------------
# amdgpu's failures to read the IP discovery table (amdgpu_discovery.c), and the signs that the GPU is an SR-IOV
# virtual function: the host SR-IOV driver's full-access message (GIM/libgv amdgv_sched.c, a catalogue row), an
# MxGPU or VF device name (pci.ids, ROCm's marketing names), the hypervisor sighting's VF forms
_DISCOVERY_ROWS = ("kernel_discovery_failed", "kernel_discovery_checksum", "kernel_discovery_signature",
                   "kernel_discovery_table_version", "k12_discovery_file_failed", "k12_discovery_init_failed",
                   "k12_discovery_table_unknown")
_VF_LINE = re.compile(r"\S entered full access mode\b|\bgim (?:info|error|warn)|\blibgv\b|MxGPU|"
                      r"\(Virtual Function\)|\bInstinct MI\d{3}[A-Z]? VF\b", re.I)
_VF_NAME = re.compile(r"MxGPU|\bVF\b|Virtual Function", re.I)


@rule("ip-discovery-on-vf")
def ip_discovery_on_vf(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """amdgpu could not read the IP discovery table of a GPU the paste shows to be an SR-IOV VF: a VF reads the
    copy the host's PF driver put in its framebuffer (amdgpu_discovery_read_binary_from_mem skips the firmware
    wait for VFs), so the host side (GIM, the VF's framebuffer, the guest/host driver pair) is where to look,
    not the card's firmware as on bare metal (kernel_discovery_signature's firmware row)."""
    disc = [f"{where}: {_clip(text)}" for text, where, sig in ctx.error_lines if sig in _DISCOVERY_ROWS]
    disc += [f"error text: {_clip(line)}" for sid, line in _scanned(ctx) if sid in _DISCOVERY_ROWS]
    if not disc:
        return None
    vf = _vf_evidence(ctx)
    if not vf:
        return None
    return Match(list(dict.fromkeys(disc))[:3] + list(dict.fromkeys(vf))[:2])


def _vf_evidence(ctx: Context) -> List[str]:
    """The lines that show the paste's GPU to be an SR-IOV virtual function (host driver's full-access message,
    a VF device name)."""
    vf_rows = ("s10v_gim_vf_full_access", "vm_guest")
    vf = [f"{where}: {_clip(text)}" for text, where, sig in ctx.error_lines
          if sig in vf_rows and _VF_LINE.search(text)]
    vf += [f"error text: {_clip(line)}" for sid, line in _scanned(ctx) if sid in vf_rows and _VF_LINE.search(line)]
    vf += [f"{v.label}: an SR-IOV virtual function" for v in ctx.gpus if v.gpu.name and _VF_NAME.search(v.gpu.name)]
    return vf


def _firmware_discovery_lines(ctx: Context) -> List[str]:
    """The paste's lines of amdgpu failing to read a bare-metal GPU's IP discovery table that the catalogue places
    at the firmware layer (amdgpu_discovery.c: the table the firmware leaves in VRAM has a bad signature or
    checksum), none when the GPU is shown to be an SR-IOV VF (its table is the host driver's copy)."""
    from ..detect import error_signatures

    rows = {r for r in _DISCOVERY_ROWS if error_signatures.failure_layer(r) == "firmware"}
    lines = [_clip(text) for text, _where, sig in ctx.error_lines if sig in rows]
    lines += [_clip(line) for sid, line in _scanned(ctx) if sid in rows]
    if not lines or _vf_evidence(ctx):
        return []
    return list(dict.fromkeys(lines))


# HIP finding no device as a program reports it, with the paste_facts source tag of the same program's device list:
# ggml's ggml_cuda_init (its "found N ROCm devices" list, source #ggml) and PyTorch (torch.cuda's RuntimeError, its
# device list #torch).  Only the same program counts: another tool's list (lspci, the SMI tools) sees the GPU
# without the runtime, and another release of a tool (HIP SDK 6.4's hipInfo against 7.1's) is a version question
_NO_DEVICE_BY_PROGRAM = (
    (re.compile(r"ggml_cuda_init: failed to initiali[sz]e ROCm: no ROCm-capable device is detected", re.I), "ggml"),
    (re.compile(r"RuntimeError: No HIP GPUs are available", re.I), "torch"),
)
_GGML_FOUND = re.compile(r"ggml_cuda_init: found [1-9]\d* ROCm devices")


@rule("hip-no-device-but-gpu-enumerated")
def hip_no_device_but_gpu_enumerated(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    """One run of a program found no HIP device while another output of the same program in the same paste
    lists the GPU: driver, GPU and build work, the failing process was not given the GPU (a container
    without the device nodes, a group it lacks there, a visible-devices mask of its own)."""
    ev: List[str] = []
    for rx, tag in _NO_DEVICE_BY_PROGRAM:
        none = ctx.error_hits([rx])
        if not none:
            continue
        listed = [f"{v.label} ({v.gfx}): listed by {tag} in the same paste" for v in ctx.gpus
                  if v.gfx and any(str(x).endswith("#" + tag) for x in (getattr(v.gpu, "sources", None) or {}).values())]
        if tag == "ggml":  # a pasted error text: ggml's own count of the devices it found
            listed += ctx.error_hits([_GGML_FOUND])
        if listed:
            ev += none[:2] + listed[:2]
    return Match(ev) if ev else None
