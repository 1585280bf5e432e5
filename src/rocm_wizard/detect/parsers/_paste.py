"""Shared clean-up of pasted tool output, used by the GPU / ROCm parsers.

Users paste outputs with CRLF line ends, markdown fences (sometimes glued to the end of a line),
tmux copy-mode scroll markers (``[391/1815]`` right-aligned after a run of spaces), a uniform
indentation added by a blog or notebook, tabs turned into spaces and Unicode replacement characters.
:func:`clean_lines` undoes what can be undone without guessing; parsers then work line by line and
ignore what they do not understand.  Nothing here raises.
"""
from __future__ import annotations

import functools
import re
from typing import Dict, List, Optional, Sequence, Tuple

from ...termsafe import clean
from ._core_text import lazy

# a tmux copy-mode position marker ("[391/1815]"), right-aligned after at least 4 blanks: found by
# _strip_tmux_mark() from the line's end (a pattern searched from every blank is quadratic)
_TMUX_BODY = lazy(r"\d+/\d+")
_FENCE_LINE = lazy(r"^\s*(```|~~~)[\w+-]*\s*$")
_FENCE_TAIL = lazy(r"\s*```\s*$")

HEX4 = lazy(r"^(?:0x)?([0-9a-fA-F]{1,4})$")
BDF_RE = lazy(r"(?:(?P<dom>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2}):(?P<dev>[0-9a-fA-F]{2})\.(?P<fn>[0-7])\b")

# Every parser's ``looks_like`` cleans the same segment while a paste is recognised, and its
# ``parse`` cleans it again: the result for the last few texts is kept (texts up to this size
# only, so that the cache never holds more than a few MiB).
CACHE_MAX_CHARS = 1024 * 1024


# Texts known to hold no control character and no CR (by identity: {id: text}): the segments of a
# paste in which the recogniser found none (``recognize._UNSURE`` holds every character clean() and
# the line-end fix act on), while it asks the parsers about them.  _clean does not look for those
# characters in them again (clean() would give the text back).  Set and cleared by recognize().
_KNOWN_CLEAN: Dict[int, str] = {}


def known_clean(texts: Sequence[str] = ()) -> None:
    """Take ``texts`` as holding no control character and no CR from now on (none: forget them)."""
    _KNOWN_CLEAN.clear()
    for t in texts:
        if isinstance(t, str):
            _KNOWN_CLEAN[id(t)] = t


def clean_lines(text: object, dedent: bool = True) -> List[str]:
    """Lines of ``text`` with paste artefacts removed (trailing blanks kept out, fences dropped)."""
    if isinstance(text, str) and len(text) <= CACHE_MAX_CHARS:
        return list(_clean_cached(text, bool(dedent)))
    return _clean(text, dedent)


@functools.lru_cache(maxsize=16)
def _clean_cached(text: str, dedent: bool) -> Tuple[str, ...]:
    return tuple(_clean(text, dedent))


def _clean(text: object, dedent: bool) -> List[str]:
    if text is None:
        return []
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        text = str(text)
    # terminal sequences and control characters go (termsafe keeps tab and newline; a lone \r
    # is a line end here)
    if _KNOWN_CLEAN.get(id(text)) is not text:
        text = clean(text.replace("\r\n", "\n").replace("\r", "\n"))
    fences = "```" in text or "~~~" in text
    marks = "]" in text
    out: List[str]
    if not fences:  # (then no line holds ``` either: what is left per line is the tmux mark)
        if marks:
            out = [(_strip_tmux_mark(line) if "]" in line and line.rstrip().endswith("]") else line).rstrip()
                   for line in text.split("\n")]
        else:
            out = [line.rstrip() for line in text.split("\n")]
        if ">" in text:
            out = _unquote(out)
        return _dedent(out) if dedent else out
    out = []
    for line in text.split("\n"):
        # the substring tests are necessary conditions of the patterns: most lines skip them
        if fences and ("```" in line or "~~~" in line) and _FENCE_LINE.match(line):
            continue
        if marks and "]" in line and line.rstrip().endswith("]"):  # (_strip_tmux_mark keeps any other line)
            line = _strip_tmux_mark(line)
        if "```" in line:
            line = _FENCE_TAIL.sub("", line)
        out.append(line.rstrip())
    if ">" in text:
        out = _unquote(out)
    if dedent:
        out = _dedent(out)
    return out


def _unquote(lines: List[str]) -> List[str]:
    """A paste quoted in an e-mail or a Markdown reply (every non-blank line starts with '>'):
    the lines without their quote marks (nested ones too)."""
    if not all(l.lstrip().startswith(">") for l in lines if l.strip()) or not any(l.strip() for l in lines):
        return lines
    if any(l.lstrip().startswith(">>>") for l in lines):  # a Python prompt, not a quote
        return lines
    out = []
    for l in lines:
        s = l.lstrip()
        # (each '>' and one space after it; one match, not a slice per mark: a line of a million marks is linear)
        s = s[_QUOTE_MARKS.match(s).end():]
        out.append(s.rstrip())
    return out


_QUOTE_MARKS = re.compile(r"(?:> ?)*")


def _strip_tmux_mark(line: str) -> str:
    t = line.rstrip()
    if not t.endswith("]"):
        return line
    i = t.rfind("[")
    if i < 4 or not _TMUX_BODY.fullmatch(t, i + 1, len(t) - 1):
        return line
    head = t[:i].rstrip()
    return head if i - len(head) >= 4 else line


def _dedent(lines: List[str]) -> List[str]:
    common = -1
    for l in lines:
        if l[:1] != " " and l.strip():
            return lines  # a line without indent: nothing to take off (most pastes, found early)
        if l.strip():
            indent = len(l) - len(l.lstrip(" "))
            common = indent if common < 0 else min(common, indent)
    if common <= 0:
        return lines
    return [l[common:] if l.strip() else "" for l in lines]


def norm_hex(value: object, width: int = 4) -> Optional[str]:
    """``"0x744C"`` / ``"744c"`` / ``29822`` (int) -> ``"744c"``; anything else -> None."""
    if value is None:
        return None
    if isinstance(value, int):
        if value < 0 or value >= 16 ** width:
            return None
        return "%0*x" % (width, value)
    v = str(value).strip().lower()
    if v.startswith("0x"):
        v = v[2:]
    if not v or len(v) > width or any(c not in "0123456789abcdef" for c in v):
        return None
    return v.zfill(width)


def norm_bdf(value: object) -> Optional[str]:
    """``"0000:2F:00.0"`` / ``"03:00.0"`` / ``"pci@0000:83:00.0"`` -> ``"0000:2f:00.0"`` (domain
    0000 assumed when missing)."""
    if value is None:
        return None
    m = BDF_RE.search(str(value))
    if not m:
        return None
    dom = (m.group("dom") or "0000").lower()
    dom = dom[-4:] if len(dom) > 4 and set(dom[:-4]) <= {"0"} else dom
    return "%s:%s:%s.%s" % (dom, m.group("bus").lower(), m.group("dev").lower(), m.group("fn"))


def bdf_from_bdfid(value: object) -> Optional[str]:
    """rocminfo ``BDFID`` (bus << 8 | device << 3 | function) -> ``"0000:bb:dd.f"``; 0 -> None
    (0 is what CPU agents print)."""
    try:
        n = int(str(value).strip().split("(")[0])
    except (TypeError, ValueError):
        return None
    if n <= 0 or n > 0xFFFFFFFF:
        return None
    dom, low = divmod(n, 1 << 16)
    bus, devfn = divmod(low, 256)
    dev, fn = divmod(devfn, 8)
    return "%04x:%02x:%02x.%d" % (dom, bus, dev, fn)


def int_or_none(value: object) -> Optional[int]:
    """Leading integer of ``"29822(0x747e)"`` / ``"16760832(0xffc000) KB"`` / ``"0x10"``."""
    if value is None:
        return None
    s = str(value).strip()
    m = re.match(r"^(0x[0-9a-fA-F]+|-?\d+)", s)
    if not m:
        return None
    try:
        return int(m.group(1), 0) if m.group(1).startswith("0x") else int(m.group(1))
    except ValueError:
        return None


def clamp(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x
