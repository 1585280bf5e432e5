"""Stand-in wheels and a PEP 503 index laid out like download.pytorch.org.

Wheels are written by hand (zip + METADATA + WHEEL + RECORD with sha256 digests), no setuptools.
They are pure ``py3-none-any`` so they install into any test interpreter; the real ones are
``cp3XX-cp3XX-linux_x86_64``.  ``torch/version.py`` has the layout of the file PyTorch's build
generates (``tools/generate_torch_version.py``), with real values: ``git_version`` of the v2.5.1
and v2.4.1 tags, ``hip`` as collect_env reports for 2.5.1+rocm6.2 and 2.4.1+rocm6.1.  Dependencies
follow the real pins (facts §3.2: torch 2.5.x -> pytorch-triton-rocm==3.1.0, 2.4.x -> ==3.0.0).

Layout::

    /whl/rocm6.2/index.html, /whl/rocm6.2/<project>/index.html, /whl/rocm6.2/<file>.whl
    /whl/rocm6.1/...
    /simple/...        a PyPI stand-in (plain ``triton`` 3.0.0)
    /rocm/whl-multi-arch/...   AMD's Core SDK 7.14 index (repo.amd.com/rocm/whl-multi-arch): torch,
                       torchvision with ``device-gfxNNNN`` extras, ``amd-torch-device-gfxNNNN``, the
                       ``rocm`` selector with ``libraries``/``device-gfxNNNN`` extras and the
                       ``rocm-sdk-*`` wheels (rocm-2026.md 1.6, 2.2; TheRock python_packaging.md)
"""
from __future__ import annotations

import base64
import hashlib
import html
import os
import re
import zipfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional
from urllib.parse import quote


@dataclass
class WheelSpec:
    name: str  # distribution name as published: torch, pytorch-triton-rocm
    version: str
    files: Dict[str, str] = field(default_factory=dict)  # path inside site-packages -> content
    requires: List[str] = field(default_factory=list)
    summary: str = "stand-in for rocm-wizard's integration tests"
    extras: List[str] = field(default_factory=list)  # Provides-Extra

    @property
    def norm(self) -> str:
        return re.sub(r"[-_.]+", "_", self.name).lower()

    @property
    def project(self) -> str:
        """PEP 503 normalised project name (index directory)."""
        return re.sub(r"[-_.]+", "-", self.name).lower()

    @property
    def filename(self) -> str:
        return f"{self.norm}-{self.version}-py3-none-any.whl"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(spec: WheelSpec, out_dir: str) -> str:
    os.makedirs(out_dir, exist_ok=True)
    distinfo = f"{spec.norm}-{spec.version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {spec.name}", f"Version: {spec.version}",
            f"Summary: {spec.summary}", "License: BSD-3-Clause"]
    meta += [f"Provides-Extra: {e}" for e in spec.extras]
    meta += [f"Requires-Dist: {r}" for r in spec.requires]
    entries = dict(spec.files)
    entries[f"{distinfo}/METADATA"] = "\n".join(meta) + "\n"
    entries[f"{distinfo}/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: rocm-wizard-tests\n"
                                    "Root-Is-Purelib: true\nTag: py3-none-any\n")
    entries[f"{distinfo}/top_level.txt"] = "".join(
        sorted({p.split("/")[0] + "\n" for p in spec.files if "/" in p}))
    record_lines = []
    path = os.path.join(out_dir, spec.filename)
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(entries):
            data = entries[name].encode("utf-8")
            zf.writestr(zipfile.ZipInfo(name, date_time=(2024, 10, 29, 0, 0, 0)), data)
            record_lines.append(f"{name},{_digest(data)},{len(data)}")
        record_lines.append(f"{distinfo}/RECORD,,")
        zf.writestr(zipfile.ZipInfo(f"{distinfo}/RECORD", date_time=(2024, 10, 29, 0, 0, 0)),
                    "\n".join(record_lines) + "\n")
    os.replace(tmp, path)
    return path


TORCH_VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '{version}'
debug = False
cuda: Optional[str] = None
git_version = '{git}'
hip: Optional[str] = '{hip}'
"""

TORCH_INIT = '''"""Stand-in torch package (rocm-wizard integration tests): no tensors, no GPU."""
from .version import __version__  # noqa: F401
from . import version  # noqa: F401

STAND_IN = True
'''


@dataclass(frozen=True)
class TorchBuild:
    index: str  # rocm6.2
    torch: str
    vision: str
    audio: str
    triton: str
    git: str
    hip: str

    @property
    def label(self) -> str:
        return "+" + self.index


TORCH_251 = TorchBuild("rocm6.2", "2.5.1", "0.20.1", "2.5.1", "3.1.0",
                       "a8d6afb511a69687bbb2b7e88a3cf67917e1697e", "6.2.41133-dd7f95766")
TORCH_241 = TorchBuild("rocm6.1", "2.4.1", "0.19.1", "2.4.1", "3.0.0",
                       "ee1b6804381c57161c477caa380a840a84167676", "6.1.40091-a8dbc0c19")
TORCH_BUILDS = (TORCH_251, TORCH_241)

# a plain (CUDA-world) triton from PyPI: same top-level "triton" directory as pytorch-triton-rocm
PLAIN_TRITON = "3.0.0"


def triton_files(version: str, flavour: str) -> Dict[str, str]:
    return {
        "triton/__init__.py": f'"""stand-in triton ({flavour})"""\n__version__ = "{version}"\nfrom . import language  # noqa\n',
        "triton/language/__init__.py": '"""stand-in triton.language"""\ndtype = type("dtype", (), {})\n',
    }


def torch_wheels(b: TorchBuild) -> List[WheelSpec]:
    tv = b.torch + b.label
    return [
        WheelSpec("torch", tv, files={
            "torch/__init__.py": TORCH_INIT,
            "torch/version.py": TORCH_VERSION_PY.format(version=tv, git=b.git, hip=b.hip),
            # download.pytorch.org's ROCm wheels bundle their own HSA runtime in torch/lib (AMD's WSL
            # steps remove it): a stand-in file of the same name
            "torch/lib/libhsa-runtime64.so": "stand-in HSA runtime of the wheel\n",
        }, requires=[f"pytorch-triton-rocm=={b.triton}; platform_system == \"Linux\" and platform_machine == \"x86_64\""]),
        WheelSpec("torchvision", b.vision + b.label, files={
            "torchvision/__init__.py": f'__version__ = "{b.vision + b.label}"\n',
            "torchvision/version.py": f"__version__ = '{b.vision + b.label}'\ngit_version = 'stand-in'\ncuda = None\n",
        }, requires=[f"torch=={tv}"]),
        WheelSpec("torchaudio", b.audio + b.label, files={
            "torchaudio/__init__.py": f'__version__ = "{b.audio + b.label}"\n',
            "torchaudio/version.py": f"__version__ = '{b.audio + b.label}'\ngit_version = 'stand-in'\n",
        }, requires=[f"torch=={tv}"]),
        WheelSpec("pytorch-triton-rocm", b.triton, files=triton_files(b.triton, "pytorch-triton-rocm")),
    ]


def _write_index(index_dir: str, wheels: Dict[str, List[str]]) -> None:
    """PEP 503 pages: ``index_dir/index.html`` and ``index_dir/<project>/index.html``; the wheel
    files themselves lie in ``index_dir`` (links go ``../<file>``, as on download.pytorch.org)."""
    os.makedirs(index_dir, exist_ok=True)
    top = ["<!DOCTYPE html>", "<html><body>"]
    for project in sorted(wheels):
        top.append(f'<a href="{project}/">{html.escape(project)}</a><br/>')
        pdir = os.path.join(index_dir, project)
        os.makedirs(pdir, exist_ok=True)
        lines = ["<!DOCTYPE html>", f"<html><head><title>Links for {project}</title></head><body>",
                 f"<h1>Links for {project}</h1>"]
        for fname in sorted(wheels[project]):
            with open(os.path.join(index_dir, fname), "rb") as fh:
                sha = hashlib.sha256(fh.read()).hexdigest()
            lines.append(f'<a href="../{quote(fname)}#sha256={sha}">{html.escape(fname)}</a><br/>')
        lines.append("</body></html>")
        with open(os.path.join(pdir, "index.html"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    top.append("</body></html>")
    with open(os.path.join(index_dir, "index.html"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(top) + "\n")


# AMD's 7.14 index: the pins of its PyTorch page (2.12.0 / 0.27.0 / torchaudio 2.12.0, all +rocm7.14.0)
AMD_LABEL = "+rocm7.14.0"
AMD_ROCM = "7.14.0"
AMD_GFX = ("gfx1100", "gfx1031")


def amd_wheels() -> List[WheelSpec]:
    tv = "2.12.0" + AMD_LABEL
    dev = [f"device-{g}" for g in AMD_GFX]
    out = [
        WheelSpec("torch", tv, files={
            "torch/__init__.py": TORCH_INIT,
            "torch/version.py": TORCH_VERSION_PY.format(version=tv, git="stand-in", hip="7.13.0-stand-in"),
        }, extras=dev, requires=[f"rocm[libraries]=={AMD_ROCM}"] + [
            f'amd-torch-device-{g}=={tv}; extra == "device-{g}"' for g in AMD_GFX]),
        WheelSpec("torchvision", "0.27.0" + AMD_LABEL, files={
            "torchvision/__init__.py": f'__version__ = "0.27.0{AMD_LABEL}"\n'}, extras=dev,
            requires=[f"torch=={tv}"] + [f'torch[device-{g}]=={tv}; extra == "device-{g}"' for g in AMD_GFX]),
        WheelSpec("torchaudio", "2.12.0" + AMD_LABEL, files={
            "torchaudio/__init__.py": f'__version__ = "2.12.0{AMD_LABEL}"\n'}, requires=[f"torch=={tv}"]),
        WheelSpec("rocm", AMD_ROCM, files={"rocm_sdk/__init__.py": f'__version__ = "{AMD_ROCM}"\n'},
                  extras=["libraries"] + dev,
                  requires=[f"rocm-sdk-core=={AMD_ROCM}", f'rocm-sdk-libraries=={AMD_ROCM}; extra == "libraries"']
                  + [f'rocm-sdk-device-{g}=={AMD_ROCM}; extra == "device-{g}"' for g in AMD_GFX]),
        WheelSpec("rocm-sdk-core", AMD_ROCM, files={"_rocm_sdk_core/__init__.py": ""}),
        WheelSpec("rocm-sdk-libraries", AMD_ROCM, files={"_rocm_sdk_libraries/__init__.py": ""}),
    ]
    for g in AMD_GFX:
        out.append(WheelSpec(f"amd-torch-device-{g}", tv, files={f"_amd_torch_device_{g}/__init__.py": ""}))
        out.append(WheelSpec(f"rocm-sdk-device-{g}", AMD_ROCM, files={f"_rocm_sdk_device_{g}/{g}.kpack": g}))
    return out


def build_index(root: str, builds=TORCH_BUILDS) -> Dict[str, str]:
    """Build every index under ``root``; returns index name -> directory (relative URL path)."""
    out: Dict[str, str] = {}
    for b in builds:
        idx_dir = os.path.join(root, "whl", b.index)
        wheels: Dict[str, List[str]] = {}
        for spec in torch_wheels(b):
            build_wheel(spec, idx_dir)
            wheels.setdefault(spec.project, []).append(spec.filename)
        _write_index(idx_dir, wheels)
        out[b.index] = f"/whl/{b.index}"
    amd_dir = os.path.join(root, "rocm", "whl-multi-arch")
    amd: Dict[str, List[str]] = {}
    for spec in amd_wheels():
        build_wheel(spec, amd_dir)
        amd.setdefault(spec.project, []).append(spec.filename)
    _write_index(amd_dir, amd)
    out["amd-rocm7.14.0"] = "/rocm/whl-multi-arch"
    simple = os.path.join(root, "simple")
    plain = WheelSpec("triton", PLAIN_TRITON, files=triton_files(PLAIN_TRITON, "plain triton"))
    build_wheel(plain, simple)
    _write_index(simple, {"triton": [plain.filename]})
    out["pypi"] = "/simple"
    # PyPI's own torch, a CUDA build on x86_64 (no local label): what an app's requirement pulls in
    # over a ROCm torch (issue "Keep it ROCm": unslothai/unsloth#7275)
    cuda = os.path.join(root, "cuda", "simple")
    pypi_torch = WheelSpec("torch", "2.5.0", files={"torch/__init__.py": '__version__ = "2.5.0"\n'})
    build_wheel(pypi_torch, cuda)
    _write_index(cuda, {"torch": [pypi_torch.filename]})
    out["pypi-cuda"] = "/cuda/simple"
    return out


def read_version_py(site_packages: str) -> Optional[Dict[str, Optional[str]]]:
    """Values of ``torch/version.py`` read as text (never imported)."""
    path = os.path.join(site_packages, "torch", "version.py")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return None
    values: Dict[str, Optional[str]] = {}
    for m in re.finditer(r"^(\w+)(?:\s*:\s*[^=]+)?\s*=\s*(.+)$", text, re.M):
        raw = m.group(2).strip()
        values[m.group(1)] = None if raw == "None" else raw.strip("'\"")
    return values
