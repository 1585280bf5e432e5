"""One resolver: every candidate of every way out, checked against every constraint of
``catalog/data/compat.toml``, split into offered (best first) and rejected.  No prose beyond the
checks' details, no I/O, no UI.

    torch_ways(facts, exclude=None, series=None) -> Resolution      # torch-reinstall
    docker_ways(facts) -> Resolution                                 # AMD's image
    rocm_ways(facts) -> Resolution                                   # host ROCm upgrade
    resolve(system, error_text=None) -> {path: Resolution}
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..catalog import compat, docker, releases, wheels
from .facts import Facts, from_system
from .model import SATISFIED, UNKNOWN, VIOLATED, Check, Resolution, WayOut


def _vt(text: object) -> Tuple[int, ...]:
    out = []
    for part in str(text or "").split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out + [0] * (3 - len(out)))


def _check(cid: str, verdict: str, detail: str, extra: Sequence[str] = (), no_gpu: bool = False) -> Check:
    c = compat.constraint(cid)
    on_unknown = (c.on_no_gpu or c.on_unknown) if no_gpu else c.on_unknown
    return Check(cid, verdict, detail, tuple(dict.fromkeys(tuple(c.sources) + tuple(extra))), on_unknown)



def check_linux_host(facts: Facts) -> List[Check]:
    """A native Windows host (detect's ``os.windows_native``): every plan here is a Linux one, so each
    way out is refused with the reason; [] on any other host."""
    if not facts.windows_native:
        return []
    return [_check("linux-host", VIOLATED, "the pastes are from a native Windows host (not WSL): a Linux plan "
                   "does not apply there; TheRock's Windows pip packages (rocm[libraries], torch) with the "
                   "Adrenalin driver are AMD's route on Windows")]

def support_gfx(target: str) -> Optional[str]:
    from ..catalog.support import normalize_gfx

    return normalize_gfx(target)


def _kleene(answers: Sequence[Optional[bool]]) -> str:
    if any(a is False for a in answers):
        return VIOLATED
    if answers and all(a is True for a in answers):
        return SATISFIED
    return UNKNOWN


# ------------------------------------------------------------------ shared constraints
def check_wheel_gfx(facts: Facts, t: wheels.TorchRelease, idx: wheels.WheelIndex) -> Check:
    built = wheels.wheel_gfx(t, idx)
    gfx = facts.compute_gfx
    srcs = tuple(built.sources) if built else ()
    if not gfx:
        return _check("wheel-has-gfx", UNKNOWN, "no GPU with a known gfx target: the wheels are not checked "
                      "against one", srcs, no_gpu=True)
    targets = facts.compute_targets or gfx
    answers = [wheels.wheel_has_gfx(t, idx, g) for g in targets]
    verdict = _kleene(answers)
    status = built.status if built else "unknown"
    lacking = [g for g, a in zip(targets, answers) if a is False]
    unsure = [g for g, a in zip(targets, answers) if a is None]
    gaps = {g: wheels.libraries_lacking(t, idx, g) for g in targets}
    for g in targets:
        srcs += tuple(s for gap in gaps[g] for s in gap.sources)
    if verdict == VIOLATED:
        in_list = [g for g in lacking if gaps[g] and built is not None and built.has(support_gfx(g)) is not False]
        detail = f"torch {t.version}+{idx.name} carries no kernels for {', '.join(lacking)}"
        if in_list:
            libs = sorted({f"{gap.library} ({gap.part})" for g in in_list for gap in gaps[g]})
            named = ", ".join(dict.fromkeys(support_gfx(g) or g for g in in_list))
            detail += f": torch's arch list names {named}, but the bundled library lacks them: {'; '.join(libs)}"
    elif verdict == SATISFIED:
        detail = f"torch {t.version}+{idx.name} carries kernels for {', '.join(gfx)} ({status})"
    else:
        detail = (f"whether torch {t.version}+{idx.name} carries kernels for {', '.join(unsure)} is not known "
                  f"(gfx list {status})")
        libs = sorted({gap.library for g in unsure for gap in gaps[g]})
        if libs:
            detail += f"; {', '.join(libs)} may lack them (inferred)"
    if facts.hidden_gfx:
        detail += f"; the integrated GPU ({', '.join(facts.hidden_gfx)}) is left out of the check"
    return _check("wheel-has-gfx", verdict, detail, srcs)


def check_driver_window(facts: Facts, user_space: str, what: str) -> Check:
    if not facts.driver_train:
        return _check("driver-window", UNKNOWN, f"the host's amdgpu driver train is not known, so {what}'s ROCm "
                      f"{user_space} cannot be checked against it")
    ok, status = compat.in_window(facts.driver_train, user_space)
    window = compat.window_of(facts.driver_train)
    span = f"{window[0]}-{window[1]}" if window else "unknown"
    if ok is None:
        return _check("driver-window", UNKNOWN, f"driver train {facts.driver_train} ({facts.driver_source}); AMD's "
                      f"table does not say whether it supports ROCm {user_space} user space")
    if ok and status != "documented":
        # an inferred window (AMD's table does not list this train) is not proof: unknown, not satisfied (#21)
        return _check("driver-window", UNKNOWN, f"{what} brings ROCm {user_space} user space; the host's amdgpu "
                      f"driver train {facts.driver_train} ({facts.driver_source}) is taken to support {span}, but "
                      f"that window is {status}, not in AMD's table")
    verdict = SATISFIED if ok else VIOLATED
    return _check("driver-window", verdict, f"{what} brings ROCm {user_space} user space; the host's amdgpu driver "
                  f"train {facts.driver_train} ({facts.driver_source}) supports {span} ({status})")


def check_wsl_gpu(facts: Facts, rocm: Optional[str]) -> Check:
    gfx = facts.compute_gfx
    if not gfx:
        return _check("wsl-gpu", UNKNOWN, "the GPU's gfx target is not known")
    if not rocm:
        return _check("wsl-gpu", UNKNOWN, "the ROCm release used under WSL is not known")
    names = facts.names  # (once, not for every target)
    rows = [compat.wsl_supports(g, rocm, names) for g in gfx]
    verdict = _kleene([r[0] for r in rows])
    srcs: Tuple[str, ...] = ()
    for _ok, row in rows:
        if row is not None:
            srcs += row.sources
    words = {SATISFIED: "supports", VIOLATED: "does not support", UNKNOWN: "may not support"}[verdict]
    return _check("wsl-gpu", verdict, f"AMD {words} {facts.names or ', '.join(gfx)} under WSL with ROCm {rocm} "
                  f"(first WSL release: {compat.wsl_first_release()})", srcs)


def check_wsl_userspace(facts: Facts, wheel_rocm: Optional[str]) -> Check:
    """Under WSL the wheel must suit the WSL user space installed: with the 6.x runtime (rocr4wsl) the
    wheel's own HSA runtime is removed and the host's WSL one is loaded, so a wheel of a release with
    the librocdxg user space (7.2+) does not fit it; librocdxg needs a runtime of ROCm 7.1 or newer
    (the feature that loads it), so an older wheel's bundled runtime never reaches the GPU."""
    w = compat.wsl_facts()
    gen = facts.wsl_userspace or compat.wsl_generation(facts.host_rocm)
    if not gen:
        return _check("wsl-userspace", UNKNOWN, "the WSL user space on the host is not known (neither "
                      "hsa-runtime-rocr4wsl-amdgpu nor librocdxg seen, no host ROCm release)")
    if not wheel_rocm:
        return _check("wsl-userspace", UNKNOWN, f"the wheel's ROCm release is not known (host WSL user space: {gen})")
    wk = compat.version_key(wheel_rocm)
    dxg_from = str(w.get("librocdxg_from", "7.2"))
    if gen == "rocr4wsl":
        host = facts.host_rocm
        ok = wk[:2] < compat.version_key(dxg_from)[:2] and (not host or wk[:2] <= compat.version_key(host)[:2])
        detail = (f"the host has the ROCm {host or '6.x'} WSL runtime (rocr4wsl); a ROCm {wheel_rocm} wheel "
                  + ("fits it once its own libhsa-runtime64 is removed" if ok else
                     f"is newer than it (a {dxg_from}+ wheel needs librocdxg)"))
        return _check("wsl-userspace", SATISFIED if ok else VIOLATED, detail)
    runtime_from = "7.1"  # the ROCr feature librocdxg relies on (librocdxg README, WSL matrix)
    ok = wk[:2] >= compat.version_key(runtime_from)[:2]
    return _check("wsl-userspace", SATISFIED if ok else VIOLATED,
                  f"the host has the librocdxg WSL user space; a ROCm {wheel_rocm} wheel's runtime "
                  + ("loads it" if ok else f"predates ROCm {runtime_from}, which librocdxg needs"))


def check_override(facts: Facts, native: Callable[[str], Optional[bool]], what: str) -> Check:
    """The way out sets no HSA override; an override in effect that retargets a GPU ``what`` supports
    natively makes this a violation of the setup (the finding says how to fix it)."""
    if not facts.override:
        return _check("override-only-unsupported", SATISFIED, "no HSA_OVERRIDE_GFX_VERSION is set, and the way out "
                      "sets none")
    known: Dict[str, Optional[bool]] = {}  # (each target asked once: a folder of pastes lists many GPUs alike)
    supported = []
    for g in [x.gfx for x in facts.gpus]:
        if g:
            if g not in known:
                known[g] = native(g)
            if known[g] is True:
                supported.append(g)
    setting = ", ".join(f"{k}={v}" for k, v in facts.override.items())
    if supported:
        return _check("override-only-unsupported", VIOLATED, f"{setting} is set although {what} has native kernels for "
                      f"{', '.join(dict.fromkeys(supported))}: it retargets that GPU; remove it (the way out works "
                      "without it)")
    return _check("override-only-unsupported", SATISFIED, f"{setting} is set for a GPU {what} has no native kernels "
                  "for; the way out keeps it")


# ------------------------------------------------------------------ torch-reinstall
def torch_checks(facts: Facts, t: wheels.TorchRelease, idx: wheels.WheelIndex) -> List[Check]:
    checks = [check_wheel_gfx(facts, t, idx)]
    if not t.installable:
        checks.append(_check("pairing-known", UNKNOWN, f"the torchvision/torchaudio pair of torch {t.version} is "
                             "not known"))
    else:
        checks.append(_check("pairing-known", SATISFIED, f"torch {t.version} + torchvision "
                             f"{t.torchvision_for(idx.name)} + torchaudio {t.torchaudio_for(idx.name)}", t.sources))
    # the venv's Python, or with no venv yet the distribution's python3 that makes the new one
    python, whose = ((facts.python, f"the venv runs Python {facts.python}") if facts.python else
                     (facts.new_python, facts.new_python_source))
    if python:
        ok = wheels.wheel_for_python(t, python, idx)
        listed = t.python_for(idx.name)
        span = f"{listed[0]}-{listed[-1]}" if listed else "unknown"
        verdict = SATISFIED if ok else (VIOLATED if ok is False else UNKNOWN)
        checks.append(_check("wheel-for-python", verdict, f"{whose}; torch {t.version} has wheels for Python {span} "
                             f"({t.python_status})"))
    else:
        checks.append(_check("wheel-for-python", UNKNOWN, "the venv's Python version is not known (a new venv gets "
                             "the system's python3)"))
    if facts.wsl:
        checks.append(check_wsl_gpu(facts, facts.host_rocm or idx.rocm))
        checks.append(check_wsl_userspace(facts, idx.rocm))
    else:
        checks.append(check_driver_window(facts, idx.rocm, f"the {idx.name} wheel"))
    checks.append(check_override(facts, lambda g: wheels.wheel_has_gfx(t, idx, g), f"torch {t.version}+{idx.name}"))
    if facts.not_torch:
        checks.append(_check("workload-uses-torch", VIOLATED, f"the workload seen is {', '.join(facts.not_torch)}, "
                             "which does not use the venv's torch: reinstalling torch changes nothing for it"))
    if facts.vllm:
        checks.append(_check("vllm-keeps-its-torch", VIOLATED, f"the work runs in a vLLM image or build ({facts.vllm!r}): "
                             "vLLM's kernels are built against the torch and ROCm it ships, so another torch under "
                             "it breaks them; change the vLLM image or build instead"))
    checks += check_linux_host(facts)
    return checks


def _torch_rank(facts: Facts, w: WayOut, series: Optional[str]) -> Tuple[Any, ...]:
    t, idx = w.subject
    idx_series = releases.series_of(idx.rocm)
    current = (wheels.public_version(facts.torch), facts.torch_index) if facts.torch else None
    keys = {
        "series-asked": bool(series) and idx_series == series,
        "kernels-proven": w.check("wheel-has-gfx").verdict == SATISFIED,
        "keeps-current": current == (t.version, idx.name) and w.check("wheel-has-gfx").verdict == SATISFIED,
        # when the current build cannot stay, the least step back: a newer torch is better only up to the
        # version the venv has now (its code was written for that one), so a driver-window fix does not
        # fall back four torch releases to the host's index when a closer one is inside the window
        "near-current": min(_vt(t.version), _vt(current[0])) if current and current[0] else (),
        "host-series": bool(facts.host_series) and idx_series == facts.host_series,
        "policy-series": idx_series == wheels.policy_series(),
        "documented": t.status_on(idx.name) == "documented",
        "proven": w.proven,
        "newer": (_vt(t.version), _vt(idx.rocm)),
    }
    return tuple(keys[k] for k in compat.torch_rank_keys())


def torch_ways(facts: Facts, exclude: Optional[Tuple[str, str]] = None, series: Optional[str] = None,
               only: Optional[Tuple[str, Optional[str]]] = None) -> Resolution:
    """Every (torch release, index) as a way out.  ``exclude``: a (version, index) that failed on
    this system; ``series``: prefer the index of that ROCm series (a ROCm upgrade's torch);
    ``only``: (version, index or None) the user asked for."""
    ways: List[WayOut] = []
    for t in wheels.torch_releases():
        if only and t.version != wheels.public_version(only[0]):
            continue
        for idx in wheels.indexes_for(t.version):
            if only and only[1] and idx.name != only[1]:
                continue
            # the key is the wheel's version (its local label names the index: +rocm6.2, +rocm7.14.0)
            w = WayOut("torch-reinstall", f"{t.version}+{idx.label}", tuple(torch_checks(facts, t, idx)), subject=(t, idx))
            if exclude and (t.version, idx.name) == exclude:
                w.checks += (Check("not-the-failing-build", VIOLATED, "the build in which the error occurred"),)
            ways.append(w)
    for w in ways:
        w.rank = _torch_rank(facts, w, series)
    return _split("torch-reinstall", ways, "no PyTorch ROCm wheel in the catalog")


# ------------------------------------------------------------------ docker
def image_has_gfx(tag: docker.DockerTag, target: str) -> Tuple[Optional[bool], List[wheels.LibraryGap]]:
    """Whether AMD's image ``tag`` carries kernels for ``target`` (bare gfx or exact target), as a
    wheel is checked: the image's ROCm support list (a Core SDK image: its tag's GPU list) intersected
    with what ROCm's own libraries of that release ship (``[[library]]`` ``rocm``).  True when seen
    working in it; None when not known.  Returns (answer, library gaps)."""
    from ..catalog import support

    g = support_gfx(target) or str(target)
    gaps = wheels.rocm_libraries_lacking(tag.rocm, target)
    if g in tag.gfx_observed:
        return True, gaps
    if any(gap.status in wheels.PROVEN for gap in gaps):
        return False, gaps
    rel = releases.resolve(tag.rocm)
    if rel is None:  # a Core SDK image: the GPUs its tag entry names (none: unknown)
        listed: Optional[bool] = (g in tag.gfx) if tag.gfx else None
    else:
        level = support.status(g, rel).level
        # deprecated or limited: kernels may remain, support does not: unknown, never satisfied
        listed = True if level == "official" else None if level in ("deprecated", "limited") else False
    if gaps and listed:
        return None, gaps  # an inferred gap: not proven either way
    return listed, gaps


def vllm_image_gfx(tag: docker.DockerTag, target: str) -> Tuple[Optional[bool], str]:
    """Whether the rocm/vllm image ``tag`` serves ``target``: vLLM's own ROCm targets (its install
    page, with the ROCm release each needs), the tag's _cdna/_rdna word, the targets its prebuilt
    modules were seen to carry, then the image's ROCm support list.  (answer, why)."""
    from ..catalog import support

    v = docker.vllm_gpus()
    g = support_gfx(target) or str(target)
    if g not in v.gpus:
        return False, (f"{g} is not one of vLLM's ROCm targets ({', '.join(v.gpus)}; {v.status})")
    need = v.min_rocm(g)
    if need and _vt(tag.rocm) < _vt(need):
        return False, f"vLLM needs ROCm {need} or newer for {g}; the image has ROCm {tag.rocm}"
    arch = v.arch_allows(tag.arch, g)
    if arch is False:
        return False, f"the image is the _{tag.arch} build, not for {g}"
    if tag.gfx_modules and g not in tag.gfx_modules:
        return False, f"its prebuilt HIP modules carry {', '.join(tag.gfx_modules)} only (observed), not {g}"
    if g in tag.gfx_observed:
        return True, f"vLLM targets {g} and it was seen working in this image"
    rel = releases.resolve(tag.rocm)
    level = support.status(g, rel).level if rel is not None else None
    if level == "official" and tag.status == "documented" and arch is True:
        return True, f"vLLM targets {g}, AMD documents the image and its ROCm {tag.rocm} supports {g}"
    return None, f"vLLM targets {g}; whether this image's build carries it is not known"


def vllm_checks(facts: Facts, tag: docker.DockerTag) -> List[Check]:
    """The checks of AMD's vLLM image for a vLLM workload: the GPU among vLLM's targets and in the
    image's build, the driver window, no override retargeting it."""
    gfx = facts.compute_gfx
    v = docker.vllm_gpus()
    srcs = tuple(v.sources) + tuple(tag.sources)
    if not gfx:
        sup = _check("vllm-supports-gpu", UNKNOWN, "no GPU with a known gfx target: the image is not checked against "
                     "one", srcs, no_gpu=True)
    else:
        targets = facts.compute_targets or gfx
        found = [vllm_image_gfx(tag, g) for g in targets]
        verdict = _kleene([a for a, _w in found])
        sup = _check("vllm-supports-gpu", verdict, f"{tag.image} (vLLM {tag.vllm}, ROCm {tag.rocm}): "
                     + "; ".join(dict.fromkeys(w for _a, w in found)), srcs)
    if tag.status == "preview":
        sup = _check("vllm-supports-gpu", VIOLATED, f"{tag.tag} is a preview image, never proposed", tag.sources)
    checks = [sup, check_driver_window(facts, tag.rocm, f"the image {tag.tag}")]
    checks.append(check_override(facts, lambda g: vllm_image_gfx(tag, g)[0], f"ROCm {tag.rocm}"))
    if facts.wsl:
        checks.append(check_wsl_gpu(facts, facts.host_rocm or tag.rocm))
    checks += check_linux_host(facts)
    return checks


def docker_checks(facts: Facts, tag: docker.DockerTag) -> List[Check]:
    if tag.vllm and tag.repo:
        return vllm_checks(facts, tag)
    rel = releases.resolve(tag.rocm)
    gfx = facts.compute_gfx

    def native(g: str) -> Optional[bool]:
        return image_has_gfx(tag, g)[0]

    if not gfx:
        img = _check("image-gfx", UNKNOWN, "no GPU with a known gfx target: the image is not checked against one",
                     no_gpu=True)
    else:
        targets = facts.compute_targets or gfx
        found = {g: image_has_gfx(tag, g) for g in targets}
        answers = [found[g][0] for g in targets]
        verdict = _kleene(answers)
        seen = [g for g in gfx if g in tag.gfx_observed]
        detail = (f"ROCm {tag.rocm} of {tag.tag} " + {SATISFIED: "supports", VIOLATED: "does not list",
                                                        UNKNOWN: "is not in the catalog for"}[verdict]
                  + f" {', '.join(gfx)}" + (f" (seen working in this image: {', '.join(seen)})" if seen else ""))
        gaps = [gap for g in targets for gap in found[g][1]]
        lacking = [g for g in targets if found[g][0] is False and found[g][1]]
        if verdict == VIOLATED and lacking:
            libs = "; ".join(dict.fromkeys(f"{gap.library} ({gap.part})" for g in lacking for gap in found[g][1]))
            named = ", ".join(dict.fromkeys(support_gfx(g) or g for g in lacking))
            detail = (f"the image {tag.tag} carries no kernels for {named}: ROCm {tag.rocm}'s own library lacks "
                      f"them: {libs}")
        elif verdict == UNKNOWN and gaps:
            detail += "; " + ", ".join(dict.fromkeys(gap.library for gap in gaps)) + " may lack them (inferred)"
        srcs = (rel.all_sources if rel else ()) + tuple(tag.sources) + tuple(s for gap in gaps for s in gap.sources)
        img = _check("image-gfx", verdict, detail, srcs)
    if tag.status == "preview":
        img = _check("image-gfx", VIOLATED, f"{tag.tag} is a preview image, never proposed", tag.sources)
    checks = [img, check_driver_window(facts, tag.rocm, f"the image {tag.tag}")]
    checks.append(check_override(facts, native, f"ROCm {tag.rocm}"))
    if facts.wsl:  # under WSL the container reaches the GPU through the host's WSL runtime: AMD's WSL lists
        checks.append(check_wsl_gpu(facts, facts.host_rocm or tag.rocm))
    checks += check_linux_host(facts)
    return checks


def docker_ways(facts: Facts) -> Resolution:
    if facts.vllm:  # vLLM brings its own torch: AMD's vLLM image, not the PyTorch one
        vways = []
        for tag in docker.vllm_tags():
            w = WayOut("docker", tag.tag, tuple(vllm_checks(facts, tag)), subject=tag)
            w.rank = (w.check("vllm-supports-gpu").verdict == SATISFIED, tag.status == "documented", w.proven,
                      _vt(tag.rocm), _vt(tag.vllm))
            vways.append(w)
        return _split("docker", vways, "no rocm/vllm image in the catalog")
    short = ".".join(facts.ubuntu.split(".")[:2]) if facts.ubuntu else None
    ways = []
    for tag in docker.tags():
        w = WayOut("docker", tag.tag, tuple(docker_checks(facts, tag)), subject=tag)
        w.rank = (w.check("image-gfx").verdict == SATISFIED, tag.status == "documented", tag.ubuntu == (short or "24.04"),
                  w.proven, _vt(tag.rocm), _vt(tag.torch))
        ways.append(w)
    return _split("docker", ways, "no rocm/pytorch image in the catalog")


# ------------------------------------------------------------------ rocm-upgrade
def rocm_checks(facts: Facts, rel: releases.RocmRelease) -> List[Check]:
    from ..catalog import support

    from ..catalog import coresdk

    gfx = facts.compute_gfx
    if not gfx:
        sup = _check("rocm-supports-gpu", UNKNOWN, "the GPU's gfx target is not known")
    else:
        answers = [coresdk.gfx_supported_on(rel, facts.os_id, g, facts.os_version, facts.names) if rel.core
                   else g in rel.gfx_official for g in gfx]
        verdict = _kleene(answers)
        if verdict == SATISFIED and rel.support_status not in wheels.PROVEN:
            verdict = UNKNOWN
        levels = ", ".join(f"{g}: {support.status(g, rel).level}" for g in gfx)
        sup = _check("rocm-supports-gpu", verdict, f"ROCm {rel.version} ({rel.support_status}): {levels}",
                     rel.all_sources)
    checks = [sup]
    ok = rel.supports_os(facts.os_id, facts.os_version) if facts.os_version else None
    kernel = ".".join(facts.kernel.split(".")[:2]) if facts.kernel else ""
    listed = rel.kernel_series(facts.ubuntu) if facts.ubuntu else []
    fams = sorted({coresdk.family_of(g) for g in gfx}) if rel.core and gfx else []
    if len(fams) == 1:  # Instinct, Radeon and Ryzen APUs have their own kernel lists
        per = coresdk.family_kernels(rel, fams[0], facts.ubuntu)
        if per:
            listed = list(per)
    if ok is False:
        oses = [f"Ubuntu {', '.join(rel.ubuntu_versions)}"] + ([f"Debian {', '.join(rel.debian)}"] if rel.debian else [])
        checks.append(_check("rocm-supports-os", VIOLATED, f"ROCm {rel.version} is for {' and '.join(oses)}, not "
                             f"{facts.os_id.capitalize()} {facts.os_version}", rel.all_sources))
    elif ok is None:
        checks.append(_check("rocm-supports-os", UNKNOWN, "the Ubuntu release is not known", rel.all_sources))
    elif listed and kernel and kernel not in listed and not facts.wsl:
        who = f" for {fams[0]} GPUs" if len(fams) == 1 and coresdk.family_kernels(rel, fams[0], facts.ubuntu) else ""
        checks.append(_check("rocm-supports-os", UNKNOWN, f"Ubuntu {facts.ubuntu} is supported; the running kernel "
                             f"{facts.kernel} is not one ROCm {rel.version} lists{who} ({', '.join(listed)})",
                             rel.all_sources))
    else:
        checks.append(_check("rocm-supports-os", SATISFIED, f"ROCm {rel.version} supports "
                             f"{facts.os_id.capitalize()} {facts.os_version}", rel.all_sources))
    host_stream = releases.stream_of(facts.host_rocm) if facts.host_rocm else None
    if host_stream and host_stream != rel.stream and _vt(rel.version) < _vt(facts.host_rocm):
        checks.append(_check("no-cross-stream-downgrade", VIOLATED, f"the host has ROCm {facts.host_rocm} "
                             f"({host_stream}); {rel.version} ({rel.stream}) is older: a downgrade across streams"))
    if facts.wsl:
        checks.append(check_wsl_gpu(facts, rel.version))
    checks.append(check_override(facts, lambda g: g in rel.gfx_official or None, f"ROCm {rel.version}"))
    checks += check_linux_host(facts)
    return checks


def rocm_ways(facts: Facts) -> Resolution:
    target = releases.upgrade_target(facts.compute_gfx, host=facts.host_rocm, os_id=facts.os_id or None,
                                     kernel=facts.kernel or None, names=facts.names,
                                     os_version=facts.os_point or facts.os_version or None) if facts.compute_gfx else None
    if target is not None:
        target_series = target.series
    elif facts.host_rocm and releases.stream_of(facts.host_rocm) == "legacy" and facts.os_id in ("ubuntu", ""):
        target_series = releases.policy_series()
    else:  # no GPU known: the policy's stream for this host
        target_series = releases.core_series(facts.os_id or None, facts.os_point or facts.os_version or None,
                                             facts.kernel or None)
    ways = []
    for rel in releases.all_releases():
        w = WayOut("rocm-upgrade", rel.version, tuple(rocm_checks(facts, rel)), subject=rel)
        # the policy's series first (upgrade_target already kept to releases that list the GPU; a
        # series whose support lists were carried over, such as 7.2, answers unknown, not violated),
        # then proven support, documented data, newer
        w.rank = (rel.series == target_series and w.check("rocm-supports-gpu").verdict != VIOLATED,
                  w.check("rocm-supports-gpu").verdict == SATISFIED,
                  rel.status == "documented" and rel.support_status == "documented", _vt(rel.version))
        ways.append(w)
    return _split("rocm-upgrade", ways, "no ROCm release in the catalog")


# ------------------------------------------------------------------ all of them
def _split(path: str, ways: List[WayOut], what: str) -> Resolution:
    offered = sorted((w for w in ways if w.eligible), key=lambda w: w.rank, reverse=True)
    rejected = [w for w in ways if not w.eligible]
    reason = ""
    if not offered:
        reason = why_none(what, rejected)
    return Resolution(path, offered, rejected, reason)


def why_none(what: str, rejected: List[WayOut]) -> str:
    """"<what> passes: <constraint> (n candidates) ..." from the checks that failed most often."""
    if not rejected:
        return f"{what} is known"
    counts: Dict[str, int] = {}
    example: Dict[str, str] = {}
    for w in rejected:
        for c in w.checks:
            if c.verdict == VIOLATED or (c.verdict == UNKNOWN and c.on_unknown == "reject"):
                counts[c.constraint] = counts.get(c.constraint, 0) + 1
                example.setdefault(c.constraint, c.detail)
    parts = [f"{cid} fails for {n} of {len(rejected)} (e.g. {example[cid]})"
             for cid, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return f"{what} passes every check: " + "; ".join(parts)


def resolve(system, error_text: Optional[str] = None, facts: Optional[Facts] = None) -> Dict[str, Resolution]:
    f = facts or from_system(system, error_text)
    return {"torch-reinstall": torch_ways(f), "docker": docker_ways(f), "rocm-upgrade": rocm_ways(f)}
