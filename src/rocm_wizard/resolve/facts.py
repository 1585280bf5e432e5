"""What the resolver needs to know about a system, normalised once: the GPUs that do the work (a
hidden iGPU beside a discrete GPU set apart), the venv's Python and torch, the host's ROCm and
kernel-driver train, the OS, WSL, an HSA override in effect, and workloads that do not use PyTorch."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..catalog import compat, gpus, releases, support, wheels


def _s(value: object) -> str:
    return "" if value is None else str(value).strip()


@dataclass
class GpuFact:
    gfx: Optional[str]
    name: str
    igpu: bool
    target: str = ""  # the exact target with features when known ("gfx90a:sramecc+:xnack-")


@dataclass
class Facts:
    gpus: List[GpuFact] = field(default_factory=list)
    python: Optional[str] = None  # X.Y of the venv the torch path changes
    torch: Optional[str] = None  # the venv's torch version (with label)
    torch_index: Optional[str] = None  # download.pytorch.org index of that torch
    host_rocm: Optional[str] = None
    driver_train: Optional[str] = None
    driver_source: str = ""
    os_id: str = ""
    os_version: str = ""
    os_point: str = ""  # the point release when the OS's name gives it (Ubuntu 24.04.5), else os_version
    kernel: str = ""
    wsl: bool = False
    windows_native: bool = False  # a native Windows host (detect's os.windows_native), never with wsl
    wsl_userspace: Optional[str] = None  # rocr4wsl | librocdxg, as detected (None: not shown)
    container: bool = False
    override: Dict[str, str] = field(default_factory=dict)
    not_torch: Tuple[str, ...] = ()  # workloads seen that do not use PyTorch (llama.cpp, ollama)
    vendor_triton: Tuple[str, ...] = ()  # vendor containers whose own Triton is intended
    vllm: str = ""  # the line that shows a vLLM image or build (its version line, /vllm-workspace...); "" when none
    # no venv yet: the Python a new one gets, the distribution's python3 (catalog distro_python.toml)
    new_python: Optional[str] = None
    new_python_source: str = ""

    @property
    def compute(self) -> List[GpuFact]:
        """The GPUs that do the work: discrete ones when there are any, else all."""
        d = [g for g in self.gpus if not g.igpu]
        return d or list(self.gpus)

    @property
    def compute_gfx(self) -> List[str]:
        return list(dict.fromkeys(g.gfx for g in self.compute if g.gfx))

    @property
    def compute_targets(self) -> List[str]:
        """The exact targets (with features where known, else the bare gfx) of the working GPUs."""
        return list(dict.fromkeys((g.target or g.gfx) for g in self.compute if g.gfx))

    @property
    def hidden_gfx(self) -> List[str]:
        """Integrated GPUs beside a discrete one (excluded from the kernel check)."""
        if not any(not g.igpu for g in self.gpus):
            return []
        shown = self.compute_gfx  # (once, not for every integrated GPU)
        return [g for g in dict.fromkeys(x.gfx for x in self.gpus if x.igpu and x.gfx) if g not in shown]

    @property
    def host_series(self) -> Optional[str]:
        return releases.series_of(self.host_rocm) if self.host_rocm else None

    @property
    def ubuntu(self) -> Optional[str]:
        return self.os_version if self.os_id == "ubuntu" and self.os_version else None

    @property
    def names(self) -> str:
        return ", ".join(dict.fromkeys(g.name for g in self.compute if g.name))


def gfx_of(g) -> Optional[str]:
    """The GPU's target for planning: the chip's own (PCI id in the chip table) over what a runtime
    reported, which an HSA_OVERRIDE_GFX_VERSION or a new card's fallback can change."""
    chip = gpus.chip_gfx(_s(getattr(g, "device_id", None)) or None, _s(getattr(g, "revision", None)) or None)
    if chip:
        return chip
    for fld in ("gfx_target", "isa"):
        gfx = support.normalize_gfx(getattr(g, fld, None))
        if gfx:
            return gfx
    entry = gpus.lookup_pci(_s(getattr(g, "device_id", None)) or None, _s(getattr(g, "revision", None)) or None)
    return entry.gfx_target if entry is not None else None


def exact_target(g) -> str:
    """``gfx90a:sramecc+:xnack-`` from the GPU's ISA name (``amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-``);
    "" when no features are known."""
    base, feats = wheels.split_target(getattr(g, "isa", None) or getattr(g, "gfx_target", None))
    if not base or not feats or base != gfx_of(g):
        return ""
    return ":".join([base] + sorted(feats))


def point_release(osi) -> str:
    """``24.04.5`` from PRETTY_NAME "Ubuntu 24.04.5 LTS" when it extends VERSION_ID, else VERSION_ID."""
    vid = _s(getattr(osi, "version_id", None))
    m = re.search(r"\b(\d+\.\d+(?:\.\d+)?)\b", _s(getattr(osi, "pretty_name", None)))
    if vid and m and (m.group(1) == vid or m.group(1).startswith(vid + ".")):
        return m.group(1)
    return vid


def _is_amd(g) -> bool:
    vendor = _s(getattr(g, "vendor_id", None)).lower().replace("0x", "")
    if vendor:
        return vendor == "1002"
    return bool(getattr(g, "is_amd", True))


def amd_gpus(system) -> List[GpuFact]:
    out = []
    for g in getattr(system, "gpus", None) or []:
        if not _is_amd(g):
            continue
        gfx = gfx_of(g)
        kind = _s(getattr(g, "kind", None))
        igpu = kind == "igpu" or _s(getattr(g, "segment", None)) == "apu" or (
            kind != "dgpu" and bool(gfx) and gpus.apu_only_gfx(gfx))
        out.append(GpuFact(gfx, _s(getattr(g, "name", None)) or "AMD GPU", igpu, exact_target(g)))
    return out


def host_rocm(system) -> Optional[str]:
    """The host's ROCm release (a HIP build number such as 6.4.43483 dropped)."""
    rocm = getattr(system, "rocm", None)
    m = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?", _s(getattr(rocm, "version", None)))
    if m:
        nums = [m.group(1), m.group(2)] + ([m.group(3)] if m.group(3) and int(m.group(3)) < 100 else [])
        return ".".join(str(int(n)) for n in nums)
    for name in ("rocm-core", "rocm", "rocm-hip-runtime"):
        pv = (getattr(rocm, "packages", None) or {}).get(name)
        rel = releases.version_from_package(_s(pv))
        if rel:
            return rel
    return None


def driver_train(system) -> Tuple[Optional[str], str]:
    """(the installed amdgpu driver's train, where it was read); (None, "") when not known."""
    rocm = getattr(system, "rocm", None)
    if rocm is None:
        return None, ""
    for what, value in (("amdgpu-dkms package", (getattr(rocm, "packages", None) or {}).get("amdgpu-dkms")),
                        ("dkms status", getattr(rocm, "amdgpu_dkms", None)),
                        ("amdgpu module version", getattr(rocm, "amdgpu_version", None))):
        train = compat.driver_train_of_package(value)
        if train:
            return train, f"{what} {_s(value)}"
    return None, ""


def venv_of(system, venv: Optional[str] = None):
    """The torch environment a torch reinstall changes: the one at ``venv``, the active one, the
    only ROCm one, the only one; None when that cannot be told."""
    envs = [e for e in getattr(system, "torch", None) or []]
    if venv:
        import os

        want = os.path.normpath(venv)
        return next((e for e in envs if e.path and os.path.normpath(e.path) == want), None)
    active = [e for e in envs if getattr(e, "active", False)]
    rocm = [e for e in envs if (e.build or wheels.build_of_version(e.version)) in (None, "rocm")]
    for group in (active, rocm if len(rocm) == 1 else [], envs if len(envs) == 1 else []):
        if group:
            return group[0]
    return rocm[0] if rocm else (envs[0] if envs else None)


def from_system(system, error_text: Optional[str] = None, venv: Optional[str] = None) -> Facts:
    osi = getattr(system, "os", None)
    kernel = _s(getattr(osi, "kernel", None))
    wsl = getattr(osi, "wsl", None) is True or "microsoft" in kernel.lower() or "wsl" in kernel.lower()
    env = venv_of(system, venv)
    py = None
    # torch outside any venv (a pasted collect_env, a container's system site): the torch way makes
    # a new venv there, with the distribution's python3, not the Python that torch runs under now
    new_venv = env is None or not _s(getattr(env, "path", None))
    if env is not None and not new_venv:
        m = re.match(r"^(\d+)\.(\d+)", _s(env.python))
        py = f"{m.group(1)}.{m.group(2)}" if m else None
    access_env = getattr(getattr(system, "access", None), "env", None) or {}
    override = {k: _s(v) for k, v in access_env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION") and _s(v)}
    text = _s(error_text)
    for e in getattr(system, "errors", None) or []:
        text += "\n" + _s(getattr(e, "text", None)) + " " + _s(getattr(e, "signature", None))
    for w in getattr(system, "workloads", None) or []:  # programs the pasted outputs come from
        text += "\n" + _s(getattr(w, "id", None))
    train, where = driver_train(system)
    new_py, new_src = (None, "") if not new_venv else distro_python(osi)
    vllm = vllm_line(system, error_text)
    return Facts(
        gpus=amd_gpus(system), python=py, torch=_s(env.version) if env is not None else None,
        torch_index=wheels.index_of_version(env.version) if env is not None else None,
        host_rocm=host_rocm(system), driver_train=train, driver_source=where,
        os_id=_s(getattr(osi, "id", None)).lower(), os_version=_s(getattr(osi, "version_id", None)),
        os_point=point_release(osi),
        kernel=kernel, wsl=wsl, windows_native=getattr(osi, "windows_native", None) is True and not wsl,
        wsl_userspace=_s(getattr(osi, "wsl_userspace", None)) or None, container=bool(_s(getattr(osi, "container", None))), override=override,
        not_torch=tuple(compat.not_torch_workloads(text)), vendor_triton=tuple(compat.vendor_triton_containers(text)),
        new_python=new_py, new_python_source=new_src, vllm=vllm)


def vllm_line(system, error_text: Optional[str] = None) -> str:
    """The line that shows the work runs in a vLLM image or build (detection's workload sighting,
    or a line of the error text given), "" when none does."""
    for w in getattr(system, "workloads", None) or []:
        if _s(getattr(w, "id", None)) == "vllm":
            return _s(getattr(w, "line", None)) or "vllm"
    if error_text:
        from ..detect.parsers import workloads

        for wid, line in workloads.scan(str(error_text)):
            if wid == "vllm":
                return line
    return ""


def distro_python(osi) -> Tuple[Optional[str], str]:
    """(X.Y, where it comes from) of the python3 a new venv gets on the system ``osi`` describes: the
    distribution release's default python3 (a known Ubuntu derivative: its Ubuntu base's); (None, "")
    when the catalog does not know it, or knows it only as inferred."""
    from ..catalog import ubuntu

    if osi is None:
        return None, ""
    seen = _s(getattr(osi, "python", None))
    where = _s((getattr(osi, "sources", None) or {}).get("python"))
    m = re.match(r"^(\d+)\.(\d+)", seen)
    if m and where.startswith("link:"):  # this system's own python3 (detection read where it leads)
        xy = f"{m.group(1)}.{m.group(2)}"
        return xy, f"a new venv gets this system's python3, Python {xy} ({where[5:]} -> python{xy})"
    os_id, version = _s(getattr(osi, "id", None)).lower(), _s(getattr(osi, "version_id", None))
    dp = ubuntu.default_python(os_id, version)
    if dp is None:
        try:
            from ..catalog import derivatives

            base = derivatives.ubuntu_base(osi)
        except Exception:  # an odd os-release: no derivative, no default Python
            base = None
        if base is not None and getattr(base, "version", None):
            dp = ubuntu.default_python("ubuntu", base.version)
    if dp is None or dp.status not in wheels.PROVEN:
        return None, ""
    name = f"{os_id.capitalize() if os_id != dp.os else dp.os.capitalize()} {version or dp.version}"
    return dp.python, f"a new venv gets {name}'s python3, Python {dp.python} ({dp.package})"
