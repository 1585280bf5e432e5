"""WSL markers in pasted text, and which ROCm-on-WSL user space they show.

ROCm reaches the GPU under WSL 2 through the paravirtual node ``/dev/dxg`` and Microsoft's DXCore
library in ``/usr/lib/wsl/lib``, never through ``/dev/kfd``.  AMD shipped two user spaces for it:

* ROCm 6.x (6.1.3 on) and 7.0/7.1: ``amdgpu-install --usecase=wsl,rocm --no-dkms`` installs
  ``hsa-runtime-rocr4wsl-amdgpu``, a WSL build of the HSA runtime whose thunk is
  ``sources/wsl/libhsakmt/src/thunk_proxy`` (source ids ``amd-wsl``, ``wsl-first-release``);
* ROCm 7.2 on: ``librocdxg`` loaded by the ordinary runtime when ``HSA_ENABLE_DXG_DETECTION=1``
  (``rocdxg-roct`` / ``rocdxg-amd-smi-lib`` packages for 10.0) (source id ``librocdxg-readme``).

A package named in an apt *error* ("Unable to locate package hsa-runtime-rocr4wsl-amdgpu") is not
installed: only package-list rows (dpkg ``ii``, ``apt list`` ``[installed]``, rpm/dnf rows) and
the runtime's own messages count.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple

from ._core_text import lazy

ROCR4WSL = "rocr4wsl"  # the 6.x / 7.0-7.1 WSL runtime package
LIBROCDXG = "librocdxg"  # the 7.2+ DXG bridge

GENERATION_SOURCES = {ROCR4WSL: ("amd-wsl", "wsl-first-release"), LIBROCDXG: ("librocdxg-readme",)}

# a WSL kernel release, the DXG node in a listing, DXCore libraries, the DXG switch
_WSL_MARK = lazy(r"\b\d+\.\d+\.\d+[.\d]*-microsoft-standard-WSL2?\b"
                 r"|^.*\s/dev/dxg\s*$"
                 r"|/usr/lib/wsl/lib\b"
                 r"|\blibdxcore\.so\b"
                 r"|\bHSA_ENABLE_DXG_DETECTION\b"
                 r"|^[ \t]*WSL environment detected\.", re.M)

# installed-package rows: dpkg -l ("ii  name  ver"), apt list ("name/noble,now ver amd64 [installed]"),
# rpm -qa / dnf list ("name-ver.el9.x86_64", "name.x86_64  ver  @amdgpu")
_PKG_ROW = r"(?:^ii\s+%(n)s(?::\w+)?\s+\S+|^%(n)s/\S+\s+\S+\s+\S+\s+\[installed[^\]]*\]|^%(n)s[-.][\w.+~-]*\s+\S+\s+@\S+|^%(n)s-\d[\w.+~-]*\.x86_64\s*$)"
_ROCR4WSL_ROW = lazy(_PKG_ROW % {"n": r"hsa-runtime-rocr4wsl-amdgpu"}, re.M)
_ROCDXG_ROW = lazy(_PKG_ROW % {"n": r"(?:librocdxg|rocdxg-roct|rocdxg-amd-smi-lib)"}, re.M)
# the 6.x WSL runtime's thunk names its own source path in assertions and logs
_THUNK_PROXY = lazy(r"sources/wsl/libhsakmt/src/thunk_proxy\b")
# librocdxg at work: the switch (only ROCr 7.1+ with librocdxg reads it: set, exported or printed),
# the library loaded, listed or built
_ROCDXG_USE = lazy(r"^\s*(?:export\s+)?HSA_ENABLE_DXG_DETECTION=1\b|\blibrocdxg(?:\.so(?:\.\d+)*)?\b"
                   r"|\bHSA_ENABLE_DXG_DETECTION\b", re.M)


@dataclass(frozen=True)
class WslUserspace:
    generation: str  # ROCR4WSL or LIBROCDXG
    evidence: str  # the line that shows it
    where: str  # paste name
    sources: Tuple[str, ...]  # catalog source ids of what the generation is


def wsl_mark(text: str) -> Optional[str]:
    """The first line of ``text`` that shows WSL (kernel, /dev/dxg, /usr/lib/wsl/lib, DXCore, the DXG
    switch, rocminfo's WSL banner), or None."""
    if not text or not any(k in text for k in ("microsoft-standard", "/dev/dxg", "/usr/lib/wsl", "libdxcore",
                                               "DXG_DETECTION", "WSL environment")):
        return None
    m = _WSL_MARK.search(text)
    return m.group(0).strip()[:100] if m else None


def _hit(text: str) -> Optional[Tuple[str, str]]:
    if "rocdxg" in text or "DXG_DETECTION" in text:
        for rx in (_ROCDXG_ROW, _ROCDXG_USE):
            m = rx.search(text)
            if m:
                return LIBROCDXG, m.group(0).strip()[:100]
    if "rocr4wsl" in text:
        m = _ROCR4WSL_ROW.search(text)
        if m:
            return ROCR4WSL, m.group(0).strip()[:100]
    if "thunk_proxy" in text:
        m = _THUNK_PROXY.search(text)
        if m:
            return ROCR4WSL, m.group(0)
    return None


def userspace(pastes: Iterable[Tuple[str, str]]) -> Optional[WslUserspace]:
    """The ROCm-on-WSL user space the pastes show; librocdxg wins when both appear (it is the newer one
    and what the runtime loads when the switch is set)."""
    found: List[WslUserspace] = []
    for name, text in pastes:
        if not isinstance(text, str):
            continue
        hit = _hit(text)
        if hit:
            found.append(WslUserspace(hit[0], hit[1], name, GENERATION_SOURCES[hit[0]]))
    for gen in (LIBROCDXG, ROCR4WSL):
        for f in found:
            if f.generation == gen:
                return f
    return None
