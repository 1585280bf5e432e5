"""A pasted ``pip install`` / ``uv pip install`` command that takes torch (or ROCm's own wheels) from one of
AMD's ROCm Python indexes (TheRock), and what it says about the device code installed.

TheRock publishes two layouts (ROCm/TheRock ``RELEASES.md`` and ``docs/packaging/legacy_per_family_releases.md``,
status documented):

* per-family indexes, one per GPU family: ``https://rocm.nightlies.amd.com/v2/<family>/`` (also ``v2-staging``,
  ``rocm.prereleases.amd.com``, ``rocm.devreleases.amd.com`` and the older CloudFront host
  ``d2awnip2yjpvqn.cloudfront.net``), ``<family>`` being ``gfx94X-dcgpu``, ``gfx950-dcgpu``, ``gfx110X-all``,
  ``gfx1151``, ``gfx120X-all`` ...: every wheel there holds kernels for the family's targets;
* the multi-arch index (``https://rocm.nightlies.amd.com/whl-multi-arch/``, ``repo.amd.com/rocm/whl-multi-arch``,
  ``stable.repo.amd.com/rocm/whl-next``): the GPU is chosen by a ``[device-gfxNNNN]`` extra
  (``torch[device-gfx1151]``, ``rocm[libraries,devel,device-gfx942]``), ``device-all`` for every target.

A family name is turned into its targets with ``FAMILIES`` below (read from TheRock's
``cmake/therock_amdgpu_targets.cmake``); a family it does not list gives no target.

A command is only a command: ``commands_installed`` drops a report's commands when its pastes show the installer
failing (pip's ``ERROR: Could not find a version that satisfies the requirement``, ``ERROR: No matching distribution
found for`` -- pypa/pip ``src/pip/_internal/index/package_finder.py`` ``find_requirement`` --, ``ResolutionImpossible``,
``ERROR: Cannot install``, ``Failed building wheel``, ``error: subprocess-exited-with-error``; uv's ``No solution found
when resolving dependencies`` and its line-leading ``error: Failed to ...``: astral-sh/uv) and none shows it succeeding
(pip's ``Successfully installed``, uv's ``Installed N packages in``).  Status: documented (the index layouts), observed
(the installers' messages, as pasted in the corpus).

Lines are read one at a time (a trailing ``\\`` / PowerShell backtick continues a command on the next line, at
most eight lines); every pattern is anchored on a literal and has no nested repetition: linear in the paste.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ...model import field, lean_dataclass
from ._core_text import lazy

# the installer word, after a prompt, "python -m", "sudo", "!" (a notebook) or a shell separator
_INSTALL = lazy(r"(?:^|[\s$#>;&|(!])(?:uv\s+)?pip3?(?:\.exe)?\s+install\s")
_INDEX_OPT = lazy(r"(?:^|\s)(?:--index-url|--extra-index-url|--default-index|--index|-i)(?:=|\s+)[\"']?"
                  r"(?P<url>https?://[^\s\"']{1,300})")
_AMD_HOST = lazy(r"^https?://(?:rocm\.(?:nightlies|prereleases|devreleases)\.amd\.com|(?:[\w-]{1,30}\.)?repo\.amd\.com"
                 r"|d2awnip2yjpvqn\.cloudfront\.net)(?::\d+)?/(?P<path>[^\s?#]{0,200})$", re.I)
_FAMILY_PATH = lazy(r"^(?:rocm/)?(?:v2(?:-staging)?|whl)/(?P<family>gfx[0-9a-z]{2,5}(?:-(?:all|dgpu|dcgpu|igpu))?)/?", re.I)
_MULTI_PATH = lazy(r"^(?:rocm/)?(?:whl-multi-arch|whl-next|v2/multi-arch)(?:/|$)", re.I)
# a requirement with extras: torch[device-gfx1151], "rocm[libraries,devel,device-gfx942]", torch[device-all]==2.12
_REQ = lazy(r"(?:^|[\s\"'])(?P<name>torch|torchvision|torchaudio|rocm|jax_rocm7_plugin|jaxlib)"
            r"(?:\[(?P<extras>[\w,. -]{1,200})\])?(?:\s*(?P<op>==|>=|<=|~=|!=|<|>)\s*(?P<ver>[0-9][0-9A-Za-z.+*]{0,40}))?(?=[\s\"',;]|$)", re.I)
# as the installers print them (case kept: found with str.find, no lowering of a long paste)
_FAILED = ("Could not find a version that satisfies the requirement", "No matching distribution found for",
           "ResolutionImpossible", "ERROR: Cannot install", "Failed building wheel", "subprocess-exited-with-error",
           "No solution found when resolving dependencies", "ERROR: Could not install packages")
# uv's own failures start the line ("error: Failed to download ...", "  × Failed to build ..."): anywhere else the
# words are another program's ("RuntimeError: Failed to load ...")
_FAILED_TO = "Failed to "
_FAILED_START = ("error: Failed to ", "× Failed to ")
_SUCCESS = lazy(r"^\s*(?:Successfully installed\s|Installed \d+ packages? in\s)")
MAX_CONT = 8


@lean_dataclass
class InstallCommand:
    """One install command from an AMD ROCm index."""

    line: str = ""  # the command as pasted (continuations joined)
    index: str = ""  # the AMD index URL
    family: Optional[str] = None  # per-family index: its family (gfx110X-all, gfx1151)
    multi_arch: bool = False  # the multi-arch index (device extras choose the GPU)
    packages: List[str] = field(default_factory=list)  # torch, rocm, torchvision ... as named
    device_extras: List[str] = field(default_factory=list)  # gfx1151, all (from device-*)
    torch_pin: Optional[str] = None  # torch==X as written


@lean_dataclass
class InstallCommands:
    commands: List[InstallCommand] = field(default_factory=list)
    failed: List[str] = field(default_factory=list)  # the installer's failure lines
    succeeded: List[str] = field(default_factory=list)  # its success lines

    @property
    def installed(self) -> bool:
        """Whether the paste lets the commands count as run: a success line, or no failure line."""
        return bool(self.commands) and (bool(self.succeeded) or not self.failed)


_PIP_INSTALL_ANY = lazy(r"pip3?(?:\.exe)?[ \t]+install[ \t]")
_CONT = ("\\", "`", "^")


def _commands(text: str) -> List[str]:
    """The install commands of ``text``, continuation lines joined: the lines found by one scan for ``pip install``
    (no per-line loop over a long paste), at most 32."""
    out: List[str] = []
    pos = 0
    for m in _PIP_INSTALL_ANY.finditer(text):
        if m.start() < pos:
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        end = len(text) if end < 0 else end
        pos = end
        line = text[start:end].strip()
        if len(line) > 2000 or not _INSTALL.search(line):
            continue
        if "http" not in line and not line.endswith(_CONT):
            continue
        cmd, left = line, MAX_CONT
        while cmd.endswith(_CONT) and left > 0 and end < len(text):
            nend = text.find("\n", end + 1)
            nend = len(text) if nend < 0 else nend
            nxt = text[end + 1:nend].strip()
            if len(nxt) > 2000:
                break
            cmd, end, left = cmd.rstrip("\\`^ ") + " " + nxt, nend, left - 1
        pos = end
        out.append(cmd.rstrip("\\`^ "))
        if len(out) >= 32:
            break
    return out


def parse(text: object) -> InstallCommands:
    """The AMD-index install commands of ``text`` and the installer's failure/success lines; never raises."""
    res = InstallCommands()
    if not isinstance(text, str) or "pip" not in text or "amd.com" not in text and "cloudfront.net" not in text:
        return res
    for cmd in _commands(text):
        index = None
        for m in _INDEX_OPT.finditer(cmd):
            h = _AMD_HOST.match(m.group("url"))
            if h:
                index = (m.group("url"), h.group("path"))
                break
        if index is None:
            continue
        c = InstallCommand(line=cmd[:400], index=index[0])
        fam = _FAMILY_PATH.match(index[1])
        if fam and fam.group("family").lower() != "multi-arch":
            c.family = fam.group("family")
        elif _MULTI_PATH.match(index[1]):
            c.multi_arch = True
        for m in _REQ.finditer(cmd):
            name = m.group("name").lower()
            if name not in c.packages:
                c.packages.append(name)
            for extra in (m.group("extras") or "").split(","):
                extra = extra.strip().lower()
                if extra.startswith("device-") and len(extra) > 7 and extra[7:] not in c.device_extras:
                    c.device_extras.append(extra[7:])
            if name == "torch" and m.group("op") == "==" and c.torch_pin is None:
                c.torch_pin = m.group("ver")
        if c.packages:
            res.commands.append(c)
    if not res.commands:
        return res
    res.failed = _failure_lines(text)
    res.succeeded = _success_lines(text)
    return res


def targets(cmd: InstallCommand, families: Optional[Dict[str, Tuple[str, ...]]] = None) -> List[str]:
    """The gfx targets a command's device code is built for: its device extras (a family name expanded), or its
    per-family index's family expanded; ``all`` stays ``all``.  A family not in ``families`` gives nothing."""
    out: List[str] = []
    names = list(cmd.device_extras) or ([cmd.family] if cmd.family else [])
    for n in names:
        n = n.lower()
        if n == "all":
            got = ["all"]
        elif re.fullmatch(r"gfx[0-9a-f]{3,4}", n):
            got = [n]
        else:
            got = list((FAMILIES if families is None else families).get(n, ()))
        for g in got:
            if g not in out:
                out.append(g)
    return out


# TheRock's named GPU families and their targets, as ROCm/TheRock cmake/therock_amdgpu_targets.cmake declares them
# (therock_add_amdgpu_target(<gfx> "<product>" FAMILY <families...>), commit 89553ce3746eda74ade42557470d25e37c91b6f0,
# 2026-08-22; status documented).  Each target is also a family of its own name (the file's header comment).
FAMILIES: Dict[str, Tuple[str, ...]] = {
    "dcgpu-all": ("gfx908", "gfx90a", "gfx942", "gfx950", "gfx1250"),
    "dgpu-all": ("gfx900", "gfx906", "gfx1010", "gfx1011", "gfx1012", "gfx1030", "gfx1031", "gfx1032", "gfx1034",
                 "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201"),
    "igpu-all": ("gfx90c", "gfx1033", "gfx1035", "gfx1036", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"),
    "gfx900-dgpu": ("gfx900",), "gfx906-dgpu": ("gfx906",), "gfx908-dcgpu": ("gfx908",), "gfx90a-dcgpu": ("gfx90a",),
    "gfx90c-igpu": ("gfx90c",), "gfx94x-all": ("gfx942",), "gfx94x-dcgpu": ("gfx942",), "gfx950-all": ("gfx950",),
    "gfx950-dcgpu": ("gfx950",),
    "gfx101x-all": ("gfx1010", "gfx1011", "gfx1012"), "gfx101x-dgpu": ("gfx1010", "gfx1011", "gfx1012"),
    "gfx103x-all": ("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"),
    "gfx103x-dgpu": ("gfx1030", "gfx1031", "gfx1032", "gfx1034"), "gfx103x-igpu": ("gfx1033", "gfx1035", "gfx1036"),
    "gfx110x-all": ("gfx1100", "gfx1101", "gfx1102", "gfx1103"), "gfx110x-dgpu": ("gfx1100", "gfx1101", "gfx1102"),
    "gfx110x-igpu": ("gfx1103",),
    "gfx115x-all": ("gfx1150", "gfx1151", "gfx1152", "gfx1153"), "gfx115x-igpu": ("gfx1150", "gfx1151", "gfx1152", "gfx1153"),
    "gfx120x-all": ("gfx1200", "gfx1201"),
    "gfx125x-all": ("gfx1250",), "gfx125x-dcgpu": ("gfx1250",),
}


def commands_installed(texts: List[Tuple[str, str]]) -> List[Tuple[str, InstallCommand]]:
    """(paste name, command) for every AMD-index install command of a report's pastes, unless the pastes show the
    installer failing and none shows it succeeding (the failure is often pasted apart from the command)."""
    out: List[Tuple[str, InstallCommand]] = []
    parsed = [(name, text, parse(text)) for name, text in texts]
    for name, _text, res in parsed:
        out.extend((name, c) for c in res.commands)
    if not out:
        return out
    failed = any(res.failed or (not res.commands and _shows_failure(text)) for _n, text, res in parsed)
    if failed and not any(res.succeeded or (not res.commands and _shows_success(text)) for _n, text, res in parsed):
        return []
    return out


def _line_at(text: str, i: int) -> str:
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return text[start:end if end >= 0 else len(text)]


def _failure_lines(text: str, limit: int = 8) -> List[str]:
    """The installer's failure lines of ``text``: each needle looked for with ``str.find`` (no per-line scan of a
    long paste), at most ``limit``."""
    if not isinstance(text, str):
        return []
    out: List[str] = []
    for needle in _FAILED + (_FAILED_TO,):
        i = text.find(needle)
        while i >= 0 and len(out) < limit:
            line = _line_at(text, i)
            if needle != _FAILED_TO or line.lstrip(" -\t").startswith(_FAILED_START):
                shown = line.strip()[:200]
                if shown not in out:
                    out.append(shown)
            nl = text.find("\n", i)
            i = text.find(needle, nl) if nl >= 0 else -1
    return out


def _success_lines(text: str) -> List[str]:
    """pip's / uv's success line, the first one (looked for with ``str.find``)."""
    if not isinstance(text, str):
        return []
    for needle in ("Successfully installed ", "Installed "):
        i = text.find(needle)
        while i >= 0:
            line = _line_at(text, i)
            if len(line) < 20000 and _SUCCESS.match(line):
                return [line.strip()[:200]]
            nl = text.find("\n", i)
            i = text.find(needle, nl) if nl >= 0 else -1
    return []


def _shows_failure(text: str) -> bool:
    return bool(_failure_lines(text, 1))


def _shows_success(text: str) -> bool:
    return bool(_success_lines(text))
