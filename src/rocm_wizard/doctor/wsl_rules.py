"""The WSL 2 rules: what AMD's WSL pages say about the GPU, the Windows side and the torch wheel, as
data from ``catalog/data/compat.toml`` ``[wsl]`` (each row with its sources).

* ``wsl-rdna2-unsupported``: an RDNA2 GPU (gfx103x) under WSL: no release supports it there;
* ``wsl-gpu-unsupported``: another GPU AMD's WSL lists do not name, at all or for the host's release
  (with the first release that names it);
* ``wsl-adrenalin-too-old``: the Windows driver a paste names is older than the one AMD named for the
  host's WSL release (6.x runtime rows only: librocdxg names no version);
* ``wsl-windows-release``: a Windows 10 host where the WSL user space needed is librocdxg (Windows 11
  only in its matrix);
* ``wsl-dxg-switch``: the librocdxg user space (ROCm 7.2 to 10.0) without HSA_ENABLE_DXG_DETECTION=1;
* ``wsl-torch-own-hsa``: the 6.x WSL runtime (rocr4wsl) with a torch wheel that still carries its own
  libhsa-runtime64 (shown in its torch/lib, or likely: a pip wheel and torch that sees no GPU).

The release is the host's ROCm, else the one pasted repository lines name (``os.wsl_rocm_named``).
"""
from __future__ import annotations

from typing import List, Optional

from ..catalog import compat
from .context import Context, s
from .matchers import Match, _src, rule
from .registry import RuleMeta

RDNA2_PREFIX = "gfx103"
TORCH_NO_GPU = ("torch_gpu_unavailable", "torch_no_hip_gpus")


def _release(ctx: Context) -> Optional[str]:
    return ctx.host_rocm or s(getattr(ctx.os, "wsl_rocm_named", None)) or None


def _release_line(ctx: Context) -> str:
    if ctx.host_rocm:
        return f"ROCm {ctx.host_rocm}" + _src(ctx.rocm, "version")
    rel = s(getattr(ctx.os, "wsl_rocm_named", None))
    return f"ROCm {rel}" + _src(ctx.os, "wsl_rocm_named") if rel else "ROCm release not shown"


def _judged(ctx: Context):
    """The GPUs to judge: discrete ones; an integrated GPU only when it is the only AMD GPU (an APU such
    as Strix Halo is the compute GPU; beside a discrete card, the iGPU is not what the user runs)."""
    dgpus = [g for g in ctx.gpus if not g.igpu]
    return dgpus or list(ctx.gpus)


def _generation(ctx: Context) -> Optional[str]:
    """The WSL user space shown, else the only one the release can run under WSL: rocr4wsl before
    librocdxg's first release (whatever the release, no other WSL runtime exists for it), librocdxg from it."""
    gen = s(getattr(ctx.os, "wsl_userspace", None))
    if gen:
        return gen
    rel = _release(ctx)
    if not rel or not compat.version_key(rel):
        return None
    first = str(compat.wsl_facts().get("librocdxg_from", "7.2"))
    return "librocdxg" if compat.version_key(rel) >= compat.version_key(first) else "rocr4wsl"


def _srcs(*keys: str) -> str:
    w = compat.wsl_facts()
    out: List[str] = []
    for k in keys:
        for t in w.get(k, []) or []:
            if t not in out:
                out.append(t)
    return ", ".join(out)


@rule("wsl-rdna2-unsupported")
def wsl_rdna2(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.wsl:
        return None
    hits = [g for g in _judged(ctx) if (g.gfx or "").startswith(RDNA2_PREFIX)]
    if not hits:
        return None
    w = compat.wsl_facts()
    if w.get("rdna2") is not False:
        return None
    ev = [f"GPU {g.index}: {g.label} ({g.gfx}, RDNA2)" for g in hits]
    ev.append(f"AMD: RDNA2 is not supported under WSL, in any ROCm release (sources: {_srcs('rdna2_sources')})")
    if w.get("override_helps") is False:
        ev.append("HSA_OVERRIDE_GFX_VERSION cannot help under WSL (the Windows driver decides): "
                  + _srcs("first_sources"))
    return Match(ev, data={"gfx": [g.gfx for g in hits]})


@rule("wsl-gpu-unsupported")
def wsl_gpu_unsupported(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.wsl:
        return None
    rel = _release(ctx)
    ev: List[str] = []
    never = False
    for g in _judged(ctx):
        if not g.gfx or g.gfx.startswith(RDNA2_PREFIX):
            continue
        name = s(g.gpu.name)
        first = compat.wsl_first_listing(g.gfx, name)
        if first is None:
            ev.append(f"GPU {g.index}: {g.label} ({g.gfx}) is on none of AMD's WSL lists (ROCm "
                      f"{compat.wsl_first_release()} to the newest this catalog holds)")
            never = True
            continue
        if not compat.wsl_generation(rel):
            continue  # a release before WSL support (or none shown): the release is the cause, not the GPU
        ok, row = compat.wsl_supports(g.gfx, rel, name)
        if ok is False:
            listed = row.rocm_min if row is not None else compat.wsl_first_release()
            ev.append(f"GPU {g.index}: {g.label} ({g.gfx}) is not on AMD's WSL list for {_release_line(ctx)} "
                      f"(the list from ROCm {listed}, {row.status if row else 'observed'}); AMD lists it from ROCm "
                      f"{first.rocm_min} ({compat.wsl_generation(first.rocm_min)}; sources: {', '.join(first.sources)})")
    if not ev:
        return None
    fix = None
    if not never:
        fix = ("Install the WSL user space of a release that lists this GPU (rocm-wizard's rocm-upgrade under WSL "
               "plans it, with no kernel driver), with the Windows driver that release names; or use native Linux.")
    return Match(ev, fix=fix)


@rule("wsl-adrenalin-too-old")
def wsl_adrenalin(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    drv = s(getattr(ctx.os, "windows_driver", None))
    if not ctx.wsl or not drv:
        return None
    rel = _release(ctx)
    row = compat.wsl_adrenalin(rel)
    if row is None or compat.version_key(drv) >= compat.version_key(row.min):
        return None
    return Match([f"Windows driver: Adrenalin {drv}" + _src(ctx.os, "windows_driver"),
                  f"{_release_line(ctx)}: AMD named Adrenalin {row.min} for ROCm {row.rocm} under WSL "
                  f"({row.status}; sources: {', '.join(row.sources)})"],
                 fix=f"On Windows, install AMD Software: Adrenalin Edition {row.min} (the version AMD names for this "
                     f"WSL release; AMD says only specific versions are compatible), then restart WSL (wsl --shutdown).",
                 data={"driver": drv, "min": row.min})


@rule("wsl-windows-release")
def wsl_windows(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    win = s(getattr(ctx.os, "windows_release", None))
    if not ctx.wsl or not win:
        return None
    gen = _generation(ctx)
    why = ""
    if gen:
        why = f"the WSL user space here is {gen}" + (_src(ctx.os, "wsl_userspace") if getattr(ctx.os, "wsl_userspace", None)
                                                       else f" ({_release_line(ctx)})")
    else:  # the user space this GPU needs: the first release that lists it
        for g in _judged(ctx):
            first = compat.wsl_first_listing(g.gfx, s(g.gpu.name)) if g.gfx else None
            if first is not None:
                gen = compat.wsl_generation(first.rocm_min)
                why = f"{g.label} is on AMD's WSL list from ROCm {first.rocm_min}: the {gen} user space"
                break
    listed, sources = compat.wsl_windows(gen)
    if not listed or win in listed:
        return None
    build = s(getattr(ctx.os, "windows_build", None))
    return Match([f"Windows {win}" + (f" (build {build})" if build else "") + _src(ctx.os, "windows_release"),
                  why, f"AMD's {gen} WSL matrix lists Windows {', '.join(listed)} (sources: {', '.join(sources)})"],
                 data={"windows": win, "userspace": gen})


@rule("wsl-dxg-switch")
def wsl_dxg_switch(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.wsl or _generation(ctx) != "librocdxg":
        return None
    rel = _release(ctx)
    w = compat.wsl_facts()
    default_from = str(w.get("dxg_env_default_from", ""))
    if rel and default_from and compat.version_key(rel) >= compat.version_key(default_from):
        return None  # the runtime looks for /dev/dxg itself from 10.1
    val = s(getattr(ctx.os, "wsl_dxg_switch", None))
    if val == "1":
        return None
    env = str(w.get("dxg_env", "HSA_ENABLE_DXG_DETECTION=1"))
    ev = [f"librocdxg user space: {_release_line(ctx)}" + (_src(ctx.os, "wsl_userspace") if getattr(ctx.os, "wsl_userspace", None) else "")]
    if val:
        ev.append(f"HSA_ENABLE_DXG_DETECTION={val}" + _src(ctx.os, "wsl_dxg_switch"))
    else:
        ev.append("HSA_ENABLE_DXG_DETECTION is not set" + (" in this environment" if s(ctx.system.origin) != "snapshot"
                                                           else " in anything shown"))
    return Match(ev, fix=f"export {env} (in ~/.bashrc, the service's environment, or docker run -e); the runtime "
                         f"loads librocdxg only then; check `ldconfig -p | grep librocdxg` (sources: {_srcs('librocdxg_sources')}).")


@rule("wsl-torch-own-hsa")
def wsl_torch_own_hsa(ctx: Context, meta: RuleMeta) -> Optional[Match]:
    if not ctx.wsl or _generation(ctx) != "rocr4wsl":
        return None
    w = compat.wsl_facts()
    ev: List[str] = []
    for e in ctx.envs:
        own = list(getattr(e.env, "bundled_hsa", []) or [])
        if own:
            ev.append(f"{e.label}: torch/lib still has {', '.join(own)}" + _src(e.env, "bundled_hsa"))
    severity = None
    if not ev:
        no_gpu = [f"{where}: {text[:160]}" for text, where, sig in ctx.error_lines if sig in TORCH_NO_GPU]
        wheels = [e for e in ctx.envs if e.build == "rocm" and s(e.env.stream) != "pip"]
        if not no_gpu or (ctx.envs and not wheels):
            return None
        ev += no_gpu[:2] + [f"{e.label}: torch {e.version} (a wheel that bundles its own HSA runtime)" for e in wheels]
        ev.append("likely: unless it was removed, the wheel loads its own libhsa-runtime64, which has no WSL support")
        severity = "warning"
    gen_src = _src(ctx.os, "wsl_userspace") if getattr(ctx.os, "wsl_userspace", None) else f" ({_release_line(ctx)})"
    ev.append("WSL user space: rocr4wsl (the ROCm 6.x-7.1 WSL runtime)" + gen_src)
    fix = (f"AMD's WSL steps: {w.get('hsa_removal', '')}; rocm-wizard's torch-reinstall under WSL does it "
           f"(sources: {_srcs('hsa_removal_sources', 'hsa_replace_sources')}).")
    return Match(ev, fix=fix, severity=severity)
