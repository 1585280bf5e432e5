"""Shared clean-up of pasted tool output, used by the GPU / ROCm parsers.

Users paste outputs with CRLF line ends, markdown fences (sometimes glued to the end of a line),
tmux copy-mode scroll markers (``[391/1815]`` right-aligned after a run of spaces), a uniform
indentation added by a blog or notebook, tabs turned into spaces and Unicode replacement characters.
:func:`clean_lines` undoes what can be undone without guessing; parsers then work line by line and
ignore what they do not understand.  Nothing here raises.
"""
from __future__ import annotations

import re
from typing import List, Optional

# a tmux copy-mode position marker, right-aligned after at least 4 spaces
_TMUX_MARK = re.compile(r"\s{4,}\[\d+/\d+\]\s*$")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")
_FENCE_TAIL = re.compile(r"\s*```\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

HEX4 = re.compile(r"^(?:0x)?([0-9a-fA-F]{1,4})$")
BDF_RE = re.compile(r"(?:(?P<dom>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2}):(?P<dev>[0-9a-fA-F]{2})\.(?P<fn>[0-7])\b")


def clean_lines(text: object, dedent: bool = True) -> List[str]:
    """Lines of ``text`` with paste artefacts removed (trailing blanks kept out, fences dropped)."""
    if text is None:
        return []
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        text = str(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    out: List[str] = []
    for line in text.split("\n"):
        if _FENCE_LINE.match(line):
            continue
        line = _TMUX_MARK.sub("", line)
        if "```" in line:
            line = _FENCE_TAIL.sub("", line)
        out.append(line.rstrip())
    if dedent:
        out = _dedent(out)
    return out


def _dedent(lines: List[str]) -> List[str]:
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    if not indents:
        return lines
    common = min(indents)
    if common == 0:
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
