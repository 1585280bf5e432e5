"""Labelled fields people type into bug reports: issue-template sections and ``Key: value`` lines.

ROCm's issue template (``### Operating System`` / ``### CPU`` / ``### GPU`` / ``### ROCm Version``,
each followed by what the user typed), llama.cpp's (``### Operating systems``), Ollama's (``### OS``),
bullet lists (``- OS: Ubuntu 24.04``, ``- **Kernel:** 6.14.0-1014-oem``) and two-column markdown
tables (``| Kernel | 6.17.7-ba29.fc43.x86_64 |``) all say the same things: the distribution, the
kernel, the GPU, the CPU and a ROCm version.  What is typed is less trustworthy than what a tool
printed, so the probes use these values only where no output tells (and check each one: a "ROCm
Version" field often holds the amdgpu driver's version, ``6.12.12``, or rocminfo's ``ROCk module
version 6.16.6 is loaded`` line).

Besides the values, the OS field tells WSL (``WSL2 Ubuntu 24.04``, ``Windows WSL2``) and a
``Docker Image:`` line that the outputs come from a container.

Every pattern is anchored and free of nested repetition: a paste is read in linear time.
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional, Tuple

from ...model import lean_dataclass
from ._core_text import lazy
from .uname import ARCHES, RELEASE_RE

# "### Operating System", "### GPU" ... (GitHub issue forms render each field as a level-3 heading)
_HEADING = lazy(r"^#{2,4}\s+(?P<key>[A-Za-z][A-Za-z /()._-]{0,60}?)\s*#*\s*$")
# "- OS: Ubuntu 24.04", "**Kernel:** 6.14.0", "GPU: AMD Radeon RX 7900 XTX (Navi31, 1002:744c)"
_LABELLED = lazy(r"^(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>OS|Operating Systems?|Distro|Distribution|Linux distribution|GPU(?: \d)?|GPUs|"
                 r"Graphics card|CPU|Processor|Kernel|Kernel version|ROCm|ROCm version|ROCm Version|Platform|Python|Python version)"
                 r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<val>\S.{0,200}?)\s*$", re.I)
# "| Kernel | 6.17.7-ba29.fc43.x86_64 |"
_TABLE_ROW = lazy(r"^\|\s*(?P<key>[A-Za-z][A-Za-z /]{0,30}?)\s*\|\s*(?P<val>[^|]{1,200}?)\s*\|\s*$")
_DOCKER_IMAGE = lazy(r"^(?:[-*+]\s+)?(?:\*\*)?Docker Image(?:\*\*)?\s*:\s*(?:\*\*)?\s*`?(?P<img>[\w./:@-]{3,200})`?\s*$", re.I)
_WSL = lazy(r"\bWSL ?2?\b", re.I)

_KEYS = {
    "os": ("operating system", "operating systems", "os", "distro", "distribution", "linux distribution"),
    "gpu": ("gpu", "gpus", "graphics card"),
    "cpu": ("cpu", "processor"),
    "kernel": ("kernel", "kernel version"),
    "rocm": ("rocm version", "rocm"),
    "python": ("python", "python version"),
}


@lean_dataclass
class IssueForm:
    os: List[str] = field(default_factory=list)
    gpu: List[str] = field(default_factory=list)
    cpu: List[str] = field(default_factory=list)
    kernel: List[str] = field(default_factory=list)
    rocm: List[str] = field(default_factory=list)
    python: List[str] = field(default_factory=list)
    docker_images: List[str] = field(default_factory=list)

    @property
    def wsl(self) -> Optional[str]:
        """The OS value that names WSL, if one does."""
        return next((v for v in self.os if _WSL.search(v)), None)


def _field_of(key: str) -> Optional[str]:
    k = key.strip().lower()
    if k[:4] == "gpu " and k[4:].isdigit():  # fastfetch's "GPU 1:", "GPU 2:"
        return "gpu"
    for name, keys in _KEYS.items():
        if k in keys:
            return name
    return None


def _add(out: IssueForm, name: str, value: str) -> None:
    v = value.strip().strip("`").strip()
    if not v or v in ("-", "N/A", "n/a", "_No response_") or len(v) > 200:
        return
    bucket = getattr(out, name)
    if v not in bucket:
        bucket.append(v)


# inxi (-F, -Fxz, -b): a section name at the line's start ("System:", "Graphics:"), then several
# "key: value" pairs on each line, a value running to the next key ("Host: box Kernel: 6.12.48+deb13-amd64
# arch: x86_64 bits: 64", "Desktop: KDE Plasma v: 6.3.6 Distro: Debian GNU/Linux 13 (trixie)",
# "Device-1: Advanced Micro Devices [AMD/ATI] Navi 48 [Radeon RX 9070/9070 XT/9070 GRE] driver: amdgpu v: kernel").
# smxi/inxi's own output format: https://codeberg.org/smxi/inxi (inxi's man page, "OUTPUT"); keys are one word,
# possibly with a dash and a number ("Device-1", "chip-ID", "bus-ID").
# (paste_facts' reader of inxi's Graphics items uses it too)
INXI_SECTION = lazy(r"^(?:System|Machine|Battery|Memory|CPU|Graphics|Audio|Network|Bluetooth|Drives|Partition|"
                    r"Logical|RAID|Swap|Unmounted|USB|Sensors|Repos|Processes|Info):(?:\s|$)")
_INXI_SYSTEM = lazy(r"^`{0,3}System:(?:[ \t]|$)", re.M)
_INXI_KEY = lazy(r"(?:^|(?<=\s))(?P<k>[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)?):\s")
_INXI_FIELDS = {"Kernel": "kernel", "Distro": "os"}


def _inxi_pairs(line: str) -> List[Tuple[str, str]]:
    """The (key, value) pairs of one inxi line, in order."""
    keys = list(_INXI_KEY.finditer(line))
    return [(m.group("k"), line[m.end():(keys[i + 1].start() if i + 1 < len(keys) else len(line))].strip())
            for i, m in enumerate(keys)]


def _inxi(text: str, out: "IssueForm") -> List[Tuple[int, int]]:
    """The fields of each inxi report in ``text``: a block that starts at a "System:" line and holds at least
    one more of inxi's sections at a line's start, up to the first line at the margin that is no section (a
    prompt, another tool's output).  Only those blocks are read, so the rest of a paste costs one scan.
    Returns the blocks' spans (their lines are inxi's pairs, not "Key: value" fields)."""
    pos = 0
    spans: List[Tuple[int, int]] = []
    while True:
        m = _INXI_SYSTEM.search(text, pos)
        if m is None:
            return spans
        block: List[Tuple[str, str]] = []  # (section, line)
        sections = 0
        section = ""
        end = m.start()
        while end < len(text):  # (line by line from the "System:" line, without splitting the rest of the text)
            nl = text.find("\n", end)
            nl = len(text) if nl < 0 else nl
            line_start, raw, end = end, text[end:nl], nl + 1
            line = raw.strip().strip("`")
            if not line:
                continue
            at_margin = not raw[:1].isspace()
            head = INXI_SECTION.match(line) if at_margin else None
            if at_margin and head is None and block:
                end = line_start  # the report ended before this line, which is read as usual
                break
            if head is not None:
                sections += 1
                section = line.split(":", 1)[0]
                line = line[len(section) + 1:].strip()
            if len(line) <= 400:
                block.append((section, line))
        pos = max(end, m.end())
        if sections < 2:
            continue
        spans.append((m.start(), min(end, len(text))))
        for section, line in block:
            for key, value in _inxi_pairs(line):
                name = _INXI_FIELDS.get(key)
                if name == "kernel":  # "Kernel: 6.12.48+deb13-amd64 arch: ..." (not "Kernel: FreeBSD 14.0-CURRENT")
                    rel = value.split()[0] if value else ""
                    if section == "System" and rel[:1].isdigit():
                        _add(out, name, rel)
                elif name:
                    _add(out, name, value)
                elif section == "Graphics" and (key.startswith("Device-") or key.startswith("Card")) and value:
                    _add(out, "gpu", value)
                elif section == "CPU" and key == "model" and value:
                    _add(out, "cpu", value)


def parse(text: object) -> IssueForm:
    """Every labelled field in ``text``; never raises."""
    out = IssueForm()
    if not isinstance(text, str) or not text:
        return out
    if "System:" in text:
        spans = _inxi(text, out)
        if spans:  # the rest of the text is read as usual
            text = "".join(text[a:b] for a, b in zip([0] + [e for _s, e in spans], [s0 for s0, _e in spans] + [len(text)]))
    pending: Optional[str] = None  # a heading's field waiting for its first line
    in_fence = False
    for raw in text.replace("\r", "\n").split("\n"):
        line = raw.strip()
        if len(line) > 400:
            pending = None
            continue
        if line.startswith("```") or line.startswith("~~~"):
            in_fence = not in_fence
            inner = line[3:].strip()
            if not inner or pending is None:
                continue
            line = inner  # "```Ubuntu 24.04```"
        if not line:
            continue
        if line.startswith("#"):
            m = _HEADING.match(line)
            if m:
                pending = _field_of(m.group("key"))
                continue
        if pending is not None:
            _add(out, pending, line.strip("`"))
            pending = None
            continue
        if ":" in line:  # (inside a fence too: neofetch's and fastfetch's "OS:" / "Kernel:" lines)
            m = _LABELLED.match(line)
            if m:
                name = _field_of(m.group("key"))
                if name:
                    _add(out, name, m.group("val"))
                continue
            if "docker image" in line.lower():
                m = _DOCKER_IMAGE.match(line)
                if m and m.group("img") not in out.docker_images:
                    out.docker_images.append(m.group("img"))
                continue
        if line.startswith("|") and line.count("|") == 3:
            m = _TABLE_ROW.match(line)
            if m:
                name = _field_of(m.group("key"))
                if name:
                    _add(out, name, m.group("val").replace("`", ""))
    return out


_CACHE: dict = {}


def parse_cached(text: str) -> IssueForm:
    key = hash(text) if isinstance(text, str) else None
    if key is None:
        return parse(text)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 64:
            _CACHE.clear()
        hit = _CACHE[key] = parse(text)
    return hit


# -- interpreting values -------------------------------------------------------------------------

# (s14-heldby) also "NixOS, Linux 6.19.9": the kernel after a comma or semicolon (a distribution's own "Rocky Linux 9.5"
# has no comma before "Linux" and two version parts)
_KERNEL_IN_OS = lazy(r"(?:\(Linux |(?:^|[,;]\s*)Linux\s+(?=\d+\.\d+\.\d+)|\bkernel(?: version| release)?\s*[:=]?\s*)(?P<rel>\d+\.\d+\.\d+[-+._~0-9A-Za-z]*)", re.I)
# Python's platform.platform() in an OS field (bug-report templates fill "OS:" with it):
# "Linux-<release>-<machine>[-<processor>]-with-<libc>" (CPython Lib/platform.py, platform())
_PLATFORM_IN_OS = lazy(r"\bLinux-(?P<rel>" + RELEASE_RE + r")-(?:" + "|".join(ARCHES) + r")\b")
_PYTHON_VALUE = lazy(r"^(?:Python\s+)?(?P<ver>3\.\d{1,2}(?:\.\d{1,3})?)(?:\s.*)?$", re.I)
_OS_RELEASE_KV = lazy(r'\b(?P<k>NAME|VERSION|ID|VERSION_ID|PRETTY_NAME)="(?P<v>[^"]{0,80})"')
_BARE_UBUNTU = lazy(r"^\d{2}\.\d{2}(?:\.\d+)?(?: LTS)? \([A-Z][a-z]+ [A-Z][a-z]+\)$")
# neofetch's GPU line: the vendor as "AMD ATI", an iGPU's PCI address, then pci.ids' device name
# ("AMD ATI Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600", "AMD ATI 0e:00.0 Raphael")
_NEOFETCH_GPU = lazy(r"^AMD ATI (?:[0-9a-f]{2,4}:[0-9a-f]{2}\.[0-7] )?(?P<name>(?:Radeon|Instinct|FirePro)\b[A-Za-z0-9 ./]{2,80}?)\s*$")
# inxi's and lshw's device name, lspci's vendor first: "Advanced Micro Devices [AMD/ATI] Navi 48 [Radeon RX 9070/9070 XT/9070 GRE]"
_PCI_VENDOR_GPU = lazy(r"^Advanced Micro Devices(?:, Inc\.)? \[AMD/ATI\] (?P<name>[A-Za-z][A-Za-z0-9 ./\[\]-]{2,100}?)\s*$")
# inxi -z's short vendor: "AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]" (chip, then pci.ids' products)
_INXI_SHORT_GPU = lazy(r"^AMD (?P<name>[A-Z][A-Za-z0-9 .-]{1,40}\[(?:AMD )?(?:Radeon|Instinct|FirePro)\b[^\]\[]{1,80}\])\s*$")
_AMD_GPU_NAME = lazy(r"^(?P<name>AMD (?:Radeon|Instinct)\b[A-Za-z0-9 ]{2,60}?)\s*$")
_ROCM_VALUE = lazy(r"^(?:ROCm\s*)?v?(?P<ver>\d+\.\d+(?:\.\d+)?)[.~\d-]*(?:\s*\(.*\))?\s*$", re.I)


def os_parts(value: str) -> Tuple[Optional[str], Optional[str], bool]:
    """An OS field -> (distribution text for os_release.from_pretty or os-release lines, kernel, wsl)."""
    v = value.strip()
    wsl = bool(_WSL.search(v))
    kernel = None
    m = _KERNEL_IN_OS.search(v)
    if m:
        kernel = m.group("rel").rstrip(").,")
    else:
        pm = _PLATFORM_IN_OS.search(v)
        if pm:
            return None, pm.group("rel"), wsl
    kv = _OS_RELEASE_KV.findall(v)
    if kv:
        return "\n".join('%s="%s"' % (k, val) for k, val in kv), kernel, wsl
    d = v
    if m:
        d = v[:m.start()].rstrip(" ,;(")
    d = re.sub(r"\(?\b(?:on |with |under )?(?:Windows )?WSL ?2?\b\)?", " ", d, flags=re.I)
    d = re.sub(r"\s{2,}", " ", d).strip(" ,;-")
    d = d.split(",")[0].strip()
    if _BARE_UBUNTU.match(d):
        d = "Ubuntu " + d
    return (d or None), kernel, wsl


def gpu_name(value: str) -> Optional[str]:
    """A GPU field that is a plain AMD marketing name ('AMD Radeon RX 9070 XT'), else None: counts
    ('2x ...'), chip lists and shorthand ('RX 7900xtx', '7900XTX') are left alone."""
    v = re.sub(r"\s*\((?:dGPU|iGPU|discrete|integrated|eGPU)\)\s*$", "", value.strip(), flags=re.I)
    # fastfetch: "AMD Radeon 8060S Graphics @ 2.90 GHz [Integrated]", "AMD Radeon RX 9070 XT [Discrete]"
    v = re.sub(r"(?:\s+@\s+[\d.]+\s*[GM]Hz)?\s*\[(?:Discrete|Integrated|Unknown)\]\s*$", "", v)
    n = _NEOFETCH_GPU.match(v) or _PCI_VENDOR_GPU.match(v) or _INXI_SHORT_GPU.match(v)
    if n:  # one device's pci.ids name: its products share the device id, so the first names the chip
        return "AMD " + n.group("name").strip()
    m = _AMD_GPU_NAME.match(v)
    return m.group("name").strip() if m else None


def python_version(value: str) -> Optional[str]:
    """A Python field that is a CPython 3 version ('3.12.3', 'Python 3.11.14 (main, ...)'), else None."""
    m = _PYTHON_VALUE.match(value.strip())
    return m.group("ver") if m else None


def rocm_version(value: str) -> Optional[str]:
    """A ROCm Version field that is a version number ('ROCm 7.2.2', '6.4.4.60404-129~24.04'), else None.
    A driver line ('ROCk module version 6.16.6 is loaded') is no ROCm release."""
    v = value.strip()
    if "rock" in v.lower() or "module" in v.lower() or "driver" in v.lower():
        return None
    m = _ROCM_VALUE.match(v.replace("ROCM", "ROCm"))
    if not m:
        return None
    parts = m.group("ver").split(".")
    if len(parts) == 3 and int(parts[2]) >= 100:
        return None  # a HIP build number ("7.1.26233", torch.version.hip), not a ROCm point release
    return ".".join(parts[:3])
