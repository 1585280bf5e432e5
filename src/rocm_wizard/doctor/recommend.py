"""Ways out, ranked for one system: ``torch-reinstall`` (a venv), ``docker`` (AMD's image) and
``rocm-upgrade`` (AMD's apt repository).  Every path gets a :class:`Recommendation`; one that does
not apply says why (no Docker daemon, not Ubuntu, no official build for this GPU...).  The target
of each is the compatibility resolver's (``rocm_wizard.resolve``); this module only words it and
carries the resolver's proof (``Recommendation.proof``).

``target`` dictionaries (read by the plan engine):

* torch-reinstall: ``venv`` (path or None for a new one), ``torch``, ``torchvision``, ``torchaudio``,
  ``triton`` (exact requirement), ``index`` (name), ``index_url``, ``requirements`` (list),
  ``env`` (variables to set, e.g. TORCH_BLAS_PREFER_HIPBLASLT), ``mode`` (switch | repair | blas-fallback)
* rocm-upgrade: ``mode`` (upgrade | repair: the installed release, never a downgrade), ``rocm``, ``series``, ``apt_dir``, ``ubuntu``, ``codename``, ``repo_base``,
  ``kernel_driver`` (amdgpu-dkms | none), ``kernel_ok`` (the
  running kernel series is listed for the target: True/False, None when unknown), ``torch`` (a
  torch-reinstall-like dict for the matching index, or None)
* docker: ``image``, ``tag``, ``rocm``, ``torch``, ``python``, ``ubuntu``, ``flags``

What a way out does (its commands, repositories, packages) is not written here: it is the plan's, and
the frontends show the plan ``--plan-only --path WAY`` makes (``rocm_wizard.plan.outline``), so there
is one renderer per way out.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .. import resolve
from ..catalog import docker as docker_cat
from ..catalog import compat, releases, support, wheels
from .context import Context, kernel_series, parse_version, s
from .model import Finding, Recommendation, lead_key
from .registry import rules

_WEIGHT = {"critical": 8, "error": 4, "warning": 2, "info": 0}
_SYSTEM_FIXES = ("apt-pin-missing", "apt-pin-wrong", "apt-floating-repo", "apt-mixed-releases", "dkms-not-built-for-kernel",
                 "amdgpu-not-loaded", "kfd-missing", "rocm-older-than-catalog", "rocm-too-old-for-gpu",
                 "rocm-ubuntu-unsupported", "dpkg-audit-unclean")
_TRITON = ("triton-duplicate", "triton-pin-mismatch", "triton-shadowed", "triton-language-error")


def recommend(ctx: Context, findings: List[Finding], *, repo_base: Optional[str] = None,
              index_base: Optional[str] = None) -> List[Recommendation]:
    ids = {f.id for f in findings}
    blocker = _blocker(ctx, ids)
    if blocker:
        return [Recommendation(p, None, False, {}, blocker) for p in ("torch-reinstall", "docker", "rocm-upgrade")]
    facts = resolve.from_system(ctx.system, ctx.error_text)
    recs = [
        _torch(ctx, facts, ids, index_base),
        _docker(ctx, facts, ids),
        _rocm(ctx, facts, ids, repo_base, index_base),
    ]
    weights: Dict[str, int] = {}
    for f in findings:
        if f.path:
            weights[f.path] = weights.get(f.path, 0) + _WEIGHT.get(f.severity, 0)
    if not any(f.severity in ("critical", "error", "warning") for f in findings):
        for r in recs:
            if r.applies:
                r.why = "No problem found; should you want to (re)build, this is the way: " + r.why
    # Docker that the snapshot does not show (neither present nor absent) is a way that applies, but
    # after the ways that need nothing unknown -- unless the work is vLLM's, whose answer it is
    unsure = set() if facts.vllm or ctx.docker.daemon is True or docker_shown(ctx) else {"docker"}
    applicable = sorted((r for r in recs if r.applies),
                        key=lambda r: (r.path in unsure, -weights.get(r.path, 0), compat.path_order().index(r.path)))
    for i, r in enumerate(applicable, 1):
        r.rank = i
    return applicable + [r for r in recs if not r.applies]


def _blocker(ctx: Context, ids) -> Optional[str]:
    if getattr(ctx.os, "windows_native", None) is True and not ctx.wsl:
        return ("The pastes are from a native Windows host (not WSL): every way out here is a Linux plan. On "
                "Windows, AMD's route is the Adrenalin driver with TheRock's Windows pip packages (rocm[libraries], "
                "torch) or the HIP SDK; the findings name the commands to run there.")
    if not ctx.amd_present:
        if "no-amd-gpu" in ids:
            return "No AMD GPU was found, so no ROCm setup can help (see the finding)."
        if s(ctx.system.origin) == "snapshot":
            return ("The snapshot says nothing about an AMD GPU: include rocminfo, lspci -nn or rocm-smi output (or run "
                    "the doctor on the machine itself) to get ways out.")
        return "No AMD GPU was detected on this system."
    gfx = [g for g in ctx.primary_gfx]
    if not gfx:
        names = ", ".join(dict.fromkeys(v.label for v in ctx.primary))
        return (f"The gfx target of the AMD GPU ({names}) is not known, so no way out can be checked against it: "
                "include rocminfo or lspci -nn output (or run the doctor on the machine itself). To set up a machine "
                "anyway, choose the way explicitly (--plan-only --path ...).")
    if gfx and not any(support.has_official_build(g) for g in gfx):
        return (f"No official ROCm release, PyTorch wheel or AMD image supports {', '.join(gfx)}; "
                f"the wizard offers no upgrade that would not be supported (community routes are in the findings).")
    return None


# ------------------------------------------------------------------ torch-reinstall
def _pair_dict(t: wheels.TorchRelease, idx: wheels.WheelIndex, base: Optional[str], venv: Optional[str],
               mode: str, env: Optional[Dict[str, str]] = None, gfx: Tuple[str, ...] = ()) -> Dict[str, Any]:
    return {
        "mode": mode,
        "venv": venv,
        "torch": t.version,
        "torchvision": t.torchvision_for(idx.name),
        "torchaudio": t.torchaudio_for(idx.name),
        "triton": None if idx.amd else t.triton_requirement,
        "index": idx.name,
        "index_url": idx.url(base),
        # AMD's index: the GPU's device extras and the rocm wheels of its release
        "requirements": wheels.requirements(t, idx, gfx) if idx.amd else wheels.install_requirements(t.version),
        "env": dict(env or {}),
        "index_status": t.status_on(idx.name),
    }


def _choose_pair(facts: resolve.Facts, exclude: Optional[Tuple[str, str]] = None, series: Optional[str] = None,
                 only: Optional[Tuple[str, Optional[str]]] = None):
    """(TorchRelease, WheelIndex, reason, way out) chosen by the resolver, or (None, reason)."""
    res = resolve.torch_ways(facts, exclude=exclude, series=series, only=only)
    best = res.best
    if best is None:
        return None, res.reason
    t, idx = best.subject
    if series and releases.series_of(idx.rocm) == series:
        reason = f"the index of ROCm {series}"
    elif best.rank and _key(best, "keeps-current"):
        reason = "the venv's own build, which passes every check (least change)"
    elif facts.torch and _vorder(t.version) < _vorder(wheels.public_version(facts.torch)):
        now = wheels.public_version(facts.torch)
        reason = (f"the newest torch up to the venv's {now} that passes every check: the least step back from "
                  f"the build the venv has (code written for {now} may not run on a much older torch)")
    elif facts.host_series and releases.series_of(idx.rocm) == facts.host_series:
        reason = (f"built for the host's ROCm series {facts.host_series}, so the wheel's user space matches the "
                  f"installed kernel driver's release")
    elif releases.series_of(idx.rocm) == wheels.policy_series():
        reason = (f"the wizard's default torch series (ROCm {wheels.policy_series()}): PyTorch's stable ROCm for torch "
                  "2.11-2.13, wheels that bundle their ROCm user space")
    elif idx.amd:
        reason = (f"AMD's own index for ROCm {idx.rocm}, whose device wheels carry GPUs that PyTorch's indexes do "
                  "not (torch and torchvision with the GPU's device extra, the rocm pip wheels pinned with them)")
    elif t.status_on(idx.name) == "documented":
        reason = "the newest pairing documented by PyTorch that carries this GPU"
    else:
        reason = "the newest known pairing that carries this GPU (not on PyTorch's own page)"
    return (t, idx, reason, best), ""


def _driver_known(rel, codename: Optional[str]) -> bool:
    """Whether the amdgpu driver repository paired with ``rel`` is known (10.1's is not)."""
    if getattr(rel, "core", False):
        from ..catalog import coresdk

        return bool(coresdk.driver_lines(rel, codename or "noble", None))
    return bool(getattr(rel, "amdgpu_dir", None))


def _key(way, name: str):
    from ..catalog import compat

    keys = compat.torch_rank_keys()
    return way.rank[keys.index(name)] if name in keys else None


def _proof_of(way, other_index: str) -> str:
    c = way.check("driver-window")
    return (c.detail + ", and " if c is not None else "") + f"{other_index} fails a check for this system."


def _proof_text(way) -> str:
    """One line per check that is not plainly satisfied, for the recommendation's prose."""
    odd = [c for c in way.checks if c.verdict != resolve.SATISFIED]
    if not odd:
        return "Checked: " + ", ".join(c.constraint for c in way.checks) + " (all satisfied)."
    return "Not proven: " + "; ".join(f"{c.constraint} {c.verdict} ({c.detail})" for c in odd) + "."


def _vorder(text: str) -> float:
    v = parse_version(text)
    if v is None:
        return 0.0
    rel = list(v.release[:3]) + [0, 0, 0]
    return rel[0] * 1e6 + rel[1] * 1e3 + rel[2]


def _torch(ctx: Context, facts: resolve.Facts, ids, base: Optional[str]) -> Recommendation:
    gfx = ctx.primary_gfx
    env = (ctx.rocm_envs or ctx.envs or [None])[0]
    venv = env.label if env is not None and s(env.env.path) else None
    current = (wheels.public_version(env.version), env.index) if env is not None and env.index else None
    sources = list(wheels.bundles_sources()) + ["pytorch-prev-versions"]
    gfx_txt = ", ".join(gfx) if gfx else "this GPU"

    # 1. the one case where TORCH_BLAS_PREFER_HIPBLASLT=0 really helps
    if "hipblas-not-supported" in ids:
        params = rules()["hipblas-not-supported"].params
        fallback = str(params.get("fallback_torch", ""))
        env_vars = {str(k): str(v) for k, v in dict(params.get("env") or {}).items()}
        pick, _why = _choose_pair(facts, only=(fallback, None)) if fallback else (None, "")
        if pick is not None:
            t, idx, _reason, way = pick
            target = _pair_dict(t, idx, base, venv, "blas-fallback", env_vars)
            target["proof"] = way.proof()
            setting = " ".join(f"{k}={v}" for k, v in env_vars.items())
            why = (f"torch {t.version} with torchvision {t.torchvision} / torchaudio {t.torchaudio} from the {idx.name} "
                   f"index carries {gfx_txt} kernels, checks the GPU before using hipBLASLt, and honours {setting}, "
                   f"which makes it use hipBLAS: the fix for HIPBLAS_STATUS_NOT_SUPPORTED.")
            return Recommendation("torch-reinstall", None, True, target, why, [],
                                  sources + ["comfyui-3698", "pytorch-pr-128753"], way.proof())

    # 2. repair: same torch, same index, exact triton pin
    triton_only = ids & set(_TRITON) and not ids & {"wheel-missing-gfx", "torch-not-rocm", "hipblas-alloc-failed"}
    if triton_only and env is not None and env.index and wheels.torch_release(env.version) is not None:
        pick, _why = _choose_pair(facts, only=(env.version, None))  # same torch; its index when that passes
        if pick is not None:
            t, idx, _reason, way = pick
            target = _pair_dict(t, idx, base, venv, "repair")
            moved = (f" The wheels come from {idx.name} rather than {env.index}: {_proof_of(way, env.index)}"
                     if idx.name != env.index else "")
            why = (f"Keep torch {t.version} from {idx.name} and repair its triton: keep the Triton torch's own wheel "
                   f"requires ({t.triton_requirement or 'the pin torch declares'}), remove any other triton distribution "
                   f"and install that pin exactly from the same index. No ROCm "
                   f"upgrade is needed for this (the seed claim that a newer ROCm fixes triton.language is wrong)."
                   + moved)
            return Recommendation("torch-reinstall", None, True, target, why, [],
                                  sources + ["triton-5377", "pytorch-issue-130723"], way.proof())

    exclude = current if ids & {"hipblas-alloc-failed", "hipblaslt-hard-error", "no-binary-for-gpu"} else None
    choice, none_why = _choose_pair(facts, exclude)
    if choice is None:
        if facts.vllm:
            why = (f"The work runs in a vLLM image or build ({facts.vllm!r}): {docker_cat.vllm_gpus().torch_note} A pip "
                   "torch reinstall under vLLM would break its kernels (see the docker way for AMD's vLLM image).")
            return Recommendation("torch-reinstall", None, False, {}, why, [],
                                  sources + list(docker_cat.vllm_gpus().sources))
        if facts.not_torch:
            why = (f"The workload seen is {', '.join(facts.not_torch)}, which does not use a Python venv's torch: a "
                   f"torch reinstall would not change it.")
        else:
            why = f"No torch reinstall can be offered for {gfx_txt}: {none_why}."
        return Recommendation("torch-reinstall", None, False, {}, why, [], sources)
    t, idx, reason, way = choice
    target = _pair_dict(t, idx, base, venv, "switch", gfx=tuple(gfx or ()))
    target["proof"] = way.proof()
    parts = [f"torch {t.version} + torchvision {target['torchvision']} + torchaudio {target['torchaudio']} from the {idx.name} "
             "index" + (f" (with {target['triton']})" if target["triton"] else "")
             + (f" carries {gfx_txt} kernels" if gfx else "") + f": {reason}."]
    parts.append(f"The wheel brings its own ROCm {idx.rocm} user space; only the amdgpu kernel driver must be compatible."
                 if idx.userspace == "bundled" else f"The wheels need ROCm {idx.rocm} user space from pip.")
    if facts.wsl:
        parts.append("Under WSL, AMD's steps remove the wheel's own HSA runtime: "
                     + str(_wsl("hsa_removal")) + ".")
    if not gfx:
        parts.append("The GPU's gfx target is unknown, so this pairing is not checked against it.")
    if facts.hidden_gfx:
        parts.append(f"The integrated GPU ({', '.join(facts.hidden_gfx)}) is left out: "
                     f"{_apu_advice()}.")
    if idx.userspace != "bundled":
        parts.append(f"The {idx.name} wheels take their ROCm user space from the rocm pip wheels they depend on.")
    parts.append(_proof_text(way))
    if t.status_on(idx.name) != "documented":
        parts.append("This pairing is known from third-party pins, not from "
                     + ("AMD's" if idx.amd else "PyTorch's") + " install page.")
    if exclude:
        parts.append(f"It replaces torch {current[0]} from {current[1]}, the build in which the error occurred.")
    fixed = sorted(ids & {"torch-not-rocm", "wheel-missing-gfx", "triton-duplicate", "triton-pin-mismatch",
                          "hipblaslt-hard-error", "no-binary-for-gpu"})
    if fixed:
        parts.append("Addresses: " + ", ".join(fixed) + ".")
    if "hipblas-alloc-failed" in ids:
        parts.append("For HIPBLAS_STATUS_ALLOC_FAILED this is a known-good pairing to try, not a proven cure: check free "
                     "VRAM and hidden iGPUs too.")
    return Recommendation("torch-reinstall", None, True, target, " ".join(parts), [], sources, way.proof())


# ------------------------------------------------------------------ docker
def docker_shown(ctx: Context) -> bool:
    """Whether Docker's state was looked at: always on a live system; in a snapshot only when it
    holds Docker's output or its absence (a recorded ``docker version``, the socket).  A paste with
    no Docker output says nothing about Docker: absent evidence is not evidence of absence."""
    if s(ctx.system.origin) != "snapshot":
        return True
    d = ctx.docker
    return bool(d.sources or d.notes or s(d.client) or d.daemon is not None)


def _docker(ctx: Context, facts: resolve.Facts, ids) -> Recommendation:
    srcs = list(docker_cat.tag_sources()) + list(docker_cat.host_sources())
    d = ctx.docker
    vllm = bool(facts.vllm)
    repo = docker_cat.vllm_repository() if vllm else docker_cat.repository()
    unknown = d.daemon is not True and not docker_shown(ctx)
    if d.daemon is not True and not unknown:
        where = "in the snapshot" if s(ctx.system.origin) == "snapshot" else "on this system"
        why = (f"The Docker daemon is not reachable {where}." if d.daemon is False or s(d.client)
               else f"Docker was not detected {where}.")
        return Recommendation("docker", None, False, {}, why + f" Install Docker to use AMD's {repo} image.", [], srcs)
    if facts.not_torch and not vllm:
        # (s24) AMD's image is PyTorch's: a llama.cpp or Ollama user's program is not in it and would not use its torch
        return Recommendation("docker", None, False, {},
                              f"The workload seen is {', '.join(facts.not_torch)}, which does not run in AMD's PyTorch "
                              f"image ({repo}): the image changes nothing for it (the program brings its own GPU code; "
                              "see the findings for its own fix).", [], srcs)
    wsl = bool(ctx.wsl)
    if wsl:  # no /dev/kfd under WSL 2: AMD's WSL container flags pass /dev/dxg, DXCore and librocdxg
        srcs += list(docker_cat.wsl_run_flags_sources())
    elif "amdgpu-not-loaded" in ids or "kfd-missing" in ids:
        return Recommendation("docker", None, False, {}, "A container needs the host's amdgpu kernel driver and /dev/kfd "
                              "first (see the findings).", [], srcs)
    gfx = ctx.primary_gfx
    res = resolve.docker_ways(facts)
    if res.best is None:
        if vllm:
            srcs += list(docker_cat.vllm_gpus().sources)
        return Recommendation("docker", None, False, {}, f"No known {repo} image fits: {res.reason}.", [], srcs)
    way = res.best
    tag = way.subject
    target = {"image": tag.image, "tag": tag.tag, "rocm": tag.rocm, "torch": tag.torch, "python": tag.python,
              "ubuntu": tag.ubuntu, "flags": list(docker_cat.wsl_run_flags() if wsl else docker_cat.run_flags()),
              "tag_status": tag.status, "proof": way.proof()}
    if vllm:
        target["vllm"] = tag.vllm
        v = docker_cat.vllm_gpus()
        parts = [f"AMD's vLLM image {tag.image} ships vLLM {tag.vllm} with its own torch {tag.torch} on ROCm "
                 f"{tag.rocm}" + (f" for {', '.join(gfx)}" if gfx else "") + "; the host keeps only its kernel driver.",
                 f"The work runs in a vLLM image or build ({facts.vllm!r}). {v.torch_note}",
                 f"Checked against vLLM's own GPU list: {way.check('vllm-supports-gpu').detail}."]
        if tag.status != "documented":
            parts.append("This tag is known from third-party use, not from AMD's pages.")
        if unknown:
            parts.append("The snapshot does not show whether Docker is installed: the plan's first step installs or "
                         "checks it.")
        parts.append(("Under WSL 2 run it with AMD's WSL container flags: " + " ".join(docker_cat.wsl_run_flags()))
                     if wsl else "Run it with AMD's documented flags: " + " ".join(docker_cat.run_flags()) + ".")
        parts.append(_proof_text(way))
        return Recommendation("docker", None, True, target, " ".join(parts), [],
                              srcs + list(v.sources) + list(tag.sources), way.proof())
    parts = [f"AMD's image {tag.image} ships ROCm {tag.rocm} and an AMD-built torch {tag.torch}; the host keeps only its "
             f"kernel driver, and nothing in your venvs changes."]
    if unknown:
        parts.append("The snapshot does not show whether Docker is installed: the plan's first step installs or checks "
                     "it.")
    if gfx:
        rel = releases.resolve(tag.rocm)
        if rel is not None and all(g in rel.gfx_official for g in gfx):
            parts.append(f"ROCm {rel.series} officially supports {', '.join(gfx)}.")
        elif tag.gfx_observed:
            parts.append(f"Observed working on {', '.join(tag.gfx_observed)} (third-party report; not official).")
    if tag.status != "documented":
        parts.append("This tag is known from third-party use, not from AMD's pages.")
    if d.user_allowed is False:
        parts.append("Your user cannot talk to the Docker daemon: use sudo or join the docker group.")
    if wsl:
        parts.append("Under WSL 2 run it with AMD's WSL container flags: " + " ".join(docker_cat.wsl_run_flags())
                     + f" (it needs {docker_cat.wsl_host_requirement()}).")
    else:
        parts.append("Run it with AMD's documented flags: " + " ".join(docker_cat.run_flags()) + ".")
    parts.append(_proof_text(way))
    return Recommendation("docker", None, True, target, " ".join(parts), [], srcs + list(tag.sources), way.proof())


# ------------------------------------------------------------------ rocm-upgrade
def _rocm_zypper(ctx: Context, facts: resolve.Facts, srcs: List[str]) -> Recommendation:
    """SLES: the release AMD's zypper repositories serve for this service pack (catalog
    ``zypper.toml``); openSUSE and other SUSE systems: why not (``unknown``, never ``supported``)."""
    from ..catalog import zypper as zyp

    srcs = list(dict.fromkeys(list(zyp.repo()["sources"]) + srcs[1:]))
    why_not = zyp.refusal(ctx.system.os)
    if why_not:
        return Recommendation("rocm-upgrade", None, False, {}, why_not + ".", [], srcs)
    gfx = ctx.primary_gfx
    ver = s(ctx.os.version_id)
    version = zyp.pick(ver, gfx, lambda g, v: g in releases.resolve(v).gfx_official)
    label = s(ctx.os.pretty_name) or f"SLES {ver}"
    if version is None:
        listed = "; ".join(f"{r.version}: SLES {', '.join(r.sles)}" for r in zyp.releases())
        return Recommendation("rocm-upgrade", None, False, {}, f"No ROCm release in the catalog is documented for "
                              f"{label} (AMD's zypper repositories: {listed}).", [], srcs)
    rel = releases.resolve(version)
    entry = zyp.release(version)
    host = parse_version(ctx.host_rocm)
    if host is not None and host >= parse_version(rel.version):
        return Recommendation("rocm-upgrade", None, False, {}, f"The host already has ROCm {ctx.host_rocm} (target "
                              f"{rel.version} from AMD's zypper repositories).", [], srcs)
    res = resolve.rocm_ways(facts)
    way = res.find(rel.version)
    target = {"mode": "upgrade", "rocm": rel.version, "series": rel.series, "stream": "zypper",
              "sles": zyp.service_pack(ver), "repo_base": releases.base_url(None),
              "sles_status": entry.status, "release_status": rel.status, "support_status": rel.support_status,
              "kernel_driver": "amdgpu-dkms" if s(ctx.os.kernel) else "none (the running kernel is not known: --no-dkms)",
              "proof": way.proof() if way is not None else []}
    parts = [f"ROCm {rel.version} from AMD's zypper repository (rocm/zyp/{rel.apt_dir}/main, priority "
             f"{zyp.repo()['priority']}, packages --from it) for {', '.join(gfx) or 'this GPU'} on {label}: the "
             "signing key is checked against its fingerprint before rpm --import, never --gpg-auto-import-keys."]
    if entry.status != "documented":
        parts.append(f"SLES {', '.join(entry.sles)} for {rel.version} is {entry.status}: {entry.note}.")
    if ctx.host_rocm:
        parts.append(f"The host has ROCm {ctx.host_rocm} now.")
    return Recommendation("rocm-upgrade", None, True, target, " ".join(parts), [], srcs + list(entry.sources),
                          way.proof() if way is not None else [])


def _rocm(ctx: Context, facts: resolve.Facts, ids, repo_base: Optional[str], index_base: Optional[str]) -> Recommendation:
    srcs = ["amd-pkgmgr-ubuntu", "amd-sysreq"] + list(releases.policy_sources())
    os_id = s(ctx.os.id).lower()
    ver = s(ctx.os.version_id)
    from ..catalog import zypper as zyp  # SLES: AMD's zypper repositories (issue 26)

    if os_id in zyp.SUSE_IDS and not ctx.container:
        return _rocm_zypper(ctx, facts, srcs)
    from ..catalog import rpmrepos  # dnf hosts (issue 26): their own module

    if rpmrepos.family(ctx.os):
        from .recommend_dnf import rocm_dnf

        return rocm_dnf(ctx)
    if os_id != "ubuntu":
        what = f"this is {s(ctx.os.pretty_name) or os_id}" if os_id else "the operating system was not detected"
        return Recommendation("rocm-upgrade", None, False, {}, f"AMD's apt repository path is for Ubuntu 22.04/24.04; {what}.",
                              [], srcs)
    if ctx.container:
        return Recommendation("rocm-upgrade", None, False, {}, "This runs inside a container; upgrade ROCm on the host "
                              "(or switch images) instead.", [], srcs)
    gfx = ctx.primary_gfx
    res = resolve.rocm_ways(facts)
    way = res.best
    rel = way.subject if way is not None else None
    if ctx.wsl:
        # AMD's WSL user space is installed differently (no kernel driver, the Windows one serves the
        # GPU); the wizard does not plan it, so it says what AMD documents instead of offering it
        core_why, core_srcs = compat.wsl_core_sdk_refusal()
        srcs = srcs + list(core_srcs)
        where = (f"ROCm {rel.version} supports {facts.names or ', '.join(gfx)} under WSL" if rel is not None
                 else f"no ROCm release in the catalog supports {facts.names or ', '.join(gfx) or 'this GPU'} under "
                      f"WSL ({res.reason})")
        why = (f"Under WSL the GPU driver is the Windows one; rocm-wizard plans AMD's 6.x WSL user space (the release "
               f"given with --rocm, or the one installed; never a kernel driver) and, for a 7.2.x release given with "
               f"--rocm, ROCm's user space with librocdxg built from source as its README says (the build needs the "
               f"network, a compiler and the Windows SDK on Windows). The Core SDK: {core_why}. {where}; "
               f"AMD's steps: amdgpu-install -y --usecase=wsl,rocm --no-dkms (from ROCm {compat.wsl_first_release()} "
               f"with Adrenalin {_wsl('first_adrenalin')} or newer); from ROCm {_wsl('librocdxg_from')} librocdxg with "
               f"{_wsl('dxg_env')}; with ROCm {_wsl('hsa_removal_until')} and older, in a venv's torch: "
               f"{_wsl('hsa_removal')}.")
        return Recommendation("rocm-upgrade", None, False, {}, why, [], srcs + list(compat.wsl_facts().get(
            "hsa_removal_sources", [])), way.proof() if way is not None else [])
    if rel is None:
        if gfx and not any(support.official_releases(g) for g in gfx):
            why = (f"No ROCm release lists {', '.join(gfx)} as supported, so there is no official ROCm to upgrade to "
                   f"for this GPU; a PyTorch wheel or image that carries its kernels is the way.")
        else:
            why = f"No known ROCm release fits {', '.join(gfx) or 'this GPU'} on Ubuntu {ver or '?'}: {res.reason}."
        return Recommendation("rocm-upgrade", None, False, {}, why, [], srcs)
    from ..catalog import coresdk

    if not releases.codename(ver) and not coresdk.profile(os_id, ver or None):
        # (s21, fixture 2560: an Ubuntu named only by a uname line) the apt suite is the release's codename and the
        # Core SDK's profile its version: the plan cannot be made without it (plan/build.py refuses alike)
        return Recommendation("rocm-upgrade", None, False, {}, f"AMD's apt repositories are chosen by the Ubuntu "
                              f"release (its codename names the suite); {'Ubuntu ' + ver + ' has none in the catalog' if ver else 'the release was not detected: add the output of cat /etc/os-release to the snapshot'}.",
                              [], srcs)
    system_problems = sorted(ids & set(_SYSTEM_FIXES))
    host = parse_version(ctx.host_rocm)
    mode = "upgrade"
    if host is not None and host >= parse_version(rel.version):
        if not system_problems:
            return Recommendation("rocm-upgrade", None, False, {}, f"The host already has ROCm {ctx.host_rocm} (target "
                                  f"{rel.version}) and its installation shows no problem.", [], srcs)
        if ctx.host_release is not None:  # never downgrade to repair: redo the setup of the installed release
            rel, mode = ctx.host_release, "repair"
            way = res.find(rel.version) or way
    codename = releases.codename(ver)
    # the ROCm upgrade's torch is a second resolve: the index of the release's series, a new venv
    from ..resolve.facts import distro_python

    new_py, new_src = distro_python(ctx.system.os)  # that torch is for a new venv: the system's python3
    torch_facts = resolve.Facts(**{**facts.__dict__, "python": None, "torch": None, "torch_index": None,
                                   "new_python": new_py, "new_python_source": new_src,
                                   "driver_train": compat.driver_train_of_rocm(rel.version),
                                   "driver_source": f"the amdgpu driver of ROCm {rel.version}"})
    choice, _none = _choose_pair(torch_facts, series=rel.series)
    torch_target = None
    if choice is not None and releases.series_of(choice[1].rocm) == rel.series:
        torch_target = _pair_dict(choice[0], choice[1], index_base, None, "switch")
        torch_target["proof"] = choice[3].proof()
    target = {
        "mode": mode, "rocm": rel.version, "series": rel.series, "apt_dir": rel.apt_dir, "ubuntu": ver, "codename": codename,
        "repo_base": releases.base_url(repo_base),
        "kernel_driver": ("none (WSL: user space only, --no-dkms)" if ctx.wsl else
                          "none (Ryzen APU: the kernel's own amdgpu driver, --no-dkms)"
                          if facts.gpus and all(g.igpu for g in facts.gpus) else
                          "none (the amdgpu driver repository of ROCm " + rel.version + " is not known: the installed "
                          "driver is kept, --no-dkms)" if not _driver_known(rel, codename) else
                          "amdgpu-dkms" if s(ctx.os.kernel) else
                          "none (the running kernel is not known, and amdgpu-dkms needs its headers: --no-dkms)"),
        "release_status": rel.status, "support_status": rel.support_status,
        "torch": torch_target,
        "proof": way.proof() if way is not None else [],
    }
    if getattr(rel, "core", False):
        from ..catalog import coresdk

        target["stream"] = rel.stream
        target["packages"] = coresdk.package_names(rel, gfx)
        where = (f"the ROCm Core SDK {rel.version} from AMD's repository ({coresdk.repo_of(rel).base_url}, versioned "
                 f"{', '.join(target['packages'])})")
    else:
        where = (f"ROCm {rel.version} from AMD's apt repository (rocm/apt/{rel.apt_dir}, pinned at priority "
                 f"{releases.repo().pin_priority})")
    parts = [("Repair the setup of the installed " if mode == "repair" else "") + where
             + (f" for {', '.join(gfx)}" if gfx else "") + f" on Ubuntu {ver} ({codename or '?'})."]
    if torch_target:
        parts.append(f"This changes no venv: its torch stays as it is; the torch way next (torch "
                     f"{torch_target['torch']} from the {torch_target['index']} index) matches the new release.")
    if ctx.host_rocm:
        parts.append(f"The host has ROCm {ctx.host_rocm} now.")
    if system_problems:
        parts.append("Fixes on the way: " + ", ".join(system_problems) + ".")
    if ctx.rocm_envs and not system_problems:
        parts.append("A pip-installed torch does not use the host's ROCm libraries; this path mainly brings a matching "
                     "kernel driver and host tools.")
    if rel.support_status != "documented":
        parts.append(f"Support data for {rel.version} is {rel.support_status}.")
    ks = kernel_series(ctx.os.kernel)
    listed = rel.kernel_series(ver)
    who = ""
    if getattr(rel, "core", False):  # Instinct, Radeon and Ryzen APUs have their own kernel lists
        from ..catalog import coresdk

        fams = sorted({coresdk.family_of(g) for g in gfx})
        per = coresdk.family_kernels(rel, fams[0], ver) if len(fams) == 1 else None
        if per:
            listed, who = per, f" for {fams[0]} GPUs"
    if ks and listed and ks not in listed and not ctx.wsl:
        parts.append(f"The running kernel {s(ctx.os.kernel)} is not one ROCm {rel.version} lists{who} for Ubuntu {ver} "
                     f"({', '.join(listed)}): boot one of those first, or amdgpu-dkms may not build.")
        target["kernel_ok"] = False
    else:
        target["kernel_ok"] = None if not (ks and listed) else True
    if way is not None:
        parts.append(_proof_text(way))
    return Recommendation("rocm-upgrade", None, True, target, " ".join(parts), [],
                          srcs + list(rel.all_sources), target["proof"])


def _wsl(key: str) -> object:
    return compat.wsl_facts().get(key, "")


def _apu_advice() -> str:
    return str(compat.apu_facts().get("igpu_advice", ""))


def sort_findings(findings: List[Finding]) -> List[Finding]:
    """Problems first, the root cause's layer leading (``model.lead_key``), notes last."""
    return sorted(findings, key=lead_key)
