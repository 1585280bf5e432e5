"""How much a system description says, so that ``doctor`` claims no more than it saw.

``No known problem`` is only a finding about what was looked at: a snapshot of one ``uname -a`` line
says nothing about the GPU.  :func:`described` lists what a System tells (GPUs, the OS, ROCm,
PyTorch, known errors); an empty list means the input described no system at all (an unrelated
file), and :func:`missing` names the parts a health verdict needs that are absent.
"""
from __future__ import annotations

from typing import Any, List


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def described(system: Any) -> List[str]:
    """What the system description tells, in words; empty when it tells nothing."""
    out: List[str] = []
    gpus = [g for g in (getattr(system, "gpus", None) or []) if g is not None]
    if gpus:
        out.append("%d GPU(s)" % len(gpus))
    os_info = getattr(system, "os", None)
    if os_info is not None and (_s(getattr(os_info, "id", None)) or _s(getattr(os_info, "kernel", None))):
        out.append("the operating system")
    rocm = getattr(system, "rocm", None)
    if rocm is not None and (_s(getattr(rocm, "version", None)) or getattr(rocm, "packages", None)
                             or getattr(rocm, "installs", None) or getattr(rocm, "amdgpu_loaded", None) is not None
                             or getattr(rocm, "apt_sources", None) or _s(getattr(rocm, "amdgpu_dkms", None))):
        out.append("the ROCm installation or driver")
    if getattr(system, "torch", None):
        out.append("PyTorch")
    if getattr(system, "errors", None):
        out.append("%d known error line(s)" % len(system.errors))
    return out


def missing(system: Any) -> List[str]:
    """Parts a 'no known problem' verdict needs that the description lacks."""
    out = []
    if not [g for g in (getattr(system, "gpus", None) or []) if getattr(g, "is_amd", False)]:
        out.append("which AMD GPU it is")
    rocm = getattr(system, "rocm", None)
    has_rocm = rocm is not None and (_s(getattr(rocm, "version", None)) or getattr(rocm, "packages", None)
                                     or getattr(rocm, "installs", None))
    if not has_rocm and not getattr(system, "torch", None):
        out.append("the ROCm release or the PyTorch build")
    return out


# What settles each missing part: the two or three commands whose output answers it (the GPU:
# the PCI listing and the runtime's agents; the ROCm side: the release file, the packages and the
# torch build).  Printed whole, one per line, for the user to run and add to the snapshot.
ASK = {
    "which AMD GPU it is": [
        "lspci -nn -d 1002:",
        "rocminfo | grep -E 'Marketing Name|Name: +gfx'",
    ],
    "the ROCm release or the PyTorch build": [
        "cat /opt/rocm/.info/version; dpkg -l 'rocm*' 'amdgpu*' 2>/dev/null | grep ^ii",
        "python -m torch.utils.collect_env",
    ],
}


def ask(system: Any) -> List[str]:
    """The commands whose output would settle what :func:`missing` names (none when nothing is)."""
    from . import windows_next

    if windows_next.windows_host(system):  # PowerShell commands: no lspci, rocminfo or /opt/rocm there
        return windows_next.ask(missing(system))
    out: List[str] = []
    for part in missing(system):
        for cmd in ASK.get(part, []):
            if cmd not in out:
                out.append(cmd)
    return out


def describes_nothing(path: str) -> str:
    """The refusal of a snapshot that describes no system (``detect`` and ``doctor`` alike: exit 1,
    exitcodes.INPUT)."""
    return (f"{path} describes no system: nothing in it is the output of a tool rocm-wizard reads "
            f"(rocminfo, lspci, amd-smi, dmesg, os-release, pip freeze, ...) or a known error message")


__all__ = ["ASK", "ask", "described", "describes_nothing", "missing"]
