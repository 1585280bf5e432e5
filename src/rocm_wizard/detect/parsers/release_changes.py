"""Two readers for the releases a regression hangs on (issue 28; ``catalog/regressions.py``):

* :func:`firmware_version`: the GPU firmware package's version from a package listing line
  (``dpkg -l``, ``apt policy``, ``rpm -q``/``rpm -qa``, ``dnf list``, ``pacman -Q``) or an issue form's
  field: ``linux-firmware``, Arch's ``linux-firmware-amdgpu``, Fedora's ``amd-gpu-firmware``, Ubuntu 26.04's ``linux-firmware-amd-graphics``, Debian's
  ``firmware-amd-graphics``, openSUSE's ``kernel-firmware-amdgpu``;
* :func:`firmware_blobs`: the firmware files' own versions amdgpu reports (debugfs
  ``amdgpu_firmware_info``: ``MES feature version: 1, firmware version: 0x00000083``);
* :func:`dkms_build`: the amdgpu DKMS build a DKMS, make.log or dpkg line names;
* :func:`changes`: what the user's prose says changed before the failure ("after updating
  linux-firmware", "works on 6.17, broken on 6.18", "downgrading the kernel to 6.12 fixed it"), as
  (component, direction, good, bad, sentence).  English; conservative: a bare version mention gives
  nothing, nor does a change whose component cannot be told.

Both are linear in the input: a literal pre-check on the lower-cased line before any regular
expression, lines cut to a bounded length, and only bounded repetitions in the patterns.
"""
from __future__ import annotations

import re
from typing import List, NamedTuple, Optional, Tuple

from ._core_text import lazy  # patterns compiled on first use: most texts never reach them

MAX_LINE = 600  # characters of a line looked at
MAX_CHANGES = 8
MAX_PROSE = 64 * 1024  # characters of a text looked at for prose (a user's sentences, not a log's megabytes)

MAX_CANDIDATES = 2000  # lines looked at per text


def _spans_with(low: str, needles) -> List[Tuple[int, int]]:
    """``(start, end)`` of the lines of the lower-cased text ``low`` that hold one of the literal
    ``needles`` (each line once, in order, at most MAX_CANDIDATES): ``str.find`` passes over the
    whole text, no loop over every line."""
    nl = b"\n" if isinstance(low, bytes) else "\n"
    starts = set()
    for needle in needles:
        i = low.find(needle)
        while i >= 0 and len(starts) < MAX_CANDIDATES:
            start = low.rfind(nl, 0, i) + 1
            starts.add(start)
            end = low.find(nl, i)
            if end < 0:
                break
            i = low.find(needle, end)
    out = []
    for start in sorted(starts):
        end = low.find(nl, start)
        out.append((start, end if end >= 0 else len(low)))
    return out


def _lines_with(low: str, needles) -> List[str]:
    return [low[a:b] for a, b in _spans_with(low, needles)]


# ------------------------------------------------------------------------------- firmware package
# AMD-specific packages first: where both are listed, theirs is the version that matters
FIRMWARE_PACKAGES = ("linux-firmware-amdgpu", "linux-firmware-amd-graphics", "amd-gpu-firmware", "firmware-amd-graphics", "kernel-firmware-amdgpu",
                     "linux-firmware")
_FW_LINE = lazy(
    r"^(?:[|*+-]\s*)?(?:[a-z]{2}\s+)?(?:\*\*|__|`)?"
    r"(?P<pkg>linux-firmware-amd-graphics|linux-firmware-amdgpu|amd-gpu-firmware|firmware-amd-graphics|kernel-firmware-amdgpu|linux-firmware)"
    r"(?:[.:]?(?:noarch|all|any))?(?:\*\*|__|`)?\s*(?:[:|=]\s*|-(?=(?:\d+:)?20\d{6})|\s+)(?:`\s*)?"
    r"(?:version\s*[:=]?\s*)?(?P<ver>(?:\d+:)?20\d{6}[\w.~+:-]{0,60})", re.I)


_APT_BLOCK = lazy(r"^(?P<pkg>linux-firmware-amd-graphics|linux-firmware-amdgpu|amd-gpu-firmware|firmware-amd-graphics|"
                        r"kernel-firmware-amdgpu|linux-firmware):[ \t]*\r?\n[ \t]*installed:[ \t]*"
                        r"(?P<ver>(?:\d+:)?20\d{6}[\w.~+:-]{0,60})", re.I | re.M)


def firmware_version(text: str, low: Optional[str] = None) -> Optional[Tuple[str, str]]:
    """``(package, version)`` of the GPU firmware package a listing line in ``text`` shows (the
    AMD-specific package where both it and linux-firmware are listed), None when none does."""
    if not isinstance(text, str) or not ("firmware" in text or "Firmware" in text or "FIRMWARE" in text):
        return None
    low = text.lower() if low is None else low
    found = {}
    if "installed:" in low:
        for m in _APT_BLOCK.finditer(low):  # apt policy: the package's line, then "Installed: VERSION"
            found.setdefault(m.group("pkg"), m.group("ver").rstrip(".,;)`|"))
    for raw in _lines_with(low, ("firmware",)):
        m = _FW_LINE.match(raw[:MAX_LINE].strip())
        if m:
            found.setdefault(m.group("pkg"), m.group("ver").rstrip(".,;)`|"))
    for pkg in FIRMWARE_PACKAGES:
        if pkg in found:
            return pkg, found[pkg]
    return None


# debugfs amdgpu_firmware_info: "MES feature version: 1, firmware version: 0x00000080"
_BLOB = lazy(r"^\s*(?P<name>[a-z][a-z0-9_ ]{0,24}?)\s+feature version:\s*\d{1,10},\s*firmware version:\s*"
                   r"(?P<ver>0x[0-9a-f]{1,16})\b", re.I)


def firmware_blobs(text: str) -> dict:
    """``{file: version}`` of the firmware versions amdgpu reports in debugfs ``amdgpu_firmware_info``
    (``MES``, ``MES_KIQ``, ``SMC``...; the first GPU's, the first time each is listed)."""
    out: dict = {}
    if not isinstance(text, str) or "feature version" not in text:
        return out
    for raw in _lines_with(text, ("feature version",)):
        m = _BLOB.match(raw[:MAX_LINE])
        if m:
            out.setdefault(m.group("name").strip().upper().replace(" ", "_"), m.group("ver").lower())
    return out


# the amdgpu DKMS build a DKMS or dpkg line names: "DKMS make.log for amdgpu-6.16.13-2278356.24.04 for kernel ...",
# "Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel ...", "/var/lib/dkms/amdgpu/6.16.13-.../build/make.log",
# "Loading new amdgpu-6.12.12-2164967.24.04 DKMS files...", "Setting up amdgpu-dkms (1:6.12.12.60401-2164967.24.04) ..."
_DKMS_BUILD = lazy(r"(?:/var/lib/dkms/amdgpu/|\bamdgpu-dkms \(|(?<![\w-])amdgpu[-/])(?P<ver>(?:\d+:)?\d{1,2}\.\d{1,3}\.\d{1,4}"
                         r"[\w.~+-]{0,40})", re.I)


def dkms_build(text: str, low: Optional[str] = None) -> Optional[str]:
    """The amdgpu DKMS build a DKMS, make.log or dpkg line of ``text`` names (the first), else None."""
    if not isinstance(text, str) or "amdgpu" not in text:
        return None
    for line in _lines_with(text.lower() if low is None else low, ("dkms", "make.log", "autoinstall of module")):
        low = line[:MAX_LINE]
        if "amdgpu" not in low or not ("dkms" in low or "make.log" in low or "autoinstall of module" in low):
            continue
        m = _DKMS_BUILD.search(low)
        if m:
            return m.group("ver").rstrip(".,;:)`'\"")
    return None


# ------------------------------------------------------------------------------- what changed
class Change(NamedTuple):
    component: str  # kernel | linux-firmware | amdgpu-dkms | rocm | torch
    direction: str  # updated | good-bad | rolled-back | moved-fixed
    good: Optional[str]
    bad: Optional[str]
    line: str


# literal cues: a sentence of each shape below holds one of them (searched over the whole lower-cased text)
_CUES = ("updat", "upgrad", "switch", "works ", "worked ", "working ", "happen", "reproduc", "downgrad", "roll", "revert",
         " back", "regress")
_COMP = (r"(?:linux-firmware(?:-amdgpu)?|amd-gpu-firmware|firmware-amd-graphics|kernel-firmware(?:-amdgpu)?|firmware|"
         r"amdgpu-dkms|amdgpu\s+dkms|amdgpu\s+driver|dkms|kernel|linux|rocm|pytorch|torch)")
_VER = r"(?:v?\d{1,2}\.\d{1,3}(?:\.\d{1,4}){0,2}(?:[-+~][\w.+~-]{1,40})?|(?:\d+:)?20\d{6}(?:[.\w~+-]{0,40})?)"
_FILL = r"(?:(?:my|the|to|a|an|latest|newest|newer|new|older|previous|earlier|last|stable|version|release|package|series|mainline)\s+){0,4}"
_BAD_WORDS = (r"(?:broken|breaks|broke|fails?|failing|failed|crash\w{0,4}|hangs?|hanging|freez\w{0,4}|faults?|but\s+not|"
              r"(?<!not )(?<!n.t )reproduc\w{0,3}|"
              r"(?:does\s*n[o']?t|doesn'?t|didn'?t|stopped|not)\s+work\w{0,3})")
_GOOD_WORDS = (r"(?:work(?:s|ed|ing)?\s+(?:fine\s+|perfectly\s+|well\s+|ok\s+)?|(?:does\s*n[o']?t|doesn'?t|didn'?t|did\s+not)\s+"
               r"(?:happen|occur|reproduce)\s+)")
# a component word, with what may follow it before its version ("kernel.x86_64 6.17.9", "linux-firmware-20251111")
_C_END = r"(?![\w-])(?:\.(?:x86_64|aarch64|noarch))?(?:\s+package)?"
_ON = r"(?:on|with|in|under|using)\s+"

_UPDATED = lazy(
    r"\b(?:after|since)\s+(?:i\s+|we\s+)?(?:updat|upgrad|switch)\w{0,4}\s+" + _FILL +
    r"(?:(?P<comp>" + _COMP + r")" + _C_END + r"(?:[\s(-]{1,3}" + _FILL + r")?)?(?P<ver>" + _VER + r")?")
_UPDATE_BROKE = lazy(
    r"\b(?P<comp>" + _COMP + r")" + _C_END + r"\s+(?:package\s+)?(?:update|upgrade)\s+(?:to\s+)?(?P<ver>" + _VER + r")?\s*"
    r"(?:has\s+|just\s+)?(?:broke|breaks|broken)\b")
_GOOD_BAD = lazy(
    r"\b" + _GOOD_WORDS + _ON + _FILL + r"(?:(?P<c1>" + _COMP + r")" + _C_END + r"[\s(-]{1,3})?"
    r"(?P<good>" + _VER + r")\b.{0,80}?\b" + _BAD_WORDS + r"\b.{0,20}?\b(?:" + _ON + r"|since\s+|after\s+)" + _FILL +
    r"(?:(?P<c2>" + _COMP + r")" + _C_END + r"[\s(-]{1,3})?(?P<bad>" + _VER + r")")
_BAD_GOOD = lazy(
    _BAD_WORDS + r"\s+(?:[\w()]+\s+){0,3}" + _ON + _FILL + r"(?:(?P<c1>" + _COMP + r")" + _C_END + r"[\s(-]{1,3})?"
    r"(?P<bad>" + _VER + r")\b.{0,80}?\b" + _GOOD_WORDS + _ON + _FILL +
    r"(?:(?P<c2>" + _COMP + r")" + _C_END + r"[\s(-]{1,3})?(?P<good>" + _VER + r")")
_ROLLBACK = lazy(
    r"\b(?:downgrad\w{0,4}|roll\w{0,4}\s+back|revert\w{0,4}|going\s+back|went\s+back|go\s+back)\s+" + _FILL +
    r"(?:(?P<comp>" + _COMP + r")" + _C_END + r"(?:[\s(-]{1,3}" + _FILL + r")?)?(?:(?:from\s+" + _VER + r"\s+)?to\s+)?"
    r"(?P<ver>" + _VER + r")?")
# "swapping the kernel back to 6.14.0-1018-oem", "booting back into 6.18"
_BACK_TO = lazy(
    r"\b(?:switch|swap|boot|mov|go|went|going|gone)\w{0,4}\s+(?:(?:the|my|host)\s+){0,2}(?:(?P<comp>" + _COMP + r")" + _C_END +
    r"\s+)?back\s+(?:to|in|into|on)\s+" + _FILL + r"(?:(?P<comp2>" + _COMP + r")" + _C_END + r"[\s(-]{1,3})?(?P<ver>" + _VER + r")?")
# "updating the host kernel fixed it", "upgrading linux-firmware to 20260110 solved it"
_FORWARD_FIX = lazy(
    r"\b(?:updat|upgrad)\w{0,4}\s+" + _FILL + r"(?:host\s+)?(?P<comp>" + _COMP + r")" + _C_END +
    r"(?:\s+(?:to\s+)?" + _FILL + r"(?P<ver>" + _VER + r"))?.{0,40}?\b(?:fixe[sd]|solve[sd]|resolve[sd]|helped)\b")
# "regression in kernel 6.17 (works on 6.14)", "a linux-firmware 20251125 regression"
_REGRESSION = lazy(
    r"\bregress\w{0,4}\s+(?:in|on|with|since|after|from)\s+" + _FILL + r"(?:(?P<comp>" + _COMP + r")" + _C_END +
    r"[\s(-]{1,3})?(?P<ver>" + _VER + r")(?:.{0,40}?\b" + _GOOD_WORDS + _ON + _FILL + r"(?:(?:" + _COMP + r")" + _C_END +
    r"[\s(-]{1,3})?(?P<good>" + _VER + r"))?")
_SUCCESS = lazy(r"\b(?:fix(?:ed|es)?|solv(?:ed|es)|resolv(?:ed|es)|work(?:s|ed)|help(?:ed|s)|no\s+(?:more\s+)?"
                      r"(?:crash|hang|fault)\w{0,3})\b")
# what a sentence that says a release fails holds (the gate before the two "works on X, fails on Y" patterns)
_BAD_CUES = ("broke", "fail", "crash", "hang", "freez", "fault", "not", "n't", "reproduc", "stopped")
_DIGIT = lazy(r"\d")
_LOG_LINE = lazy(r"^\s*(?:\[\s*\d+\.\d+\]|\w{3}\s+\d+\s+\d\d:\d\d|\d{4}-\d\d-\d\d[ t]\d\d:)")


def _component(word: Optional[str], version: Optional[str], line: str) -> Optional[str]:
    """The component a word names, else the one a version's shape tells (a linux-firmware date, a
    6.5+ or 5.x kernel series); None when neither tells."""
    w = (word or "").strip()
    if w:
        if "firmware" in w:
            return "linux-firmware"
        if "dkms" in w or "driver" in w:
            return "amdgpu-dkms"
        if w in ("kernel", "linux"):
            return "kernel"
        if w == "rocm":
            return "rocm"
        if w in ("torch", "pytorch"):
            return "torch"
    v = (version or "").lstrip("v")
    if re.match(r"(?:\d+:)?20\d{6}", v):
        return "linux-firmware"
    m = re.match(r"(\d+)\.(\d+)", v)
    if m:
        major, minor = int(m.group(1)), int(m.group(2))
        if (major == 6 and minor >= 5) or major == 5 or "kernel" in line:
            return "kernel"
        if "rocm" in line and major in (5, 6, 7, 10):
            return "rocm"
    return None


def _clean(v: Optional[str]) -> Optional[str]:
    return v.rstrip(".,;:)`'\"-").lstrip("v") if v else None


_CUES_B = tuple(c.encode("ascii") for c in _CUES)


def changes(text: str, whole: bool = False) -> List[Change]:
    """The release changes the prose in ``text`` names, in order, each once (at most 8).  ``whole``:
    look at all of ``text``, not only its first MAX_PROSE characters (a caller that joined texts it
    cut).  The cues are found in the UTF-8 bytes lower-cased (ASCII only: the cues are ASCII), which
    costs a fraction of ``str.lower`` on a text with non-ASCII characters."""
    out: List[Change] = []
    if not isinstance(text, str):
        return out
    seen = set()
    raw_b = text[:len(text) if whole else MAX_PROSE].encode("utf-8", "replace")
    low_b = raw_b.lower()
    for a, b in _spans_with(low_b, _CUES_B):
        if len(out) >= MAX_CHANGES:
            break
        end = min(b, a + MAX_LINE * 4)
        line = raw_b[a:end].decode("utf-8", "replace")[:MAX_LINE]
        low = line.lower()
        if _LOG_LINE.match(low):
            continue
        line = line.strip()
        found: List[Change] = []
        digits = _DIGIT.search(low) is not None
        for rx in ((_GOOD_BAD, _BAD_GOOD) if digits and ("work" in low or "happen" in low or "reproduc" in low or "occur" in low)
                   and any(w in low for w in _BAD_CUES) else ()):
            m = rx.search(low)
            if m:
                good, bad = _clean(m.group("good")), _clean(m.group("bad"))
                comp = _component(m.group("c1") or m.group("c2"), good or bad, low)
                if comp and good != bad:
                    found.append(Change(comp, "good-bad", good, bad, line))
                    break
        if not found and digits and "regress" in low:
            m = _REGRESSION.search(low)
            if m:
                ver, good = _clean(m.group("ver")), _clean(m.group("good"))
                comp = _component(m.group("comp"), ver, low)
                if comp and good != ver:
                    found.append(Change(comp, "good-bad" if good else "updated", good, ver, line))
        if not found and any(w in low for w in ("downgrad", "roll", "revert", " back")):
            m = _ROLLBACK.search(low)
            if m and (m.group("comp") or m.group("ver")) and _SUCCESS.search(low):
                ver = _clean(m.group("ver"))
                comp = _component(m.group("comp"), ver, low)
                if comp:
                    found.append(Change(comp, "rolled-back", ver, None, line))
        if not found and " back" in low and _SUCCESS.search(low):
            m = _BACK_TO.search(low)
            if m and (m.group("comp") or m.group("comp2") or m.group("ver")):
                ver = _clean(m.group("ver"))
                comp = _component(m.group("comp") or m.group("comp2"), ver, low)
                if comp:
                    found.append(Change(comp, "rolled-back", ver, None, line))
        if not found and ("updat" in low or "upgrad" in low) and _SUCCESS.search(low):
            m = _FORWARD_FIX.search(low)
            if m:
                ver = _clean(m.group("ver"))
                comp = _component(m.group("comp"), ver, low)
                if comp:
                    found.append(Change(comp, "moved-fixed", None, None if not ver else ver, line))
        if not found and any(w in low for w in ("updat", "upgrad", "switch")):
            for rx in (_UPDATED, _UPDATE_BROKE):
                m = rx.search(low)
                if m and (m.group("comp") or m.group("ver")):
                    ver = _clean(m.group("ver"))
                    comp = _component(m.group("comp"), ver, low)
                    if comp:
                        found.append(Change(comp, "updated", None, ver, line))
                        break
        for c in found:
            k = (c.component, c.direction, c.good, c.bad)
            if k not in seen:
                seen.add(k)
                out.append(c)
    return out[:MAX_CHANGES]
