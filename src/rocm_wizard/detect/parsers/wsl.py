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
from ...model import lean_dataclass
from typing import Iterable, List, Optional, Tuple

from ._core_text import anchored_finditer, lazy, lowered

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


@lean_dataclass(frozen=True)
class WslUserspace:
    """The ROCm-on-WSL user space a paste shows, and the line that shows it."""

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


# every match of _ROCDXG_USE holds one of these; before it, only what the first branch allows
# (white space and the word "export")
_USE_NEEDLES = ("HSA_ENABLE_DXG_DETECTION", "librocdxg")
_USE_BEFORE = frozenset("export")


def _use_search(text: str):
    """``_ROCDXG_USE.search(text)``, started where its first match can begin: at the first of its
    needles, less the white space and ``export`` the first branch may take before it (a match
    that holds a later needle starts after that one, whose letters no branch lets it cross).  The
    pattern's ``^`` and ``\\b`` still see the text before the start (``search(text, pos)``)."""
    firsts = [i for i in (text.find(n) for n in _USE_NEEDLES) if i >= 0]
    if not firsts:
        return None
    i = min(firsts)
    while i > 0 and (text[i - 1] in _USE_BEFORE or text[i - 1].isspace()):
        i -= 1
    return _ROCDXG_USE.search(text, i)


def _row_search(rx, text: str, needle: str):
    r"""``rx.search(text)`` for an installed-package row pattern (:data:`_PKG_ROW`) whose package names
    each hold ``needle`` once (on one line, as a name has no line end), tried only where such a row
    can start: the line of each place ``needle`` is, and the ``ii`` before it where only blanks (new
    lines among them: ``\s+``) come between (dpkg -l's first column); each line once.  A row that names a later place
    starts after an earlier place (only ``ii`` and blanks come before its name), so the first row
    found this way is the first in the text.  (``re.M``: ``^`` sees the text before the start.)"""
    tried = set()
    i = text.find(needle)
    while i >= 0:
        line = text.rfind("\n", 0, i) + 1
        j = line
        while j > 0 and text[j - 1].isspace():
            j -= 1
        starts = (text.rfind("\n", 0, j - 2) + 1, line) if j >= 2 and text[j - 2:j] == "ii" else (line,)
        for start in starts:
            if start not in tried:
                tried.add(start)
                m = rx.match(text, start)
                if m:
                    return m
        # (a later place on the same line has the same starts: the next line's places, so that no
        # line is looked back over twice -- linear however many places a line holds)
        end = text.find("\n", i)
        if end < 0:
            break
        i = text.find(needle, end)
    return None


def _rocdxg_row(text: str):
    return _row_search(_ROCDXG_ROW, text, "rocdxg")


# _hit searches the package rows with _row_search (False: the patterns' plain search, the reference
# tests/detect/test_wsl_row_search.py compares it with)
_ROW_SEARCH = True


def _hit(text: str) -> Optional[Tuple[str, str]]:
    if "rocdxg" in text or "DXG_DETECTION" in text:
        for search in (_rocdxg_row if _ROW_SEARCH else _ROCDXG_ROW.search, _use_search):
            m = search(text)
            if m:
                return LIBROCDXG, m.group(0).strip()[:100]
    if "rocr4wsl" in text:
        m = _row_search(_ROCR4WSL_ROW, text, "rocr4wsl") if _ROW_SEARCH else _ROCR4WSL_ROW.search(text)
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


# ------------------------------------------------------------------ the Windows side, as pastes tell it
# Windows 11 is build 22000 and later; "10.0.NNNNN" is the kernel version both releases print
WIN11_FIRST_BUILD = 22000
_WIN_BUILD = lazy(r"(?:\b10\.0\.|\bbuild\s+)(\d{5})\b", re.I)
_WIN_RELEASE = lazy(r"\bwin(?:dows)?\s*(1[01])(?![\d.])", re.I)
_BARE_BUILD = lazy(r"^\s*10\.0\.(\d{5})(?:\.\d+)?\s*$")
# "Adrenalin 26.5.2", "Adrenalin Edition 25.3.1", "Adrenalin driver 26.3.1", "driver version 25.3.1",
# "GPU drivers are 24.12.1" (Adrenalin's YY.M.N numbering; PRO Edition's 24.20.36 is another scheme)
_ADRENALIN = lazy(r"\badrenalin(?:\s+edition)?[\s\u2122:]*(?:(?:driver|software|version|v)\s*)*(2\d\.\d{1,2}\.\d{1,2})\b"
                  r"|\b(?:gpu\s+|windows\s+|amd\s+)?drivers?\s+(?:version\s+|is\s+|are\s+|:\s*)+v?(2\d\.\d{1,2}\.\d{1,2})\b", re.I)
# the DXG switch shown set: an export or assignment, or printenv's answer
_SWITCH_SET = lazy(r"^\s*(?:export\s+)?HSA_ENABLE_DXG_DETECTION=1\b"
                   r"|HSA_ENABLE_DXG_DETECTION\b[^\n]{0,40}\b(?:prints|is|shows|returns|=)\s*[\"'`]?1\b", re.M | re.I)
# a ROCm release named by the repositories an apt run or an installer URL shows
_REPO_RELEASE = lazy(r"repo\.radeon\.com/(?:rocm/apt|amdgpu-install)/(\d+\.\d+(?:\.\d+)?)(?=/|[ \t])")
# a listing of torch/lib that shows the wheel's own HSA runtime
_TORCH_HSA = lazy(r"torch/lib/(libhsa-runtime64\.so(?:\.\d+)*)\b|^(?:[-lrwx]{10}\s.*\s)?(libhsa-runtime64\.so(?:\.\d+)*)\s*$", re.M)


@lean_dataclass(frozen=True)
class WindowsHost:
    """The Windows host under WSL that a paste names."""

    release: Optional[str]  # "10" or "11"
    build: Optional[str]  # "19045"
    evidence: str


def _vkey(v: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def windows_host(text: str) -> Optional[WindowsHost]:
    """The Windows release (and build) under WSL that a paste names: "Windows 10 Pro 22H2 (OS Build
    19045.6456)", "Running in WSL2 on Windows 10.0.19045", "OS Version 10.0.26100", "Windows 11 25H2".
    A Windows SDK path ("Windows Kits/10/Include/10.0.26100.0") names the SDK, not the host."""
    if not text or not any(k in text for k in ("Windows", "windows", "Win1", "win1", "OS Build", "OS Version")):
        return None
    prev = ""
    explicit: Optional[Tuple[str, str]] = None
    for line in text.splitlines()[:4000]:
        low = line.lower()
        if "kits" in low or "sdk" in low:
            prev = low
            continue
        hinted = any(k in low for k in ("windows", "os build", "os version", "winver", "win10", "win11"))
        if hinted:
            m = _WIN_BUILD.search(line)
            if m:
                b = m.group(1)
                return WindowsHost("11" if int(b) >= WIN11_FIRST_BUILD else "10", b, line.strip()[:100])
            r = _WIN_RELEASE.search(line)
            if r and explicit is None:
                explicit = (r.group(1), line.strip()[:100])
        elif prev.strip(" #*:") in ("windows", "host windows", "windows host"):
            m = _BARE_BUILD.match(line)
            if m:
                b = m.group(1)
                return WindowsHost("11" if int(b) >= WIN11_FIRST_BUILD else "10", b, (prev.strip() + " " + line.strip())[:100])
        if line.strip():
            prev = low
    if explicit:
        return WindowsHost(explicit[0], None, explicit[1])
    return None


def adrenalin(text: str) -> Optional[Tuple[str, str]]:
    """(the newest Adrenalin version a paste names, its line), or None.  Several are named when a user
    tried more than one driver: the newest is the one a too-old verdict must hold for."""
    if not text:
        return None
    low = lowered(text)
    if "adrenalin" not in low and "driver" not in low:
        return None
    best: Optional[Tuple[str, str]] = None
    # (each match holds "adrenalin" or "driver", at most one word after its start: tried only there)
    for m in anchored_finditer(_ADRENALIN, text, ("adrenalin", "driver"), words_before=1):
        v = m.group(1) or m.group(2)
        if best is None or _vkey(v) > _vkey(best[0]):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            best = (v, text[start:end if end >= 0 else len(text)].strip()[:100])
    return best


def dxg_switch_set(text: str) -> Optional[str]:
    """The line that shows HSA_ENABLE_DXG_DETECTION set to 1, or None."""
    if not text or "HSA_ENABLE_DXG_DETECTION" not in text:
        return None
    m = next(anchored_finditer(_SWITCH_SET, text, ("hsa_enable_dxg_detection",), words_before=1), None)
    return m.group(0).strip()[:100] if m else None


def repo_release(text: str) -> Optional[str]:
    """The ROCm release an apt run's repository lines or an amdgpu-install URL name (the newest)."""
    if not text or "repo.radeon.com" not in text:
        return None
    found = {m.group(1) for m in _REPO_RELEASE.finditer(text)}
    return max(found, key=_vkey) if found else None


def torch_bundled_hsa(text: str) -> Optional[str]:
    """The line of a torch/lib listing that shows the wheel's own libhsa-runtime64, or None."""
    if not text or "libhsa-runtime64" not in text or "torch" not in text:
        return None
    m = next(anchored_finditer(_TORCH_HSA, text, ("libhsa-runtime64",), lines_before=2), None)
    return m.group(0).strip()[:100] if m else None


# a user saying the system runs under WSL: "in WSL2", "on WSL 2", "under WSL", "WSL2 Ubuntu"
# (s15-heldcz) also an issue form's system field, "System: WSL Ubuntu 22.04", "OS: WSL2", and "WSL Ubuntu" without the 2
_WSL_SAID = lazy(r"\b(?:in|on|under|using|via|inside|with)\s+(?:a\s+|the\s+)?WSL\s?2?\b|\bWSL\s?2?\s+(?:Ubuntu|Debian|environment|distro)\b"
                 r"|\b(?:System|OS|Platform|Environment)\s*:\s*WSL\s?2?\b")


def wsl_said(text: str) -> Optional[str]:
    """The line where a paste's author says the system runs under WSL ("trying ComfyUI in WSL2"), or
    None; a last resort when no output shows it."""
    if not text or "WSL" not in text:
        return None
    m = next(anchored_finditer(_WSL_SAID, text, ("WSL",), words_before=2), None)
    if not m:
        return None
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    return text[start:end if end >= 0 else len(text)].strip()[:100]
