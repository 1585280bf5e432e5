"""Everything the plan engine asks of the catalog (``rocm_wizard.catalog``), in one place: if its
APIs move, only this module changes.  Choosing a target is not done here: that is the resolver's
job (``rocm_wizard.resolve``).  Catalog modules load their data lazily, so importing this module
costs nothing until a question is asked."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple


# ------------------------------------------------------------------------------ GPUs
def normalize_gfx(value: object) -> Optional[str]:
    from ..catalog import support

    return support.normalize_gfx(value)


def norm_pci(device_id: object) -> Optional[str]:
    text = str(device_id or "").strip().lower()
    if text.startswith("0x"):
        text = text[2:]
    if not text or len(text) > 4 or any(c not in "0123456789abcdef" for c in text):
        return None
    return text.zfill(4)


def chip_gfx(device_id: object, revision: object = None) -> Optional[str]:
    from ..catalog import gpus

    if not device_id:
        return None
    return gpus.chip_gfx(str(device_id), str(revision) if revision else None)


def gfx_of_pci(device_id: object, revision: object = None) -> Optional[str]:
    from ..catalog import gpus

    entry = gpus.lookup_pci(str(device_id or ""), str(revision) if revision else None)
    return entry.gfx_target if entry else None


def has_any_build(gfx: str) -> bool:
    """Some ROCm release lists it or some PyTorch index carries kernels for it."""
    from ..catalog import support

    return support.has_official_build(gfx)


def no_build_reason(gfx: str) -> str:
    from ..catalog import overrides

    why = overrides.no_override(gfx)
    if why is not None:
        return f"{gfx}: {why.reason}"
    return f"{gfx}: not on any release's list"


def override_text(gfx: str) -> str:
    from ..catalog import overrides

    o = overrides.for_gfx(gfx)
    if o is None:
        return ""
    return " ".join(f"{k}={v}" for k, v in o.env.items()) + " (community, not supported by AMD)"


def gfx_status(gfx: str, rel):
    from ..catalog import support

    return support.status(gfx, rel)


def official_releases(gfx: str) -> List[str]:
    from ..catalog import support

    return [r.version for r in support.official_releases(gfx)]


def describe_sources(tags: Sequence[str]) -> List[str]:
    from ..catalog import sources

    return sources.describe(tags)


# ------------------------------------------------------------------------------ ROCm releases
def apt_codename(osi) -> Optional[str]:
    """The Ubuntu codename of a detected OS when AMD's apt repositories can serve it."""
    from ..catalog import releases

    if osi is None or osi.id != "ubuntu" or not osi.version_id:
        return None
    return releases.codename(osi.version_id)


def rocm_release(spec: object):
    from ..catalog import releases

    return releases.resolve(spec)


def rocm_versions() -> List[str]:
    from ..catalog import releases

    return [r.version for r in releases.all_releases()]


def rocm_repo():
    from ..catalog import releases

    return releases.repo()


def rocm_default_base() -> str:
    from ..catalog import releases

    return releases.base_url()


def rocm_key_url(base: Optional[str]) -> str:
    from ..catalog import releases

    return releases.key_url(base)


def rocm_line_markers(bases: List[str]) -> List[str]:
    """What a sources line contains when it names one of AMD's repositories on one of ``bases``
    (``//host[:port][/path]/rocm/apt/``...): the site's base followed by AMD's repository paths, never
    the host alone, so that the distribution's archive on the same mirror host is left alone."""
    from .steps._util import url_marker

    out: List[str] = []
    for base in bases:
        for path in rocm_repo().apt_paths:
            m = url_marker(base) + "/" + path
            if m not in out:
                out.append(m)
    return out


def rocm_key_fingerprint() -> str:
    return rocm_repo().key_fingerprint


def rocm_key_status() -> str:
    return rocm_repo().key_fingerprint_status


def rocm_key_sources() -> List[str]:
    return list(rocm_repo().key_sources)


def rocm_apt_lines(rel, codename: str, base: Optional[str], amdgpu_arch: Optional[str] = None) -> List[Tuple[str, str]]:
    from ..catalog import releases

    return releases.apt_lines(rel, codename, base, amdgpu_arch=amdgpu_arch)


def rocm_amdgpu_install_url(rel, codename: str, base: Optional[str]) -> Optional[str]:
    from ..catalog import releases

    return releases.amdgpu_install_url(rel, codename, base)


def rocm_package_prefix(version: str) -> str:
    """Debian version prefix of a release's packages: 6.4.3 -> ``6.4.3.60403-`` (build and
    distribution suffix vary).  Source: ROCm/rocm-core utils.cmake (ROCM_LIBPATCH_VERSION)."""
    major, minor, patch = (int(x) for x in version.split(".")[:3])
    return f"{major}.{minor}.{patch}.{major * 10000 + minor * 100 + patch}-"


def release_facts(rel) -> Dict[str, Any]:
    from ..catalog import sources

    extra: Dict[str, Any] = {}
    if rel.core:
        extra = {"stream": rel.stream, "date": rel.date, "debian": list(rel.debian),
                 "package_version": rel.package_version, "driver_train": rel.driver_train or None,
                 "amdgpu_dir_status": rel.amdgpu_dir_status or None}
    return {**extra, "version": rel.version, "apt_dir": rel.apt_dir, "layout": rel.layout, "status": rel.status,
            "support_status": rel.support_status, "amdgpu_dir": rel.amdgpu_dir, "graphics_dir": rel.graphics_dir,
            "ubuntu": list(rel.ubuntu_versions), "sources": sources.describe(rel.all_sources)}


# ------------------------------------------------------------------------------ ROCm Core SDK
def rocm_stream(version: object) -> Optional[str]:
    from ..catalog import releases

    return releases.stream_of(version)


def rocm_preview(spec: object):
    from ..catalog import coresdk

    return coresdk.preview(spec)


def core_info():
    from ..catalog import coresdk

    return coresdk.info()


def core_key_note(info, fpr: str, given: bool) -> str:
    """The plan's note on the Core SDK signing key it checks (apt and rpm plans alike): the
    fingerprint given with ``--rocm-core-key-fingerprint`` beside the catalog's, or the catalog's
    with its status and source."""
    if given:
        return (f"Core SDK signing key fingerprint given by you: {fpr} (the catalog's: "
                f"{info.key_fingerprint or 'none'}, {info.key_fingerprint_status})")
    return (f"Core SDK signing key fingerprint {fpr} ({info.key_fingerprint_status}: "
            f"{info.key_fingerprint_source or 'catalog'}); --rocm-core-key-fingerprint overrides it")


def core_profile(osi):
    """AMD's Core SDK repository profile of a detected OS (None when it has none)."""
    from ..catalog import coresdk

    if osi is None:
        return None
    return coresdk.profile(osi.id, osi.version_id)


def core_gfx_ok(rel, os_id: Optional[str], gfx: str, os_version: Optional[str] = None,
                names: str = "") -> Optional[bool]:
    from ..catalog import coresdk

    return coresdk.gfx_supported_on(rel, os_id, gfx, os_version, names)


def core_source_file(rel, prof, base: Optional[str]) -> Tuple[str, str]:
    from ..catalog import coresdk

    return coresdk.source_file(rel, prof, base)


def core_repo_package():
    from ..catalog import coresdk

    return coresdk.repo_package()


def core_packages_url(rel, prof, base: Optional[str]) -> str:
    from ..catalog import coresdk

    return coresdk.packages_url(rel, prof, base)


def core_driver_lines(rel, codename: str, base: Optional[str]) -> List[Tuple[str, str]]:
    from ..catalog import coresdk

    return coresdk.driver_lines(rel, codename, base)


def core_default_bases() -> Dict[str, str]:
    from ..catalog import coresdk

    return {r.name: r.base_url for r in coresdk.repos()}


def core_key_url(rel, base: Optional[str]) -> str:
    from ..catalog import coresdk

    return coresdk.key_url(rel, base)


def core_package_names(rel, gfx_targets: Sequence[str]) -> List[str]:
    from ..catalog import coresdk

    return coresdk.package_names(rel, gfx_targets)


def core_install_root(rel) -> str:
    from ..catalog import coresdk

    return coresdk.install_root(rel)


def core_version_file(rel) -> str:
    from ..catalog import coresdk

    return coresdk.version_file(rel)


def rocm_absent(system) -> bool:
    rocm = getattr(system, "rocm", None)
    if rocm is None or getattr(system, "origin", "") != "live":
        return False
    return not rocm.installs and not rocm.version and not rocm.packages


# ------------------------------------------------------------------------------ PyTorch wheels
def torch_release(version: object):
    from ..catalog import wheels

    return wheels.torch_release(version)


def torch_versions() -> List[str]:
    from ..catalog import wheels

    return [t.version for t in wheels.torch_releases() if t.indexes]


def index_of_version(version: object) -> Optional[str]:
    from ..catalog import wheels

    return wheels.index_of_version(version)


def wheel_has_gfx(rel, index: str, gfx: str) -> Optional[bool]:
    from ..catalog import wheels

    return wheels.wheel_has_gfx(rel, index, gfx)


def official_build(gfx: str) -> bool:
    """Whether an official ROCm release or a PyTorch index supports ``gfx`` (AMD's own indexes also
    build targets AMD does not support)."""
    from ..catalog import support

    return support.has_official_build(gfx, amd_indexes=False)


def index_label(index: str) -> str:
    """The local version label of the index's wheels (``rocm6.2``; ``rocm7.14.0`` on AMD's)."""
    from ..catalog import wheels

    idx = wheels.index(index)
    return idx.label if idx is not None and idx.label else index


def index_is_amd(index: str) -> bool:
    from ..catalog import wheels

    idx = wheels.index(index)
    return idx is not None and idx.amd


def index_rocm(index: str) -> Optional[str]:
    from ..catalog import wheels

    idx = wheels.index(index)
    return idx.rocm if idx else None


def torch_requirements(rel, index: str, gfx_targets: Sequence[str] = ()) -> List[str]:
    """Exact pins: torch, torchvision, torchaudio with the index's local label, and the Triton
    build torch's metadata requires (no label: it matches the index's build); on AMD's indexes the
    GPUs' device extras and the rocm wheels of the release (``catalog.wheels.requirements``)."""
    from ..catalog import wheels

    return wheels.requirements(rel, wheels.index(index), gfx_targets)


def torch_constraints(requirements: Sequence[str]) -> List[str]:
    """The pins as pip constraints (a constraint takes no extras)."""
    return [re.sub(r"\[[^\]]*\]", "", r) for r in requirements]


def torch_index_url(index: str, base: Optional[str] = None) -> str:
    from ..catalog import wheels

    return wheels.index_url(index, base)


def torch_facts(rel, index: str) -> Dict[str, Any]:
    from ..catalog import sources, wheels

    idx = wheels.index(index)
    built = wheels.wheel_gfx(rel, index)
    amd = idx is not None and idx.amd
    out = {"version": rel.version, "index": index, "index_status": rel.status_on(index),
           "torchvision": rel.torchvision, "torchaudio": rel.torchaudio_for(index),
           "triton": None if amd else rel.triton_requirement,
           "triton_status": "unknown" if amd else rel.triton_status, "wheel_gfx": list(built.gfx) if built else [],
           "wheel_gfx_status": built.status if built else "unknown",
           "python": list(rel.python_for(index)), "python_status": rel.python_status if rel.python_for(index) else "unknown",
           "userspace": idx.userspace if idx else "unknown",
           "sources": sources.describe(tuple(rel.sources) + (tuple(idx.sources) if idx else ())
                                       + (tuple(built.sources) if built else ()))}
    if amd:  # AMD's own index: its wheels take ROCm from the rocm pip wheels of this release
        out["rocm_wheels"] = idx.rocm_pin
    return out


# ------------------------------------------------------------------------------ Docker images
def check_image(value: str) -> str:
    from .steps.docker import check_image as _check

    return _check(value)


def docker_image(tag: str) -> str:
    from ..catalog import docker

    return docker.image(tag)


def docker_parse(image: str):
    from ..catalog import docker

    if image.startswith(docker.vllm_repository() + ":"):  # AMD's vLLM image: only tags the catalog knows
        parsed = docker.parse_tag(image)
        return None if parsed is None else {t.tag: t for t in docker.vllm_tags()}.get(parsed.tag)
    if not image.startswith(docker.repository() + ":"):
        return None
    parsed = docker.parse_tag(image)
    if parsed is None:
        return None
    known = {t.tag: t for t in docker.tags()}
    return known.get(parsed.tag, parsed)


def docker_vllm_repository() -> str:
    from ..catalog import docker

    return docker.vllm_repository()


def docker_pick(rocm: Optional[str], ubuntu: Optional[str], python: Optional[str], torch: Optional[str],
                fits=None):
    from ..catalog import docker

    for r, u, p, t in ((rocm, ubuntu, python, torch), (rocm, ubuntu, None, torch), (rocm, None, None, torch)):
        tag = docker.pick_tag(rocm=r, ubuntu=u, python=p, torch=t, fits=fits)
        if tag is not None:
            return tag
    return None


def docker_run_flags(wsl: bool = False) -> Tuple[str, ...]:
    from ..catalog import docker

    return docker.wsl_run_flags() if wsl else docker.run_flags()


def docker_run_flag_sources(wsl: bool = False) -> Tuple[str, ...]:
    from ..catalog import docker

    return docker.wsl_run_flags_sources() if wsl else docker.run_flags_sources()


def docker_host_requirement(wsl: bool = False) -> str:
    from ..catalog import docker

    return docker.wsl_host_requirement() if wsl else docker.host_requirement()

