"""System builders for the doctor tests: one healthy Ubuntu box, and small edits of it."""
from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Optional

from rocm_wizard.model import (GPU, AccessInfo, AptPin, AptSource, DeviceNode, DockerInfo, OSInfo, RocmInfo,
                               RocmInstall, System, TorchEnv)

RADEON = "https://repo.radeon.com"


def gpu(gfx: Optional[str] = "gfx1100", name: str = "AMD Radeon RX 7900 XTX", device: str = "744c",
        kind: str = "dgpu", bdf: str = "0000:03:00.0", node: int = 1, segment: str = "radeon") -> GPU:
    g = GPU(vendor_id="1002", device_id=device, pci_id=f"1002:{device}", bdf=bdf, gfx_target=gfx, name=name,
            kind=kind, kfd_node=node, segment=segment, driver="amdgpu")
    if gfx:
        g.sources["gfx_target"] = "test:rocminfo"
    return g


def source(kind: str, release: str, file: str = "/etc/apt/sources.list.d/rocm.list", codename: str = "jammy") -> AptSource:
    path = {"rocm": f"rocm/apt/{release}", "amdgpu": f"amdgpu/{release}/ubuntu", "graphics": f"graphics/{release}/ubuntu"}[kind]
    uri = f"{RADEON}/{path}"
    return AptSource(file=file, line=f"deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] {uri} {codename} main",
                     uri=uri, suite=codename, components=["main"], signed_by="/etc/apt/keyrings/rocm.gpg",
                     radeon=True, repo_kind=kind, release=release)


def torch_env(version: str = "2.8.0+rocm6.4", path: str = "/home/alice/venv", triton=None,
              required: Optional[str] = "pytorch-triton-rocm==3.4.0", build: Optional[str] = "rocm") -> TorchEnv:
    return TorchEnv(path=path, site_packages=f"{path}/lib/python3.10/site-packages", python="3.10.12", active=True,
                    version=version, build=build, hip="6.4.43483" if build == "rocm" else None,
                    torchvision="0.23.0+rocm6.4", torchaudio="2.8.0+rocm6.4",
                    triton=dict(triton) if triton is not None else {"pytorch-triton-rocm": "3.4.0"},
                    triton_required=required)


def healthy() -> System:
    """Ubuntu 22.04 (HWE 6.8), RX 7900 XTX, ROCm 6.4.4 from AMD's repo, pinned, torch 2.8.0+rocm6.4."""
    sysm = System(origin="snapshot")
    sysm.os = OSInfo(id="ubuntu", version_id="22.04", codename="jammy", pretty_name="Ubuntu 22.04.5 LTS",
                     kernel="6.8.0-45-generic", kernel_flavour="generic", hwe=True, wsl=False, arch="x86_64",
                     python="3.10.12")
    sysm.gpus = [gpu()]
    sysm.rocm = RocmInfo(
        version="6.4.4",
        installs=[RocmInstall(path="/opt/rocm-6.4.4", version="6.4.4")],
        opt_rocm_target="/opt/rocm-6.4.4",
        packages={"rocm-core": "6.4.4.60404-129~22.04", "rocm": "6.4.4.60404-129~22.04",
                  "amdgpu-dkms": "1:6.12.12.60404-2202139.22.04"},
        apt_sources=[source("rocm", "6.4.4"), source("amdgpu", "6.4.4", "/etc/apt/sources.list.d/amdgpu.list")],
        apt_pins=[AptPin(file="/etc/apt/preferences.d/rocm-pin-600", package="*", pin="release o=repo.radeon.com",
                         priority=600)],
        distro_offers_rocm=True, amdgpu_loaded=True, amdgpu_version="6.12.12",
        amdgpu_dkms="amdgpu/6.12.12-2202139.22.04, 6.8.0-45-generic, x86_64: installed",
        dpkg_audit_clean=True,
    )
    sysm.torch = [torch_env()]
    sysm.docker = DockerInfo(client="27.3.1", daemon=True, user_allowed=True)
    sysm.access = AccessInfo(user="alice", groups=["alice", "render", "video", "docker"], in_render=True, in_video=True,
                             kfd=DeviceNode(path="/dev/kfd", exists=True, mode="crw-rw----", group="render",
                                            accessible=True),
                             env={"PATH": "/usr/local/bin:/usr/bin:/bin:/opt/rocm/bin"}, path_has_rocm_bin=True)
    return sysm


def edit(fn) -> System:
    sysm = healthy()
    fn(sysm)
    return sysm


def clone(sysm: System) -> System:
    return copy.deepcopy(sysm)
