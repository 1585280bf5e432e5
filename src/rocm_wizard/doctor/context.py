"""Facts derived once from a :class:`~rocm_wizard.model.System` (plus pasted error text) for the
matchers and the recommender: AMD GPUs and their gfx targets, the host ROCm release, each torch
environment's build and gfx coverage, environment overrides, error lines.

Everything here tolerates odd values (a missing field, a number where a string was expected): a
value that cannot be understood is treated as unknown.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..catalog import gpus as gpu_table
from ..catalog import releases, support, wheels
from ..model import GPU, System, TorchEnv

TRITON_DISTS = wheels.TRITON_DISTS
ROCM_PACKAGE_PREFIXES = ("rocm", "hip-runtime", "hsa-rocr", "rocminfo", "amdgpu-dkms", "rocblas", "miopen")
VISIBLE_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


def s(value: object) -> str:
    """Any value as a stripped string ('' for None)."""
    if value is None:
        return ""
    try:
        return str(value).strip()
    except Exception:  # a hostile __str__
        return ""


def parse_version(value: object):
    from packaging.version import InvalidVersion, Version

    text = s(value)
    if not text:
        return None
    try:
        return Version(text)
    except (InvalidVersion, TypeError, ValueError):
        m = re.match(r"(\d+(?:\.\d+){0,3})", text)
        if not m:
            return None
        try:
            return Version(m.group(1))
        except (InvalidVersion, TypeError, ValueError):
            return None


def kernel_series(kernel: object) -> Optional[str]:
    m = re.match(r"(\d+)\.(\d+)", s(kernel))
    return f"{m.group(1)}.{m.group(2)}" if m else None


def norm_dist(name: object) -> str:
    return re.sub(r"[-_.]+", "-", s(name).lower())


@dataclass
class GpuView:
    gpu: GPU
    index: int  # position among AMD GPUs (HIP order when kfd_node is known)
    gfx: Optional[str]
    gfx_source: str
    label: str
    igpu: bool


@dataclass
class EnvView:
    env: TorchEnv
    label: str
    version: str
    build: Optional[str]  # rocm | cuda | cpu | None
    index: Optional[str]  # download.pytorch.org index named by the version label
    wheel_rocm: Optional[str]  # ROCm the wheel was built with (label or hip version)
    coverage: Optional[Set[str]]  # gfx targets compiled in; None when unknown
    coverage_source: str
    triton: Dict[str, str] = field(default_factory=dict)  # normalised dist -> version
    # gfx -> bundled libraries of the wheel with no kernels for it although its arch list names it
    # (torch_wheels.toml [[library]], proven gaps): already taken out of `coverage`
    library_gaps: Dict[str, list] = field(default_factory=dict)


class Context:
    def __init__(self, system: System, error_text: Optional[str] = None) -> None:
        self.system = system
        self.error_text = s(error_text) if error_text is not None else ""
        # evidence of the problem findings the other rules gave (set by the engine before the
        # catch-all rules run; see engine._RUN_LAST)
        self.reported: List[str] = []
        self.os = system.os
        self.rocm = system.rocm
        self.access = system.access
        self.docker = system.docker
        self.env: Dict[str, str] = {s(k): s(v) for k, v in _items(self.access.env)}
        self.gpus = self._gpu_views()
        self.envs = [self._env_view(e, i) for i, e in enumerate(_list(system.torch)) if isinstance(e, TorchEnv)]
        self.host_rocm = self._host_rocm()
        self.host_release = self._host_release()
        self.error_lines = self._error_lines()

    # ---------------------------------------------------------------- GPUs
    def _gpu_views(self) -> List[GpuView]:
        amd = [g for g in _list(self.system.gpus) if isinstance(g, GPU) and _is_amd(g)]

        def order(item: Tuple[int, GPU]):
            pos, g = item
            node = g.kfd_node if isinstance(g.kfd_node, int) and not isinstance(g.kfd_node, bool) else None
            return (0, node, pos) if node is not None else (1, 0, pos)

        views = []
        for i, (_pos, g) in enumerate(sorted(enumerate(amd), key=order)):
            gfx, src = self._gfx_of(g)
            name = s(g.name) or "AMD GPU"
            where = s(g.bdf) or s(g.pci_id)
            label = f"{name}" + (f" [{where}]" if where else "") + (f" ({gfx})" if gfx else "")
            # (s11-heldak) a GPU known only by its target and a generic name ("AMD Radeon Graphics", gfx1036 in
            # rocminfo) has no catalogue entry to say it is integrated; a target that only APUs carry says so
            # (as resolve/facts.py reads it), unless an output said it is discrete
            igpu = s(g.kind) == "igpu" or s(g.segment) == "apu" or (
                s(g.kind) != "dgpu" and bool(gfx) and gpu_table.apu_only_gfx(gfx))
            views.append(GpuView(g, i, gfx, src, label, igpu))
        return views

    @staticmethod
    def _gfx_of(g: GPU) -> Tuple[Optional[str], str]:
        chip = gpu_table.chip_gfx(s(g.device_id) or None, s(g.revision) or None)
        for fld in ("gfx_target", "isa"):
            gfx = support.normalize_gfx(getattr(g, fld, None))
            if gfx:
                if chip and chip != gfx:  # the chip's own target wins (see rule reported-target-not-chip)
                    return chip, "catalog:gpus.csv (PCI id 1002:%s; reported %s)" % (s(g.device_id).lower(), gfx)
                return gfx, s(_sources(g).get(fld)) or fld
        entry = gpu_table.lookup_pci(s(g.device_id) or None, s(g.revision) or None)
        if entry is not None:
            return entry.gfx_target, "catalog:gpus.csv (PCI id)"
        return None, ""

    @property
    def amd_present(self) -> bool:
        return bool(self.gpus)

    @property
    def gfx_targets(self) -> List[str]:
        return list(dict.fromkeys(v.gfx for v in self.gpus if v.gfx))

    @property
    def primary(self) -> List[GpuView]:
        """The GPUs a user means: discrete ones when there are any, else all."""
        d = [v for v in self.gpus if not v.igpu]
        return d or list(self.gpus)

    @property
    def primary_gfx(self) -> List[str]:
        return list(dict.fromkeys(v.gfx for v in self.primary if v.gfx))

    @property
    def wsl(self) -> bool:
        if self.os.wsl is True:
            return True
        k = s(self.os.kernel).lower()
        return "microsoft" in k or "wsl" in k

    @property
    def container(self) -> bool:
        return bool(s(self.os.container))

    @property
    def is_root(self) -> bool:
        return s(self.access.user) == "root"

    # ---------------------------------------------------------------- host ROCm
    def _host_rocm(self) -> Optional[str]:
        v = parse_version(self.rocm.version)
        if v is None:
            for name in ("rocm-core", "rocm", "rocm-hip-runtime"):
                pv = _items_dict(self.rocm.packages).get(name)
                rel = releases.version_from_package(s(pv))
                if rel:
                    return rel
            return None
        nums = list(v.release[:3])
        if len(nums) == 3 and nums[2] >= 100:  # a HIP build number (6.4.43483), not a patch level
            nums = nums[:2]
        return ".".join(str(n) for n in nums)

    def _host_release(self) -> Optional[releases.RocmRelease]:
        if not self.host_rocm:
            return None
        rel = releases.get(self.host_rocm)
        if rel is None and self.host_rocm.count(".") == 1:
            rel = releases.get(self.host_rocm + ".0")
        return rel

    @property
    def host_series(self) -> Optional[str]:
        return releases.series_of(self.host_rocm) if self.host_rocm else None

    @property
    def rocm_installed(self) -> bool:
        pkgs = [s(k).lower() for k in _items_dict(self.rocm.packages)]
        return bool(self.host_rocm or _list(self.rocm.installs) or any(p.startswith(ROCM_PACKAGE_PREFIXES) for p in pkgs))

    # ---------------------------------------------------------------- torch environments
    def _env_view(self, e: TorchEnv, i: int) -> EnvView:
        version = s(e.version)
        build = s(e.build).lower() or None
        if build not in (None, "rocm", "cuda", "cpu"):
            build = None
        if build is None:
            build = wheels.build_of_version(version)
        if build is None and s(e.hip):
            build = "rocm"
        if build is None and s(e.cuda):
            build = "cuda"
        index = wheels.index_of_version(version)
        # torch.version.rocm before HIP: HIP is versioned apart on the Core SDK (10.0 ships HIP 7.15)
        wheel_rocm = wheels.rocm_of_version(version) or s(getattr(e, "rocm", None)) or (
            None if s(getattr(e, "stream", None)) == "pip" else (s(e.hip) or None))
        arch = [support.normalize_gfx(a) for a in _list(e.arch_list)]
        arch = [a for a in arch if a]
        if arch:
            coverage, csrc = set(arch), "torch arch list"
        elif index and _known_set(wheels.wheel_gfx(version, index)):
            built = wheels.wheel_gfx(version, index)
            coverage = set(built.gfx)
            csrc = f"catalog: gfx targets of torch {wheels.public_version(version)} on the {index} index ({built.status})"
        else:
            coverage, csrc = None, ""
        triton = {norm_dist(k): s(v) for k, v in _items(e.triton)}
        label = s(e.path) or s(e.site_packages) or f"environment {i + 1}"
        gaps: Dict[str, list] = {}
        if coverage is not None and index and build == "rocm":
            for g in sorted(coverage):
                lacking = [x for x in wheels.libraries_lacking(version, index, g) if x.status in wheels.PROVEN]
                if lacking:
                    gaps[g] = lacking
            coverage = coverage - set(gaps)
        return EnvView(e, label, version, build, index, wheel_rocm, coverage, csrc, triton, gaps)

    @property
    def rocm_envs(self) -> List[EnvView]:
        return [v for v in self.envs if v.build == "rocm"]

    def covered(self, gfx: Optional[str]) -> Optional[bool]:
        """Whether software in use has kernels for ``gfx``: the ROCm torch environments when their
        coverage is known, else whether any official build exists.  None when gfx is unknown."""
        if not gfx:
            return None
        known = [v.coverage for v in self.rocm_envs if v.coverage is not None]
        if known:
            return any(gfx in c for c in known)
        if self.device_wheel_env(gfx) is not None:
            return True
        return support.has_official_build(gfx, amd_indexes=False)  # the basis coverage_basis names

    def device_wheel_env(self, gfx: Optional[str]) -> Optional[EnvView]:
        """The ROCm torch environment whose device wheels name ``gfx`` itself (TheRock's multi-arch wheels: pip's
        ``torch[device-gfx90c]`` extra, ``rocm-sdk targets``), else None.  Such a wheel is built for that target
        (ROCm/TheRock's per-target device packages), so kernels for it are there even where no official ROCm release
        or download.pytorch.org index lists the target.  Only the exact target counts: a family name (gfx110X-all) is
        not read as covering a target here."""
        if not gfx:
            return None
        for v in self.rocm_envs:
            devices = v.env.device_gfx if isinstance(getattr(v.env, "device_gfx", None), list) else []
            if any(s(d).lower() == gfx for d in devices):
                return v
        return None

    @property
    def coverage_basis(self) -> str:
        known = [v for v in self.rocm_envs if v.coverage is not None]
        if known:
            return "; ".join(f"{v.label}: {v.coverage_source}" for v in known)
        return "catalog: official ROCm releases and download.pytorch.org indexes"

    # ---------------------------------------------------------------- environment variables
    @property
    def hsa_override(self) -> Dict[str, str]:
        return {k: v for k, v in self.env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION") and v}

    @property
    def visible_devices(self) -> Dict[str, str]:
        return {k: self.env[k] for k in VISIBLE_VARS if self.env.get(k)}

    # ---------------------------------------------------------------- error text
    def _error_lines(self) -> List[Tuple[str, str, str]]:
        """(text, where, signature) for every line of pasted text and every detected sighting."""
        out = []
        for n, line in enumerate(self.error_text.splitlines(), 1):
            if line.strip():
                out.append((line.rstrip(), f"error text line {n}", ""))
        for e in _list(self.system.errors):
            text = s(getattr(e, "text", None))
            sig = s(getattr(e, "signature", None))
            where = ", ".join(sorted({s(v) for v in _items_dict(getattr(e, "sources", {})).values()
                                      if not s(v).startswith("catalog:")})) or "detected"
            if text or sig:
                out.append((text or sig, where, sig))
        return out

    def error_hits(self, patterns: Sequence, signatures: Sequence[str] = ()) -> List[str]:
        hits: Dict[str, str] = {}
        for text, where, sig in self.error_lines:
            if (sig and sig in signatures) or any(p.search(text) for p in patterns):
                hits.setdefault(_clip(text), where)
        return [f"{where}: {text}" for text, where in hits.items()]

    def error_search(self, pattern: str) -> Optional[str]:
        rx = re.compile(pattern, re.I)
        for text, _where, _sig in self.error_lines:
            m = rx.search(text)
            if m:
                return m.group(0)
        return None


def _known_set(built) -> bool:
    return built is not None and built.status != "unknown" and bool(built.gfx)


def _clip(text: str, n: int = 200) -> str:
    text = text.strip()
    return text if len(text) <= n else text[: n - 1] + "…"


def _list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else []


def _items(value):
    return list(value.items()) if isinstance(value, dict) else []


def _items_dict(value) -> dict:
    return dict(value) if isinstance(value, dict) else {}


def _sources(rec) -> dict:
    return _items_dict(getattr(rec, "sources", {}))


def _is_amd(g: GPU) -> bool:
    vendor = s(g.vendor_id).lower().replace("0x", "")
    if vendor:
        return vendor == "1002"
    return g.is_amd is not False

