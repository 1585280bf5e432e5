"""PyTorch's environment report, ``python -m torch.utils.collect_env``.

The report is ``Key: value`` lines (``PyTorch version``, ``ROCM used to build PyTorch``, ``OS``,
``Python version``, ``Python platform``, ``GPU models and configuration``, ``HIP runtime
version``, ``MIOpen runtime version``...), an ``lscpu`` block after ``CPU:``, and package lines
``[pip3] name==version`` / ``[conda] name version build channel``.  Real pastes start with a
``<frozen runpy>:128: RuntimeWarning`` line, are cut off, or are older layouts (``[pip]``
prefix, no HIP lines); every field is optional.

Field meaning (from ``torch/utils/collect_env.py``): ``ROCM used to build PyTorch`` is
``torch.version.hip``, the *wheel's* HIP, never the host's ROCm; ``GPU models and configuration``
on ROCm builds is the current device's name only.
"""
from __future__ import annotations

import functools
import re
from ...model import field
from typing import Dict, List, Optional, Tuple

from ...model import lean_dataclass
from ._core_text import lazy, lines
from .uname import ARCHES, RELEASE_RE, flavour, is_wsl

KIND = "collect_env"

_KEYS = {
    "PyTorch version": "torch_version",
    "Is debug build": "debug",
    "CUDA used to build PyTorch": "cuda_build",
    "ROCM used to build PyTorch": "hip_build",
    "OS": "os",
    "GCC version": "gcc",
    "Clang version": "clang",
    "CMake version": "cmake",
    "Libc version": "libc",
    "Python version": "python",
    "Python platform": "platform",
    "Is CUDA available": "cuda_available",
    "CUDA runtime version": "cuda_runtime",
    "CUDA_MODULE_LOADING set to": "cuda_module_loading",
    "GPU models and configuration": "gpu_models",
    "Nvidia driver version": "nvidia_driver",
    "cuDNN version": "cudnn",
    "HIP runtime version": "hip_runtime",
    "MIOpen runtime version": "miopen",
    "Is XNNPACK available": "xnnpack",
    "Is XPU available": "xpu_available",
}
_KEY_LINE = lazy(r"^(?P<key>[A-Za-z][A-Za-z0-9_ ]*?)\s*:\s?(?P<value>.*)$")
_PIP_LINE = lazy(r"^\[(?P<tool>pip3?|conda)\]\s+(?P<rest>.+)$")
# platform.platform(): "Linux-<release>-<machine>[-<processor>]-with-<libc>"; the processor part is there
# where uname -p names the CPU (Gentoo: "...-x86_64-AMD_Ryzen_9_5950X_16-Core_Processor-with-glibc2.40")
_PLATFORM = lazy(r"^Linux-(?P<rel>" + RELEASE_RE + r")-(?P<arch>" + "|".join(ARCHES) + r")(?:-[\w.()@-]{1,120}?)?(?:-with-.*)?$")
_GPU_GFX = lazy(r"^(?P<name>.*?)\s*\((?P<gfx>gfx[0-9a-f]{3,5})(?P<feat>(?::[a-z0-9_-]+[+-]?)*)\)\s*$", re.I)
_NOT_AVAILABLE = ("n/a", "could not collect", "none", "")


@lean_dataclass
class CollectEnvGpu:
    """The GPU named on collect_env's "GPU models and configuration" line."""

    name: Optional[str] = None
    gfx_target: Optional[str] = None
    isa_features: Optional[str] = None  # ":sramecc+:xnack-"


@lean_dataclass
class CollectEnv:
    """The fields of PyTorch's ``collect_env`` report."""

    torch_version: Optional[str] = None
    debug: Optional[bool] = None
    cuda_build: Optional[str] = None  # torch.version.cuda
    hip_build: Optional[str] = None  # torch.version.hip ("ROCM used to build PyTorch")
    os: Optional[str] = None  # "Ubuntu 24.04.2 LTS (x86_64)"
    gcc: Optional[str] = None
    libc: Optional[str] = None
    python: Optional[str] = None  # "3.12.3"
    python_full: Optional[str] = None
    platform: Optional[str] = None
    kernel: Optional[str] = None  # from "Python platform"
    kernel_flavour: Optional[str] = None
    wsl: Optional[bool] = None
    arch: Optional[str] = None
    cuda_available: Optional[bool] = None
    gpus: List[CollectEnvGpu] = field(default_factory=list)
    hip_runtime: Optional[str] = None
    miopen: Optional[str] = None
    cpu_model: Optional[str] = None
    pip: Dict[str, str] = field(default_factory=dict)  # normalised name -> version
    conda: Dict[str, str] = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)  # e.g. the <frozen runpy> line
    raw: Dict[str, str] = field(default_factory=dict)  # every recognised key -> value

    @property
    def ok(self) -> bool:
        return bool(self.raw or self.pip or self.conda)


def norm_name(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def _value(v: Optional[str]) -> Optional[str]:
    if v is None:
        return None
    v = v.strip()
    return None if v.lower() in _NOT_AVAILABLE else v


def _bool(v: Optional[str]) -> Optional[bool]:
    if v is None:
        return None
    low = v.strip().lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    return None


def split_requirement(text: str) -> Optional[Tuple[str, str]]:
    """``torch==2.5.1+rocm6.2`` -> ("torch", "2.5.1+rocm6.2"); other forms give None."""
    m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*===?\s*([^\s;,#]+)", text)
    if not m:
        return None
    return norm_name(m.group(1)), m.group(2)


def _add_gpu(res: CollectEnv, part: str) -> None:
    part = re.sub(r"^GPU\s*\d+\s*:\s*", "", part.strip())
    part = re.sub(r"\s*\(UUID:[^)]*\)\s*$", "", part)
    if not part or part.lower() in _NOT_AVAILABLE:
        return
    gm = _GPU_GFX.match(part)
    if gm:
        res.gpus.append(CollectEnvGpu(gm.group("name").strip() or None, gm.group("gfx").lower(), gm.group("feat") or None))
    else:
        res.gpus.append(CollectEnvGpu(part, None, None))


_MARKERS = ("PyTorch version", "ROCM used to build", "CUDA used to build", "Collecting environment",
            "Is debug build", "Python platform", "GPU models and configuration", "HIP runtime version",
            "Versions of relevant libraries")


def looks_like(text: object) -> float:
    if not isinstance(text, str):
        return 0.0
    head = text[:32768] if len(text) > 32768 else text
    if not any(m in head for m in _MARKERS):
        return _library_list_chunk(head)
    ls = lines(text)
    if not ls:
        return 0.0
    hits = 0
    strong = 0
    for line in ls[:200]:
        m = _KEY_LINE.match(line.strip())
        if m and m.group("key") in _KEYS:
            hits += 1
            if m.group("key") in ("PyTorch version", "ROCM used to build PyTorch", "CUDA used to build PyTorch",
                                  "Is debug build", "Python platform", "GPU models and configuration"):
                strong += 1
    if any(l.startswith("Collecting environment information") for l in ls[:5]):
        strong += 2
    if strong >= 2 and hits >= 3:
        return 0.97
    if not hits and any(l.startswith("Versions of relevant libraries") for l in ls[:5]):
        # only the report's last part was pasted (or kept): its [pip3] / [conda] lines
        body = [l.strip() for l in ls[:200] if l.strip()]
        libs = sum(1 for l in body if l.startswith(("[pip3]", "[conda]")) and _PIP_LINE.match(l))
        return 0.7 if libs >= 2 and libs >= (len(body) - 1) * 0.8 else 0.0
    if strong >= 1 and hits >= 2:
        return 0.8
    if hits >= 3:
        return 0.5
    return 0.0


def _library_list_chunk(head: str) -> float:
    """A paste that opens inside the report's library list: its "Versions of relevant libraries"
    header left above the paste (or outside an index's chunk), so it starts with three or more
    ``[pip3] name==version`` / ``[conda] ...`` lines.  collect_env (torch/utils/collect_env.py
    get_pip_packages / get_conda_packages, and vLLM's vllm/collect_env.py, which adds its "vLLM Info"
    section below the list) is the only printer of those prefixes; pip's own listings have none."""
    run = 0
    for line in head.split("\n", 40)[:40]:
        s = line.strip()
        if not s:
            if run:
                break
            continue
        if _PIP_LINE.match(s):
            run += 1
            continue
        break
    return 0.75 if run >= 3 else 0.0


@functools.lru_cache(maxsize=32)
def parse_cached(text: str) -> CollectEnv:
    """:func:`parse`, remembered: several probes read the same report (treat the result as read-only)."""
    return parse(text)


def parse(text: object) -> CollectEnv:
    res = CollectEnv()
    in_cpu = False
    last_attr = None
    for raw in lines(text):
        line = raw.rstrip()
        s = line.strip()
        if not s:
            in_cpu = False
            continue
        if s.startswith("Collecting environment information") and "PyTorch version:" in s:
            s = s[s.index("PyTorch version:"):]  # the first key glued to the padded banner (a pasted terminal)
        if s.startswith("<frozen ") or "RuntimeWarning" in s[:120]:
            res.warnings.append(s)
            continue
        pm = _PIP_LINE.match(s)
        if pm:
            rest = pm.group("rest").strip()
            if pm.group("tool") == "conda":
                toks = rest.split()
                if len(toks) >= 2 and not rest.lower().startswith("could not collect"):
                    res.conda[norm_name(toks[0])] = toks[1]
            else:
                req = split_requirement(rest)
                if req:
                    res.pip[req[0]] = req[1]
            continue
        if s == "CPU:":
            in_cpu = True
            continue
        if in_cpu:
            cm = re.match(r"^Model name\s*:\s*(.+)$", s)
            if cm and res.cpu_model is None:
                res.cpu_model = cm.group(1).strip()
            if s.startswith("Versions of relevant libraries"):
                in_cpu = False
            continue
        gl = re.match(r"^GPU\s*\d+\s*:\s*(.+)$", s)
        if gl and last_attr == "gpu_models":
            _add_gpu(res, gl.group(1))
            continue
        m = _KEY_LINE.match(s)
        if not m:
            continue
        key = m.group("key").strip()
        attr = _KEYS.get(key)
        if attr is None:
            continue
        last_attr = attr
        value = m.group("value")
        res.raw.setdefault(key, value.strip())
        if attr == "torch_version":
            res.torch_version = _value(value)
        elif attr == "debug":
            res.debug = _bool(value)
        elif attr == "cuda_build":
            res.cuda_build = _value(value)
        elif attr == "hip_build":
            res.hip_build = _value(value)
        elif attr == "os":
            res.os = _value(value)
            am = re.search(r"\((" + "|".join(ARCHES) + r")\)\s*$", value or "")
            if am and res.arch is None:
                res.arch = am.group(1)
            # some reports put the kernel on the OS line ("... Linux-6.8.0-45-generic-x86_64-with-glibc2.39")
            km = re.search(r"Linux-(" + RELEASE_RE + r")-(?:" + "|".join(ARCHES) + r")\b", value or "")
            if km and res.kernel is None:
                res.kernel = km.group(1)
        elif attr == "gcc":
            res.gcc = _value(value)
        elif attr == "libc":
            res.libc = _value(value)
        elif attr == "python":
            v = _value(value)
            res.python_full = v
            if v:
                vm = re.match(r"^(\d+\.\d+(?:\.\d+)?)", v)
                res.python = vm.group(1) if vm else None
        elif attr == "platform":
            v = _value(value)
            res.platform = v
            pm2 = _PLATFORM.match(v or "")
            if pm2:
                res.kernel = pm2.group("rel")
                res.arch = pm2.group("arch")
        elif attr == "cuda_available":
            res.cuda_available = _bool(value)
        elif attr == "gpu_models":
            v = _value(value)
            if v:
                for part in re.split(r"\s*;\s*", v):
                    _add_gpu(res, part)
        elif attr == "hip_runtime":
            res.hip_runtime = _value(value)
        elif attr == "miopen":
            res.miopen = _value(value)
    res.kernel_flavour = flavour(res.kernel)
    res.wsl = is_wsl(res.kernel)
    return res
