"""What a pasted text is, decided by its content.

A paste is often several outputs in one: a terminal session with prompt lines (``$ rocminfo``,
``user@host:~$ lsmod | grep amdgpu``, ``[root@x ~]# dnf list``, ``root@hs2 ~# uname -a``), or a
markdown file with fenced blocks.  :func:`split` cuts it into segments at prompt lines and fences;
:func:`classify` asks every parser module's ``looks_like(text)`` how sure it is and takes the best
(the command on the prompt line, when there is one, is a hint that breaks ties and rescues short
outputs such as ``uname -a``).  :func:`recognize` does both.

Parser modules are named in :data:`PARSERS` by dotted path; modules that do not exist (yet) are
skipped, so parsers can be added without touching this file's callers.  A parser module exposes
``KIND`` (a key of :data:`~rocm_wizard.detect.sources.KIND_COMMANDS`), ``looks_like(text) -> float``
and optionally ``kind_of(text) -> str`` when one module reads several kinds (``apt list`` vs
``dpkg -l``).
"""
from __future__ import annotations

import importlib
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .parsers._core_text import lazy

# Parser modules by dotted path.  Missing ones are ignored.
PARSERS: Tuple[str, ...] = (
    "rocm_wizard.detect.parsers.rocminfo",
    "rocm_wizard.detect.parsers.rocm_smi",
    "rocm_wizard.detect.parsers.amd_smi",
    "rocm_wizard.detect.parsers.lspci",
    "rocm_wizard.detect.parsers.lshw",
    "rocm_wizard.detect.parsers.lsmod",
    "rocm_wizard.detect.parsers.packages",
    "rocm_wizard.detect.parsers.dkms",
    "rocm_wizard.detect.parsers.apt_sources",
    "rocm_wizard.detect.parsers.apt_prefs",
    "rocm_wizard.detect.parsers.apt_policy",
    "rocm_wizard.detect.parsers.sysfs",
    "rocm_wizard.detect.parsers.rocm_version",
    "rocm_wizard.detect.parsers.hipconfig",
    "rocm_wizard.detect.parsers.rocm_sdk",
    "rocm_wizard.detect.parsers.opt_listing",
    # the OS / Python / error side
    "rocm_wizard.detect.parsers.os_release",
    "rocm_wizard.detect.parsers.uname",
    "rocm_wizard.detect.parsers.collect_env",
    "rocm_wizard.detect.parsers.pip_freeze",
    "rocm_wizard.detect.parsers.pip",
    "rocm_wizard.detect.parsers.dmesg",
    "rocm_wizard.detect.parsers.errors",
    "rocm_wizard.detect.parsers.error_log",
    "rocm_wizard.detect.parsers.docker",
)

THRESHOLD = 0.35  # below this a segment is left unrecognised (kind None)

# command word on a prompt line -> kind it most likely produced
_COMMAND_HINTS: Tuple[Tuple[str, str], ...] = (
    (r"(^|/)rocminfo\b|(^|/)rocm_agent_enumerator\b", "rocminfo"),
    (r"\.info/version\b|rocm_version\.h\b", "rocm-info-version"),
    (r"(^|/)hipconfig\b|share/hip/version\b", "hipconfig"),
    (r"(^|/)rocm-sdk\s+(?:version|targets)\b|-m\s+rocm_sdk\s+(?:version|targets)\b", "rocm-sdk"),
    (r"(^|/)ls\b[^|]*\s/opt(?:/rocm)?/?\s*$|update-alternatives\s+--display\s+(?:rocm|core(?:-\d+)?)\b", "opt-listing"),
    (r"(^|/)pacman\s+-Q", "pacman-list"),
    (r"(^|/)apt(-cache)?\s+show\b", "apt-list"),
    (r"(^|/)dpkg\s+(-s|--status)\b", "dpkg"),
    (r"(^|/)rocm-smi\b", "rocm-smi"),
    (r"(^|/)amd-smi\s+version\b", "amd-smi-version"),
    (r"(^|/)amd-smi\b", "amd-smi"),
    (r"(^|/)lspci\b", "lspci"),
    (r"(^|/)lshw\b", "lshw"),
    (r"(^|/)lsmod\b|/proc/modules", "lsmod"),
    (r"(^|/)dpkg\s+(-l|--list)\b|(^|/)dpkg-query\b", "dpkg"),
    (r"(^|/)dpkg\s+--audit\b|(^|/)dpkg\s+-C\b", "dpkg-audit"),
    (r"(^|/)apt\s+list\b", "apt-list"),
    (r"(^|/)apt-cache\s+policy\b|(^|/)apt\s+policy\b", "apt-policy"),
    (r"(^|/)(dnf|yum)\s+list\b|(^|/)rpm\s+-q", "dnf-list"),
    (r"(^|/)dkms\s+status\b", "dkms"),
    (r"(^|/)uname\b", "uname"),
    (r"(^|/)mokutil\b", "mokutil"),
    (r"/etc/(os|system|lsb|redhat)-release\b|(^|/)lsb_release\b", "os-release"),
    (r"sources\.list|\.sources\b", "apt-sources"),
    (r"/etc/apt/preferences", "apt-prefs"),
    (r"/kfd/topology/nodes/", "kfd-properties"),
    (r"collect_env", "collect_env"),
    (r"(^|/)pip3?\s+(freeze|list)\b|(^|/)uv\s+pip\s+(freeze|list|install|sync)\b|-m\s+pip\s+(freeze|list)\b", "pip-freeze"),
    (r"(^|/)dmesg\b|journalctl\s+-k", "dmesg"),
    (r"(^|/)docker\s+images\b", "docker-images"),
    (r"(^|/)docker\s+(version|--version)\b", "docker-version"),
)

_TOOLS = (r"rocminfo|rocm-smi|pacman|amd-smi|rocm_agent_enumerator|lspci|lshw|lsmod|dpkg|dpkg-query|apt|apt-cache|apt-get|"
          r"dnf|yum|rpm|dkms|uname|cat|python3?(?:\.\d+)?|pip3?|uv|docker|clinfo|dmesg|journalctl|hipconfig|ls|grep|"
          r"lsb_release|hostnamectl|sudo|env|echo|groups|id|which|torchrun|update-alternatives|amdgpu-install|mokutil")

# (pattern, characters one of which a matching line must contain: other lines are not tried, and
# a pattern no line needs is never compiled)
_PROMPTS = (
    # user@host:~/dir$ cmd   /   root@hs2 ~# cmd   /   (venv) user@host:~$ cmd
    (lazy(r"^\s*(?:\([^)]*\)\s*)?[\w.\-]+@[\w.\-]+(?:[: ][^$#%>\n]{0,120})?\s*[$#%>]\s*(?P<cmd>\S.*)?$"), "@"),
    # [root@x ~]# cmd
    (lazy(r"^\s*(?:\([^)]*\)\s*)?\[[\w.\-]+@[\w.\-]+[^\]]{0,120}\][$#]\s*(?P<cmd>\S.*)?$"), "@"),
    # $ cmd   ~$ cmd   ~/x$ cmd   (venv) $ cmd
    (lazy(r"^\s*(?:\([^)]*\)\s*)?(?:~[\w/.\-]*|/[\w/.\-]*)?\s*\$\s+(?P<cmd>\S.*)$"), "$"),
    # # cmd / ~# cmd -- only with a known tool, since '#' also starts comments
    (lazy(r"^\s*(?:~[\w/.\-]*|/[\w/.\-]*)?#\s+(?P<cmd>(?:sudo\s+)?(?:/\S*/)?(?:" + _TOOLS + r")\b.*)$"), "#"),
    # ❯ cmd / > cmd (fish / starship)
    (lazy(r"^\s*[❯➜]\s+(?:\S+\s+)?(?P<cmd>(?:sudo\s+)?(?:/\S*/)?(?:" + _TOOLS + r")\b.*)$"), "❯➜"),
)
# a bare command line without a prompt ("dpkg -l | grep rocm", "/opt/rocm/bin/rocminfo --support")
_BARE = lazy(r"^(?P<cmd>(?:sudo\s+)?(?:[A-Z_]+=\S*\s+)*(?:/[\w.\-]+)*/?(?:" + _TOOLS + r")(?:\s+[-/|'\"\w.].*)?)$")
# (s10-heldz) a Markdown fence, not the error-location line under a Python 3.11+ traceback frame
# ("    ~~~~~~~~^^", tildes then carets: Lib/traceback.py), which a tilde fence would otherwise take
_FENCE = lazy(r"^\s*(```|~~~(?![~^]*\^))")
# the characters a bare command line can start with (sudo, VAR=value, a path, a tool's name)
_BARE_FIRST = frozenset("s/_ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "".join(t[0] for t in _TOOLS.split("|")))


def _literal_start(alternative: str) -> str:
    """The characters every match of one alternative of _TOOLS starts with: up to its first pattern
    character, less the character a following ``?`` or ``*`` makes optional."""
    m = re.search(r"[\\?*(\[.+{]", alternative)
    if m is None:
        return alternative
    head = alternative[:m.start()]
    return head[:-1] if alternative[m.start()] in "?*{" else head


# how the tools' names of _TOOLS start: a bare command line without sudo, VAR=value or a path
# starts with one of them
_TOOL_STARTS = tuple(sorted({_literal_start(t) for t in _TOOLS.split("|")}))
# the same by their first character, "sudo" among them: what a line that starts with that character
# must start with to be a bare command line, short of a path or a VAR=value word (split's first test)
_BARE_STARTS_OF: Dict[str, Tuple[str, ...]] = {
    c: tuple(dict.fromkeys(t for t in _TOOL_STARTS + ("sudo",) if t[:1] in (c, ""))) for c in _BARE_FIRST}

Segment = Tuple[Optional[str], str, str]  # (kind, text, label)

_loaded: Optional[List[object]] = None


def parser_modules() -> List[object]:
    """The parser modules of :data:`PARSERS` that exist and expose ``looks_like``."""
    global _loaded
    if _loaded is None:
        mods = []
        for name in PARSERS:
            try:
                mod = importlib.import_module(name)
            except ImportError:
                continue
            except Exception:  # a broken module of someone else must not break recognition
                continue
            if callable(getattr(mod, "looks_like", None)) and getattr(mod, "KIND", None):
                mods.append(mod)
        _loaded = mods
    return list(_loaded)


def _prompt_command(line: str) -> Optional[str]:
    if "@" in line or "$" in line or "#" in line or "\u276f" in line or "\u279c" in line:
        for rx, needs in _PROMPTS:
            if needs in line if len(needs) == 1 else any(c in line for c in needs):
                m = rx.match(line)
                if m:
                    return (m.group("cmd") or "").strip()
    if line[:1] in (" ", "\t"):
        return None
    s = line.strip()
    c = s[:1]
    if c not in _BARE_FIRST:
        return None
    # _BARE starts with an optional "sudo", VAR=value words ([A-Z_]+=), a path, then a tool's name:
    # without the first three the line starts with the name
    if c != "/" and not s.startswith("sudo") and not ("=" in s and (c == "_" or "A" <= c <= "Z")) \
            and not s.startswith(_TOOL_STARTS):
        return None
    m = _BARE.match(s)
    if m and _plausible_bare(s):
        return m.group("cmd").strip()
    return None


def _plausible_bare(s: str) -> bool:
    # output lines that happen to start with a tool name: "rocminfo: error", "cat: x: No such file"
    if re.match(r"^[\w./\-]+:", s):
        return False
    if len(s) > 300:
        return False
    return True


# split() asks _prompt_command only of a line that passes its first tests (False: of every line, the
# reference tests/detect/test_paste_prefilters.py compares it with)
_SPLIT_PRECHECK = True


def split(text: str) -> List[Tuple[str, Optional[str], str]]:
    """Segments of a paste: ``[(label, command or None, text)]``.  Prompt lines and fences end a
    segment; a prompt's command becomes the next segment's label."""
    if not isinstance(text, str):
        text = str(text or "")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    segs: List[Tuple[str, Optional[str], str]] = []
    cur: List[str] = []
    cmd: Optional[str] = None
    bare: Optional[str] = None  # the last command line when it had no prompt (it may be a sentence)
    count = 0
    pre = _SPLIT_PRECHECK
    # (characters the whole text lacks are not looked for line by line)
    fences = "```" in text or "~~~" in text
    arrows = "\u276f" in text or "\u279c" in text
    starts_of = _BARE_STARTS_OF

    def flush() -> bool:
        nonlocal cur, count, bare
        body = "\n".join(cur).strip("\n")
        cur = []
        if not body.strip() and bare:
            # a line that only looked like a bare command and has no output after it ("rocminfo
            # fails with HSA_STATUS_ERROR ..." as an issue's title) is text, not a prompt: keep it
            body, bare = bare, None
            count += 1
            segs.append(("part %d" % count, None, body + "\n"))
            return False
        bare = None
        if body.strip():
            count += 1
            segs.append((cmd if cmd else "part %d" % count, cmd, body + "\n"))
            return True
        return False

    for line in lines:
        if fences and ("```" in line or "~~~" in line) and _FENCE.match(line):  # (a fence holds one of them)
            if flush():
                cmd = None  # the prompt's output ended; a fence right after a prompt keeps it
            continue
        # (_prompt_command's own first tests, without the call: a line with no prompt character
        # whose first character no bare command line starts with, after the blanks strip() takes
        # away other than space and tab, is no command; nor is one that starts with such a
        # character -- so strip() keeps the line's start -- but with no tool's name, "sudo", path or
        # VAR=value word)
        c0 = line[:1]
        if not pre or "@" in line or "$" in line or "#" in line or (arrows and ("\u276f" in line or "\u279c" in line)):
            c = _prompt_command(line)
        elif c0 in _BARE_FIRST:
            c = _prompt_command(line) if c0 == "/" or ("=" in line and (c0 == "_" or "A" <= c0 <= "Z")) \
                or line.startswith(starts_of.get(c0, ())) else None
        elif c0.isspace() and c0 not in " \t":
            c = _prompt_command(line)
        else:
            c = None
        if c is not None and (not any(x.strip() for x in cur) or _is_boundary(line, cur)):
            flush()
            cmd = c or None
            bare = line.strip() if c and c == line.strip() and _reads_as_error(line) else None
            continue
        cur.append(line)
    flush()
    return segs


def _reads_as_error(line: str) -> bool:
    """Whether a line has an error word in it (failure_lines.toml's words)."""
    from .failure_lines import table

    return bool(table().word_rx.search(line))


def _is_boundary(line: str, cur: List[str]) -> bool:
    """In the middle of output, a line ends the segment when it is clearly a prompt (has a prompt
    character), or -- after a blank line -- a bare command line of a known tool with a pipe or an
    option (``lsmod | grep amdgpu``); ``rocminfo 6.4.1-1`` in a package list is not one."""
    if re.match(r"^\s*(?:\([^)]*\)\s*)?(?:[\w.\-]+@[\w.\-]+|\[[\w.\-]+@|~|/[\w/.\-]*\s*[$#]|\$|#|[❯➜])", line):
        return True
    if line[:1] in (" ", "\t") or not _BARE.match(line.strip()):
        return False
    if cur and cur[-1].strip():
        return False
    s = line.strip()
    return " | " in s or bool(re.search(r"\s--?[A-Za-z]", s)) or bool(re.fullmatch(r"(?:sudo\s+)?(?:/\S*/)?[\w.\-]+", s))


_HINTS_COMPILED: List[Tuple[re.Pattern, str]] = []


_HINT_OF: Dict[str, Optional[str]] = {}  # command -> its hint (a paste repeats its commands)


def _hint(cmd: Optional[str]) -> Optional[str]:
    if not cmd:
        return None
    if len(_HINTS_COMPILED) != len(_COMMAND_HINTS):
        _HINTS_COMPILED[:] = [(re.compile(rx), kind) for rx, kind in _COMMAND_HINTS]
        _HINT_OF.clear()
    got = _HINT_OF.get(cmd, _HINT_OF)
    if got is not _HINT_OF:
        return got  # type: ignore[return-value]
    c = cmd.strip()
    got = None
    for rx, kind in _HINTS_COMPILED:
        if rx.search(c):
            got = kind
            break
    if len(_HINT_OF) >= 4096:
        _HINT_OF.clear()
    _HINT_OF[cmd] = got
    return got


# Anchors of a parser (by module name): lower-case strings one of which a segment holds whenever
# that parser's looks_like() scores it above 0 -- each positive term of looks_like needs one of
# them in the (cleaned) text.  Without a command hint a parser that scores 0 changes nothing, so
# classify() does not ask a parser none of whose anchors is in the segment.  A parser not listed
# here is always asked.  With a hint, only a parser that cannot report the hinted kind is skipped.
# tests/detect/test_scan_equivalence.py holds classify() to the answers of
# classify(quick=False) on every real fixture and every listed parser to "0 without its anchors".
ANCHORS: Dict[str, Tuple[str, ...]] = {
    "rocminfo": ("rock module", "hsa ", "agent ", "name:", "device type:", "gfx"),
    "rocm_smi": ("rocm s", "gpu[", "concise info", "avgpwr", "ids"),
    "amd_smi": ("amdsmi tool", "gpu:", "market_name", "target_graphics_version", "kfd_id", "node_id", "asic",
                "vram:", "partition_id:", "fw_list", "fw_id:"),
    "lshw": ("*-", "description:", "product:", "vendor:", "bus info:", "physical id:", "capabilities:",
             "configuration:", "pci@", '"class"'),
    "apt_policy": ("installed:", "version table:", "package files:", "pinned packages:", "/dpkg/status", "packages"),
    "apt_prefs": ("pin-priority",),
    "apt_sources": ("deb", "types:", "uris:", "suites:", "components:", "signed-by:", "enabled:", "architectures:"),
    "dkms": ("installed", "built", "added", "broken"),
    "sysfs": ("simd_count", "gfx_target_version", "cpu_cores_count", "location_id", "drm_render_minor",
              "max_waves_per_simd", "num_xcc"),
    "opt_listing": (" mode", "link currently points to", "rocm-", "core-"),
}
# Anchors of a sure score: lower-case strings one of which a segment holds whenever that parser's
# looks_like() scores it THRESHOLD or more (its weaker terms, which only a command hint can make
# sure, need none of them); () when only a hint can make it sure.  recognize() needs only the kind,
# and without a hint a score below THRESHOLD never makes the kind: it does not ask a parser none of
# whose sure anchors is in the segment.  A parser not listed here has its ANCHORS.
# tests/detect/test_scan_equivalence.py holds recognize()'s kinds to classify(quick=False)'s and
# every listed parser to "below THRESHOLD without its sure anchors".
SURE_ANCHORS: Dict[str, Tuple[str, ...]] = {
    "rocm_version": ("rocm_version_major",),  # (a lone version line scores 0.3)
    "hipconfig": ("hip version", "hip_"),  # (a lone version line scores 0.3)
    "rocm_sdk": (),  # (0.3 at most)
    # KEY=value lines; a release line; lsb_release -a; hostnamectl's "Operating System"
    "os_release": ("=", "release", "distributor id", "description", "codename", "operating system"),
}
# The most a parser's looks_like() can score (read from its return statements: every one is a
# constant, a clamp() to 1.0 or a min() under this).  Parsers are asked in PARSERS order and a later
# score wins only when it is higher: once the best so far is at a parser's cap it cannot change the
# answer and is not asked (without a hint, and with one for a parser the hint gives nothing).  A
# parser not listed is always asked.  tests/detect/test_scan_equivalence.py holds every score on
# every fixture segment and near miss to its cap.
MAX_SCORE: Dict[str, float] = {
    "rocminfo": 1.0, "rocm_smi": 1.0, "amd_smi": 1.0, "lspci": 1.0, "lshw": 1.0, "lsmod": 1.0, "packages": 1.0,
    "dkms": 1.0, "apt_sources": 1.0, "apt_prefs": 1.0, "apt_policy": 1.0, "sysfs": 1.0, "rocm_version": 0.8,
    "hipconfig": 0.9, "rocm_sdk": 0.3, "opt_listing": 0.9, "os_release": 0.95, "uname": 0.95, "collect_env": 0.97,
    "pip_freeze": 0.95, "dmesg": 0.9, "error_log": 0.9,
}
_NO_CAP = float("inf")
# where the anchors cannot be trusted, every parser is asked: control characters (cleaning them
# away can join text) and the three characters that match an ASCII letter under re.I but do not
# lower-case to one
_UNSURE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u0130\u0131\u017f]")


_planned: Optional[Tuple[List[object], List[Tuple[object, Tuple[str, ...]]], list]] = None


def _plan() -> List[Tuple[object, Tuple[str, ...]]]:
    """``[(parser module, its anchors)]`` in :data:`PARSERS` order (rebuilt if the modules change)."""
    return _planned_for()[1]


def _planned_for() -> Tuple[List[object], List[Tuple[object, Tuple[str, ...]]], list]:
    """(modules, :func:`_plan`, ``[(module, anchors, sure anchors (None: never sure without a
    hint), looks_like, looks_like_above or None, its :data:`MAX_SCORE`)]``): what :func:`classify`
    and :func:`_kind` ask of every parser for every segment, looked up once."""
    global _planned
    if _loaded is None:
        parser_modules()
    mods = _loaded
    if _planned is None or _planned[0] is not mods:
        plan = [(m, ANCHORS.get(getattr(m, "__name__", "").rsplit(".", 1)[-1], ())) for m in mods or ()]
        fast = []
        for m, anchors in plan:
            sure = SURE_ANCHORS.get(getattr(m, "__name__", "").rsplit(".", 1)[-1], anchors)
            name = m.__name__.rsplit(".", 1)[-1]
            fast.append((m, anchors, sure if sure or name not in SURE_ANCHORS else None,
                         getattr(m, "looks_like"), getattr(m, "looks_like_above", None), MAX_SCORE.get(name, _NO_CAP)))
        _planned = (mods, plan, fast)
    return _planned


def _hint_foreign(mod: object, hint: str) -> bool:
    """Whether a command hint can change nothing for ``mod`` when it scores 0: the hint is none of
    the kinds it can report (a module with ``kind_of`` may report several: those its ``KINDS`` names,
    or any when it names none)."""
    if getattr(mod, "kind_of", None) is not None:
        kinds = getattr(mod, "KINDS", None)
        if not kinds:
            return False
        return not any(k == hint or _same_family(k, hint) for k in kinds)
    kind = getattr(mod, "KIND", None)
    return kind != hint and not _same_family(kind, hint)


# (s19-detgen) a lone bare version line ("12.7", "6.2.41133-dd7f95766", "6.8.0-45-generic") is a kernel release only
# where nothing says otherwise: under a typed command other than uname's ('$ cat /etc/debian_version',
# '$ hipconfig --version', '$ cat /opt/rocm/.info/version') it is that command's answer, not the kernel's
_BARE_LINE = re.compile(r"^\s*\d+\.\d+[0-9A-Za-z.+_~-]*\s*$")


def _other_commands_bare_line(kind: Optional[str], text: str, command: Optional[str]) -> bool:
    """Whether ``kind`` is uname's from a lone bare version line that answers another typed command."""
    return (kind == "uname" and bool(command) and _hint(command) != "uname"
            and "/proc/version" not in (command or "") and _BARE_LINE.match(text) is not None)


def classify(text: str, command: Optional[str] = None, quick: bool = True) -> Tuple[Optional[str], float]:
    """(kind, confidence) of one segment; (None, best score) when nothing is sure enough.
    ``quick=False`` asks every parser (the reference the tests compare the anchors against)."""
    got = _classify(text, command, quick)
    if _other_commands_bare_line(got[0], text, command):
        return None, 0.0
    return got


def _classify(text: str, command: Optional[str] = None, quick: bool = True) -> Tuple[Optional[str], float]:
    hint = _hint(command)
    best: Tuple[Optional[str], float] = (None, 0.0)
    hinted: Tuple[Optional[str], float] = (None, 0.0)
    low = text.lower() if quick and isinstance(text, str) and _UNSURE.search(text) is None else None
    if not hint and low is not None:
        return _classify_plain(text, low)
    plan = _plan()
    asked: Dict[int, Optional[Tuple[Optional[str], float]]] = {}
    if hint and quick:
        # Only a parser that can report the hinted kind can make ``hinted``, and once ``hinted``
        # is sure enough it is the answer whatever the others score: ask those parsers first, and
        # the others only when the hinted kind did not come out sure (their answers kept below).
        for i, (mod, _anchors) in enumerate(plan):
            if not _hint_foreign(mod, hint):
                asked[i] = got = _hinted_score(mod, text, hint)
                if got is not None and got[0] == hint and got[1] > hinted[1]:
                    hinted = got
        if hinted[1] >= THRESHOLD:
            return hinted[0], min(hinted[1], 1.0)
        hinted = (None, 0.0)
    for i, (mod, anchors) in enumerate(plan):
        if i in asked:
            got = asked[i]
            if got is None:
                continue
            kind, score = got
            if score > best[1]:
                best = (kind, score)
            if kind == hint and score > hinted[1]:
                hinted = (kind, score)
            continue
        if anchors and low is not None and (not hint or _hint_foreign(mod, hint)):
            for a in anchors:
                if a in low:
                    break
            else:
                continue  # its score would be 0: nothing below would change
        try:
            above = getattr(mod, "looks_like_above", None) if low is not None and not hint else None
            if above is not None:  # (no hint: a score at or below the best so far changes nothing)
                score = float(above(text, best[1]))
            else:
                score = float(mod.looks_like(text))  # type: ignore[attr-defined]
        except Exception:
            continue
        if not hint and not score > best[1]:
            continue  # the kind would change nothing below: do not work it out
        kind = _kind_of(mod, text)
        if hint and (kind == hint or getattr(mod, "KIND", None) == hint or _same_family(kind, hint)):
            score += 0.3
            if _same_family(kind, hint) and kind != hint and hint in _family(mod):
                kind = hint
        if score > best[1]:
            best = (kind, score)
        if hint and kind == hint and score > hinted[1]:
            hinted = (kind, score)
    # the command the user typed is strong evidence once the content does not contradict it
    if hinted[1] >= THRESHOLD:
        return hinted[0], min(hinted[1], 1.0)
    if best[1] >= THRESHOLD:
        return best[0], min(best[1], 1.0)
    if hint and text.strip() and hint in _SHORT_OUTPUT_HINTS:
        return hint, 0.4
    return None, best[1]


# the kinds whose output can be too short to recognise: the command hint alone names them
_SHORT_OUTPUT_HINTS = ("uname", "os-release", "dpkg-audit", "docker-version", "docker-images", "amd-smi-version",
                       "mokutil")

_FOREIGN: Dict[str, Tuple[object, Tuple[bool, ...]]] = {}  # hint -> (modules, _hint_foreign of each)


def _foreign_flags(hint: str) -> Tuple[bool, ...]:
    mods = _planned_for()[0]
    got = _FOREIGN.get(hint)
    if got is None or got[0] is not mods:
        got = _FOREIGN[hint] = (mods, tuple(_hint_foreign(m, hint) for m, _a in _plan()))
    return got[1]


def _kind_hinted(text: str, low: str, hint: str) -> Optional[str]:
    """``classify(text, command)[0]`` for a segment with a command hint whose anchors can be
    trusted (``low`` is its lower case), the kind alone.  As :func:`classify`: the parsers that can
    report the hinted kind first, the answer when the hinted kind comes out sure; else the best sure
    score of all.  Left out, as their scores cannot make the kind: a parser that can report the
    hinted kind but holds none of its anchors (0, and the hint's 0.3 is under THRESHOLD), and one
    that cannot report it and holds none of its sure anchors (:data:`SURE_ANCHORS`)."""
    fast = _planned_for()[2]
    foreign = _foreign_flags(hint)
    asked: List[Optional[Tuple[Optional[str], float]]] = [None] * len(fast)
    hinted_kind: Optional[str] = None
    hinted = 0.0
    for i, (mod, anchors, _sure, _looks, _above, _cap) in enumerate(fast):
        if foreign[i] or (anchors and not any(map(low.__contains__, anchors))):
            continue
        got = asked[i] = _hinted_score(mod, text, hint)
        if got is not None and got[0] == hint and got[1] > hinted:
            hinted_kind, hinted = got
    if hinted >= THRESHOLD:
        return hinted_kind
    # (the hinted kind stays under THRESHOLD below: only the parsers asked above can report it)
    best_kind: Optional[str] = None
    best = 0.0
    for i, (mod, _anchors, sure, looks, above, cap) in enumerate(fast):
        if not foreign[i]:
            got = asked[i]
            if got is not None and got[1] > best:
                best_kind, best = got
            continue
        if best >= cap:
            continue  # (no hint's 0.3 for it: it cannot score above the best so far)
        if sure is None or (sure and not any(map(low.__contains__, sure))):
            continue  # below THRESHOLD, and no hint's 0.3 for it: it cannot make the kind
        try:
            score = float(above(text, best)) if above is not None else float(looks(text))
        except Exception:
            continue
        if score > best:
            best_kind, best = _kind_of(mod, text), score
    if best >= THRESHOLD:
        return best_kind
    if text.strip() and hint in _SHORT_OUTPUT_HINTS:
        return hint
    return None


def _classify_plain(text: str, low: str, kind_only: bool = False) -> Tuple[Optional[str], float]:
    """:func:`classify` of a segment without a command hint whose anchors can be trusted (``low``
    is its lower case): the same steps as its loop takes then, with each parser's attributes
    looked up once (:func:`_planned_for`) rather than for every segment.  ``kind_only``: only the
    kind is right (a parser that cannot be sure, by :data:`SURE_ANCHORS`, is not asked)."""
    best_kind: Optional[str] = None
    best = 0.0
    for mod, anchors, sure, looks, above, cap in _planned_for()[2]:
        if best >= cap:
            continue  # it cannot score above the best so far
        if kind_only:
            if sure is None or (sure and not any(map(low.__contains__, sure))):
                continue  # below THRESHOLD: it cannot make the kind
        elif anchors and not any(map(low.__contains__, anchors)):
            continue  # its score would be 0: nothing below would change
        try:
            score = float(above(text, best)) if above is not None else float(looks(text))
        except Exception:
            continue
        if not score > best:
            continue  # the kind would change nothing: do not work it out
        best_kind, best = _kind_of(mod, text), score
    if best >= THRESHOLD:
        return best_kind, min(best, 1.0)
    return None, best


def _hinted_score(mod: object, text: str, hint: str) -> Optional[Tuple[Optional[str], float]]:
    """(kind, score) of a parser that can report the hinted kind, as :func:`classify`'s loop works
    them out with a hint; None when the parser failed."""
    try:
        score = float(mod.looks_like(text))  # type: ignore[attr-defined]
    except Exception:
        return None
    kind = _kind_of(mod, text)
    if kind == hint or getattr(mod, "KIND", None) == hint or _same_family(kind, hint):
        score += 0.3
        if _same_family(kind, hint) and kind != hint and hint in _family(mod):
            kind = hint
    return kind, score


def _kind_of(mod: object, text: str) -> Optional[str]:
    fn: Optional[Callable[[str], str]] = getattr(mod, "kind_of", None)
    if fn is not None:
        try:
            return fn(text) or getattr(mod, "KIND", None)
        except Exception:
            pass
    return getattr(mod, "KIND", None)


_FAMILIES: Tuple[Tuple[str, ...], ...] = (
    ("dpkg", "apt-list", "dnf-list"),
    ("amd-smi", "amd-smi-version"),
)


def _same_family(a: Optional[str], b: Optional[str]) -> bool:
    return any(a in f and b in f for f in _FAMILIES)


def _family(mod: object) -> Tuple[str, ...]:
    k = getattr(mod, "KIND", None)
    for f in _FAMILIES:
        if k in f:
            return f
    return (k,) if k else ()


def recognize(text: str, name: str = "paste", kinds: Optional[Dict[Tuple[Optional[str], str], Optional[str]]] = None
              ) -> List[Segment]:
    """Split ``text`` and classify every segment: ``[(kind, text, label)]``; ``kind`` is None for
    segments nothing recognised.  Never raises.

    ``kinds``: the kinds worked out so far, by (command hint, segment text) -- a segment's kind is a
    function of those two alone (:func:`_kind`) -- filled in as segments are classified; a segment
    seen before (the same output pasted twice, in one paste or in several files of a folder,
    :func:`recognize_many` passes one for all of them) is not classified again."""
    out: List[Segment] = []
    if kinds is None:
        kinds = {}
    try:
        segments = split(text)
    except Exception:
        segments = [("part 1", None, str(text))]
    # a segment's text is made of the paste's lines (or is one of them, stripped): where the paste
    # has no character that makes the anchors unsure, none of its segments has one
    sure = isinstance(text, str) and _UNSURE.search(text) is None
    if sure:  # (nor any control character or CR that the parsers' line cleaning would look for)
        from .parsers import _paste

        _paste.known_clean([body for _l, _c, body in segments])
    try:
        for label, cmd, body in segments:
            try:
                key = (_hint(cmd), body)
                if key in kinds:
                    kind = kinds[key]
                else:
                    kind = kinds[key] = _kind(body, cmd, sure)
            except Exception:
                kind = None
            out.append((kind, body, label))
    finally:
        if sure:
            _paste.known_clean()
    return out


def _kind(text: str, command: Optional[str], sure: bool = False) -> Optional[str]:
    """``classify(text, command)[0]``: the kind alone, which a segment without a command hint gets
    from the parsers that can be sure of it (:data:`SURE_ANCHORS`), and one with a hint from
    :func:`_kind_hinted`.  ``sure``: ``text`` is known to hold no :data:`_UNSURE` character."""
    kind = _kind_unchecked(text, command, sure)
    if _other_commands_bare_line(kind, text, command):
        return None
    return kind


def _kind_unchecked(text: str, command: Optional[str], sure: bool = False) -> Optional[str]:
    if isinstance(text, str) and (sure or _UNSURE.search(text) is None):
        hint = _hint(command)
        if hint:
            return _kind_hinted(text, text.lower(), hint)
        return _classify_plain(text, text.lower(), kind_only=True)[0]
    return classify(text, command)[0]


def kinds_present(segments: Sequence[Segment]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for kind, _t, _l in segments:
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    return counts


# -- many pastes at once --------------------------------------------------------------------------
# A folder of pastes is recognised file by file, and each file's answer depends on that file alone.
# From this many characters on (and with a second CPU free, fork, and no other thread), the files are
# shared with one forked worker: it recognises its share while this process does the rest, and sends
# its answers back through a pipe (marshal: strings and None only; pickle for recognize_many_also's
# extra answers, read only from this process's own fork).  The answers are the same, in
# the same order; a worker that fails, or sends anything short, leaves its files to this process.
# Below the threshold (a paste, a bug report's few files) nothing is forked.
PARALLEL_MIN_CHARS = 1024 * 1024
# the kind of a later function asked once of the list of all the texts (see recognize_many_also; also
# the key of its answer, ``_forked.WHOLE``)
WHOLE = "\0whole"
# the kind of a later function asked of every distinct text, like one of no kind, whose answers the worker sends one
# frame per text, in order (``_forked.Pending`` reads a text's frame as soon as it is there): for a function whose
# caller asks the texts in order and may stop early (the errors probe's scans, up to its cap), so the first texts'
# answers do not wait for the last ones'
EACH = "\0each"
# "1": never fork (a benchmark's CPU figure of one process); "2": fork whatever the load average says
# (a benchmark of the worker on a busy machine)
_ENV_JOBS = "ROCM_WIZARD_RECOGNIZE_JOBS"


def recognize_many(named: Sequence[Tuple[str, str]]) -> List[List[Segment]]:
    """``[recognize(text, name) for name, text in named]``, shared with a forked worker when the
    texts are large (:data:`PARALLEL_MIN_CHARS`) and this process may fork."""
    return recognize_many_also(named)[0]


def recognize_many_also(named: Sequence[Tuple[str, str]], also: Optional[Callable[[str], object]] = None,
                        also_share: float = 0.0, later: Sequence[tuple] = ()
                        ) -> Tuple[List[List[Segment]], Dict[str, object]]:
    """(:func:`recognize_many`'s answer, ``{text: also(text)}`` for each distinct text when the
    worker was forked, else ``{}``).  ``also`` is work the caller does on every text later anyway
    (a pure function of the text whose answer pickles to an equal one): each side works it out for
    the distinct texts of its own share of the files (this process once it has recognised its
    files, while the worker ends its share), and the caller keeps the answers instead of working
    them out.  Both sides' work then goes with their characters, however much the recogniser's
    kinds of segments seen before save, and the files are shared by characters alone:
    ``also_share`` (``also``'s cost per character as a share of recognising's, which weighed the
    worker's share when it worked ``also`` out for every text) is not used.

    ``later``: ``(name, function)`` pairs of the same sort, for work the caller does after the
    recognising (the probes that follow): the worker works each out on every distinct text once it
    has sent its share, while this process goes on, and :func:`rocm_wizard.detect._forked.answer`
    (``worked_out``) reads them when asked -- by then the worker is mostly done.  A triple
    ``(name, function, kind)`` is asked of each of the worker's own segments of that kind instead
    (a parser the probes run on every segment of the kind: this process parses its own share); with
    the kind :data:`WHOLE`, the function is asked once of the list of all the texts, in order
    (``_forked.worked_out_whole``); with the kind :data:`EACH`, of every distinct text as without a kind, but
    each text's answer is a frame of its own (the caller may take the first texts' before the last are worked out)."""
    from . import _forked

    _forked.drop()  # (a worker of an earlier call still held: its answers are not for these texts)
    named = list(named)
    if _may_fork(named):
        got = _recognize_forked(named, also, also_share, later)
        if got is not None:
            return got
    kinds: Dict[Tuple[Optional[str], str], Optional[str]] = {}  # (one for all the files: see recognize)
    return [recognize(text, name, kinds) for name, text in named], {}


def _may_fork(named: Sequence[Tuple[str, str]]) -> bool:
    import os
    import threading

    jobs = os.environ.get(_ENV_JOBS, "").strip()
    if len(named) < 2 or jobs == "1" or not hasattr(os, "fork"):
        return False
    if sum(len(t) if isinstance(t, str) else 0 for _n, t in named) < PARALLEL_MIN_CHARS:
        return False
    # (forking a process with other threads copies their locks in whatever state they are)
    return threading.active_count() == 1 and _cpu_free(ignore_load=jobs == "2")


def _cpu_free(ignore_load: bool = False) -> bool:
    """Whether a second CPU is there and free, by the load average of the last minute or by the
    tasks running right now: on a machine whose CPUs are all busy a worker takes turns with this
    process (and pays for what it copies) rather than running beside it, so nothing is forked.
    (The average alone lags: for a minute after a burst of other work -- or of this command's own
    runs one after the other -- it still says busy while the CPUs are idle.)"""
    import os

    try:
        cpus = len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    if cpus < 2:
        return False
    if ignore_load:
        return True
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return True
    if load <= cpus - 1:
        return True
    running = _running_now()
    return running is not None and running - 1 <= cpus - 2  # (this process is one of them)


def _running_now() -> Optional[int]:
    """The tasks running or ready to run on the whole machine right now, this one included (the
    fourth field of Linux's /proc/loadavg, "running/total"), or None where it cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            field = fh.read(256).split()[3]
        return int(field.split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return None


def _shares(named: Sequence[Tuple[str, str]], head_start: float = 0.0) -> Tuple[List[int], List[int]]:
    """(indexes this process recognises, the worker's): the largest text first to the side with
    fewer characters so far (the worker starting with ``head_start`` characters' worth of other
    work)."""
    mine: List[int] = []
    theirs: List[int] = []
    load = [0.0, head_start]
    for i in sorted(range(len(named)), key=lambda k: -len(named[k][1])):
        side = 0 if load[0] <= load[1] else 1
        (mine if side == 0 else theirs).append(i)
        load[side] += len(named[i][1])
    return sorted(mine), sorted(theirs)


def _recognize_forked(named: Sequence[Tuple[str, str]], also: Optional[Callable[[str], object]] = None,
                      also_share: float = 0.0, later: Sequence[tuple] = ()
                      ) -> Optional[Tuple[List[List[Segment]], Dict[str, object]]]:
    import marshal
    import os
    import pickle

    from . import _forked

    distinct: List[int] = []  # (the first file of each distinct text: ``also`` is asked once per text)
    if also is not None or later:
        seen_texts: Dict[str, int] = {}
        for i, (_n, t) in enumerate(named):
            if t not in seen_texts:
                seen_texts[t] = i
                distinct.append(i)
    mine, theirs = _shares(named)
    if not theirs or not mine:
        return None
    # ``also`` of each distinct text on the side that has its first file
    theirs_set = set(theirs)
    also_theirs = [i for i in distinct if i in theirs_set] if also is not None else []
    also_mine = [i for i in distinct if i not in theirs_set] if also is not None else []
    out: List[Optional[List[Segment]]] = [None] * len(named)
    # the segments' kinds by command hint and text, for all the files (see recognize; the worker
    # starts with a copy of what this process worked out before the fork)
    kinds: Dict[Tuple[Optional[str], str], Optional[str]] = {}
    # this process's smallest file before the fork: the patterns compiled on first use (the
    # recogniser's, the parsers', the error table's needle index) are then the worker's too, not
    # compiled twice
    first = min(mine, key=lambda k: len(named[k][1]))
    mine = [first] + [i for i in mine if i != first]
    out[first] = recognize(named[first][1], named[first][0], kinds)
    try:
        rfd, wfd = os.pipe()
    except OSError:
        for i in mine[1:] + theirs:
            out[i] = recognize(named[i][1], named[i][0], kinds)
        return out, {}  # type: ignore[return-value]
    try:
        pid = os.fork()
    except OSError:
        os.close(rfd)
        os.close(wfd)
        pid = -1
    if pid < 0:  # (no worker: all here)
        for i in mine[1:] + theirs:
            out[i] = recognize(named[i][1], named[i][0], kinds)
        return out, {}  # type: ignore[return-value]
    if pid == 0:  # the worker: its share, written to the pipe, then gone without running anything else
        status = 1
        try:
            import gc

            # (a collection would walk, and so copy, every page of objects it shares with this process)
            gc.disable()
            os.close(rfd)
            found = [recognize(named[i][1], named[i][0], kinds) for i in theirs]
            segs = marshal.dumps(found)
            extra = pickle.dumps([also(named[i][1]) for i in also_theirs] if also is not None else [], 4)
            _write_all(wfd, len(segs).to_bytes(8, "big") + len(extra).to_bytes(8, "big") + segs + extra)
            status = 0
            # then each later function on its texts, one frame each, in the order given (one that
            # fails ends the frames: this process works the rest out itself)
            for spec in later:
                if len(spec) > 2 and spec[2] == EACH:
                    for text in _later_texts(spec, named, distinct, found):
                        body = pickle.dumps([spec[1](text)], 4)
                        _write_all(wfd, len(body).to_bytes(8, "big") + body)
                    continue
                if len(spec) > 2 and spec[2] == WHOLE:
                    body = pickle.dumps([spec[1]([t for _n, t in named])], 4)
                else:
                    body = pickle.dumps(answers_each(spec[1], _later_texts(spec, named, distinct, found)), 4)
                _write_all(wfd, len(body).to_bytes(8, "big") + body)
        except BaseException:
            pass
        finally:
            os._exit(status)
    os.close(wfd)
    got = None
    extras: object = None
    read = False
    data: Optional[bytes] = None
    own: Dict[str, Dict[str, List[object]]] = {}
    also_here: Optional[Dict[str, object]] = {}
    try:
        for i in mine[1:]:
            out[i] = recognize(named[i][1], named[i][0], kinds)
        # the later functions of a kind on this process's own segments of it, while the worker ends
        # its share (the probes ask them of every segment of the kind; the worker does its own)
        own = _own_answers(later, [out[i] for i in mine])  # type: ignore[misc]
        if also is not None:  # (this side's texts, while the worker works out its own)
            try:
                also_here = {named[i][1]: also(named[i][1]) for i in also_mine}
            except Exception:
                also_here = None  # (then none is kept: the caller works them all out, as without a worker)
        _forked._idle_until_ready(rfd)  # (what this process would do later anyway, while the worker ends its share)
        head = _read_exactly(rfd, 16)
        if head is not None:
            size, extra_size = int.from_bytes(head[:8], "big"), int.from_bytes(head[8:], "big")
            data = _read_exactly(rfd, size + extra_size)
        read = True
    finally:
        if not read:  # (interrupted here: the worker's answers are not wanted any more)
            _forked.Pending(pid, rfd).end()
    if data is not None:
        try:
            got = marshal.loads(data[:size])
            extras = pickle.loads(data[size:])  # (what this process's own fork wrote)
        except Exception:
            got = extras = None
    ok = isinstance(got, list) and len(got) == len(theirs)
    pending = _forked.Pending(pid, rfd, _frames(later, named, distinct, got) if ok else (), own,
                              [t for _n, t in named] if any(len(s) > 2 and s[2] == WHOLE for s in later) else None)
    if not ok:
        pending.end()
        got = [recognize(named[i][1], named[i][0], kinds) for i in theirs]  # (the worker failed: done here)
        extras = None
    elif later:
        _forked.hold(pending)  # (the worker goes on with the later functions)
    else:
        pending.end(kill=False)
    for i, segs in zip(theirs, got):
        out[i] = [tuple(s) for s in segs]  # type: ignore[misc]
    also_got: Dict[str, object] = {}
    if also_here is not None and isinstance(extras, list) and len(extras) == len(also_theirs):
        also_got = dict(also_here)
        also_got.update({named[i][1]: value for i, value in zip(also_theirs, extras)})
    return out, also_got  # type: ignore[return-value]


def _later_texts(spec: Sequence[object], named: Sequence[Tuple[str, str]], distinct: Sequence[int],
                 found: Sequence[Sequence[Segment]]) -> List[str]:
    """The texts a later function ``(name, function[, kind])`` is asked of, in order: every distinct
    text, or with a kind the worker's own segments of that kind (``found``: its share's answers)."""
    kind = spec[2] if len(spec) > 2 else None
    if kind == WHOLE:
        return [WHOLE]  # (the key _forked answers it by: the same string)
    if kind is None or kind == EACH:
        return [named[i][1] for i in distinct]
    return [text for segs in found for k, text, _label in segs if k == kind]


def _frames(later: Sequence[tuple], named: Sequence[Tuple[str, str]], distinct: Sequence[int],
            found: Sequence[Sequence[Segment]]) -> List[Tuple[str, List[str]]]:
    """``[(name, texts)]`` of each frame the worker sends after its share, in order: a frame per later function,
    or per text for one of the kind :data:`EACH`."""
    frames: List[Tuple[str, List[str]]] = []
    for spec in later:
        texts = _later_texts(spec, named, distinct, found)
        if len(spec) > 2 and spec[2] == EACH:
            frames.extend((spec[0], [text]) for text in texts)
        else:
            frames.append((spec[0], texts))
    return frames


def _own_answers(later: Sequence[tuple], found: Sequence[Sequence[Segment]]) -> Dict[str, Dict[str, List[object]]]:
    """``{name: {text: [answer, ...]}}`` of each later function of a kind on the segments of that kind
    in ``found`` (this process's share), in order; a text whose function fails is left out (asked
    later, it fails there as it would have)."""
    own: Dict[str, Dict[str, List[object]]] = {}
    for spec in later:
        if len(spec) < 3 or spec[2] is None or spec[2] == WHOLE or spec[2] == EACH:
            continue
        answers = own.setdefault(spec[0], {})
        for segs in found:
            for k, text, _label in segs:
                if k == spec[2]:
                    got = answers.get(text)
                    value = _copied(got[0]) if got else _NO_COPY  # (a repeated segment: see answers_each)
                    if value is _NO_COPY:
                        try:
                            value = spec[1](text)
                        except Exception:
                            continue
                    answers.setdefault(text, []).append(value)
    return own


_NO_COPY = object()


def _copied(value: object) -> object:
    """A copy of ``value`` that shares no object with it (pickle's round trip), or :data:`_NO_COPY`
    where it cannot be copied so."""
    import pickle

    try:
        return pickle.loads(pickle.dumps(value, 4))
    except Exception:
        return _NO_COPY


def answers_each(fn: Callable[[str], object], texts: Sequence[str]) -> List[object]:
    """``[fn(t) for t in texts]``, ``fn`` (a pure function of the text whose answer pickles to an equal
    one, as the later functions are) asked once per distinct text: a repeated text -- the same
    output pasted twice, in one paste or in several files -- gets a copy of the first answer,
    made before anything sees it, so that no two answers share an object, as when each is worked
    out (copying a parse costs a fraction of parsing; where it fails, ``fn`` is asked again)."""
    out: List[object] = []
    first: Dict[str, int] = {}
    for t in texts:
        i = first.get(t) if isinstance(t, str) else None
        value = _copied(out[i]) if i is not None else _NO_COPY
        if value is _NO_COPY:
            value = fn(t)
            if isinstance(t, str) and t not in first:
                first[t] = len(out)
        out.append(value)
    return out


def _write_all(fd: int, data: bytes) -> None:
    import os

    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:1 << 20]):]


def _read_exactly(fd: int, size: int) -> Optional[bytes]:
    """``size`` bytes of the pipe ``fd``, or None where it ends first."""
    import os

    chunks: List[bytes] = []
    have = 0
    while have < size:
        b = os.read(fd, min(size - have, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        have += len(b)
    return b"".join(chunks)
