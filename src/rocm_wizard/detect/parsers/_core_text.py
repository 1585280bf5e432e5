"""Small text helpers shared by the os / uname / collect_env / pip / dmesg / error-log parsers.

Pasted text arrives with Windows line ends, terminal prompts (``$ uname -a``,
``root@host ~# cat /etc/os-release``), markdown fences and odd padding; these helpers smooth
that over.  Nothing here raises on any string.
"""
from __future__ import annotations

import functools
import re
import threading
from typing import Dict, List, Optional, Tuple

class LazyRe:
    """A regular expression compiled on first use: parsers that never see their kind of text
    never pay for compiling their patterns (``re.compile`` dominates import time otherwise).

    Once compiled, the pattern's methods (``match``, ``search``...) are the compiled pattern's own
    bound methods, kept on the instance: a call costs what a call on a compiled pattern costs."""

    _BOUND = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._rx = None

    def get(self):
        rx = self._rx
        if rx is None:
            rx = re.compile(self.pattern, self.flags)
            for name in LazyRe._BOUND:
                setattr(self, name, getattr(rx, name))
            self._rx = rx
        return rx

    def __getattr__(self, name: str):
        # the first call of match/search/... and anything else a compiled pattern offers
        # (groupindex, groups, scanner...)
        if name.startswith("__") or name in ("pattern", "flags", "_rx"):
            raise AttributeError(name)
        return getattr(self.get(), name)


def lazy(pattern: str, flags: int = 0) -> LazyRe:
    return LazyRe(pattern, flags)


class LazyModule:
    """A module imported on first attribute use: a probe that reads pasted text only through a
    parser (``paste_facts``, ``issue_form``, ``lshw``...) does not import it on a live system that
    has no such text.  ``importlib.import_module`` holds the import lock, so probes in threads
    import it once."""

    def __init__(self, name: str) -> None:
        self.__dict__["_name"] = name

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        import importlib

        mod = importlib.import_module(self.__dict__["_name"])
        return getattr(mod, attr)


def lazy_module(name: str) -> LazyModule:
    return LazyModule(name)


# A shell prompt followed by a command: "$ cmd", "# cmd", "user@host:~$ cmd", "root@hs2 ~# cmd",
# "(venv) user@host:~/x$ cmd", "PS> cmd" is not Linux and is ignored.
_PROMPT = lazy(
    r"^\s*(?:\([^)]{1,60}\)\s*)?"  # (venv) prefix
    r"(?:(?P<user>[\w.-]{1,32})@(?P<host>[\w.-]{1,64})[:\s][^$#\n]{0,120}?\s*)?"  # user@host:path
    r"[$#%>]\s+(?P<cmd>\S.*)$"
)
# (s10-heldz) a Markdown fence, not the error-location line under a Python 3.11+ traceback frame
# ("    ~~~~~~~~^^", tildes then carets: Lib/traceback.py), which a tilde fence would otherwise take
_FENCE = lazy(r"^\s*(```|~~~(?![~^]*\^))")


# The lower case of the last long texts asked for: a paste's whole text is lowered by several
# probes (single-line facts, workloads, the error scans, WSL's driver lines) one after the other.
# Kept by the text object itself (the entry holds it, so its id is not reused), at most
# _LOWER_KEEP_CHARS characters of texts in all.
_LOWER_MIN_CHARS = 64 * 1024
_LOWER_KEEP_CHARS = 16 * 1024 * 1024
_lowered: Dict[int, Tuple[str, str]] = {}
_lowered_lock = threading.Lock()


def lowered(text: str) -> str:
    """``text.lower()``, computed once for a long text that several scans lower in turn."""
    if len(text) < _LOWER_MIN_CHARS or type(text) is not str:
        return text.lower()
    with _lowered_lock:
        got = _lowered.get(id(text))
        if got is not None and got[0] is text:
            return got[1]
    low = text.lower()
    if len(text) <= _LOWER_KEEP_CHARS:
        with _lowered_lock:
            held = sum(len(t) for t, _l in _lowered.values())
            while _lowered and held + len(text) > _LOWER_KEEP_CHARS:
                old = _lowered.pop(next(iter(_lowered)))
                held -= len(old[0])
            _lowered[id(text)] = (text, low)
    return low


def lines(text: object) -> List[str]:
    """The text split into lines without line ends; anything not a string gives ``[]``."""
    if not isinstance(text, str):
        return []
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def prompt_command(line: str) -> Optional[str]:
    """The command of a shell-prompt line (``$ uname -a`` -> ``uname -a``), else None."""
    if "$" not in line and "#" not in line and "%" not in line and ">" not in line:
        return None  # the prompt character the pattern needs
    m = _PROMPT.match(line)
    if not m:
        return None
    return m.group("cmd").strip()


def prompt_host(line: str) -> Optional[str]:
    m = _PROMPT.match(line)
    return m.group("host") if m else None


def content_lines(text: object, limit: Optional[int] = None) -> List[str]:
    """Lines without prompt lines, markdown fences and blank lines, right-stripped (the first
    ``limit`` of them when a limit is given)."""
    if limit is not None and limit <= 0:
        return []
    if isinstance(text, str) and len(text) <= _CACHE_MAX_CHARS:
        # several parsers ask for the same segment's lines while a paste is recognised
        full = _content_cached(text)
        return list(full if limit is None else full[:limit])
    return _content(text, limit)


_CACHE_MAX_CHARS = 64 * 1024


@functools.lru_cache(maxsize=16)
def _content_cached(text: str) -> Tuple[str, ...]:
    return tuple(_content(text, None))


# a kernel log line behind a markdown quote marker ('> [    3.163722] ...'): the quoted output, not a command
# typed at a '>' prompt (no command starts with a dmesg stamp)
_QUOTED_KERNEL_LOG = lazy(r"^\s*>\s*(?P<log>\[\s*\d+\.\d+\]\s.*)$")


def _content(text: object, limit: Optional[int]) -> List[str]:
    out: List[str] = []
    for line in lines(text):
        if not line.strip() or (("`" in line or "~" in line) and _FENCE.match(line)):
            continue
        quoted = _QUOTED_KERNEL_LOG.match(line) if ">" in line else None
        if quoted is not None:
            line = quoted.group("log")
        elif ("$" in line or "#" in line or "%" in line or ">" in line) and prompt_command(line) is not None:
            continue
        out.append(line.rstrip())
        if limit is not None and len(out) >= limit:
            break
    return out


def unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1]
        v = re.sub(r"\\(.)", r"\1", v)
    return v



# characters that match an ASCII letter under re.I but do not lower-case to one (U+0130 and U+0131
# match i, U+017F s, the Kelvin sign k): where one is in a text, anchors looked up in its lower-cased
# copy could miss a match (error_signatures._ODD_CASE's characters and the Kelvin sign)
_ODD_CASE_CHARS = ("\u0130", "\u0131", "\u017f", "\u212a")


def anchored_finditer(rx, text: str, anchors: Tuple[str, ...], words_before: int = 0,
                      lines_before: Optional[int] = None):
    """``rx.finditer(text)``, the same matches in the same order, found by trying ``rx`` only next to
    the places where one of ``anchors`` stands, rather than at every character: for a pattern every
    match of which contains one of ``anchors`` (lower case when ``rx`` ignores case: looked up in
    the text's lower case) and begins at most ``words_before`` words before it -- that is, the text
    from the match's start to the anchor is whitespace and at most that many runs of other
    characters -- or, with ``lines_before``, on the anchor's line or at most that many lines above.
    At each anchor, ``rx.match`` is tried at every place from that bound to the anchor (what the
    pattern sees around the place -- ``\\b``, ``^``, look-behinds -- is the whole text, as in
    ``finditer``), and the first match is the next one ``finditer`` gives: a match that started
    before the bound would hold more words (lines) than the pattern allows, and one that starts
    further on holds a later anchor.  Falls back to ``rx.finditer`` where the lower case is not
    character for character (or could miss a match: :data:`_ODD_CASE_CHARS`).  Linear: each
    place is tried once per anchor whose span reaches it."""
    if not isinstance(text, str) or not text:
        return
    hay = text
    if rx.flags & re.IGNORECASE:
        hay = lowered(text)
        if len(hay) != len(text) or any(c in text for c in _ODD_CASE_CHARS):
            yield from rx.finditer(text)
            return
    finds = [(hay.find(a), a) for a in anchors]
    match = rx.match
    pos = 0
    size = len(text)
    while pos <= size:
        # the next anchor at or after pos
        i = -1
        for k, (at, a) in enumerate(finds):
            if 0 <= at < pos:
                at = hay.find(a, pos)
                finds[k] = (at, a)
            if at >= 0 and (i < 0 or at < i):
                i = at
        if i < 0:
            return
        q = i
        if lines_before is not None:
            q = text.rfind("\n", 0, q) + 1
            for _ in range(lines_before):
                if q <= pos:
                    break
                q = text.rfind("\n", 0, q - 1) + 1
        else:
            while q > pos and text[q - 1].isspace():
                q -= 1
            for _ in range(words_before):
                while q > pos and not text[q - 1].isspace():
                    q -= 1
                while q > pos and text[q - 1].isspace():
                    q -= 1
        if q < pos:
            q = pos
        got = None
        for s in range(q, i + 1):
            got = match(text, s)
            if got is not None:
                break
        if got is None:
            pos = i + 1
            continue
        yield got
        pos = got.end() if got.end() > got.start() else got.end() + 1


def line_spans_with(text: str, needles: Tuple[str, ...]):
    """``(start, end)`` of each line of ``text`` (``"\\n"`` ends a line; ``end`` is that newline's
    place or the text's end) that holds one of the literal ``needles``, in order, each line once:
    what a loop over ``text.split("\\n")`` that skips the lines holding none of them looks at, found
    by ``str.find`` over the whole text rather than a Python step per line."""
    starts = set()
    for needle in needles:
        i = text.find(needle)
        while i >= 0:
            starts.add(text.rfind("\n", 0, i) + 1)
            end = text.find("\n", i)
            if end < 0:
                break
            i = text.find(needle, end)
    size = len(text)
    for start in sorted(starts):
        end = text.find("\n", start)
        yield start, (end if end >= 0 else size)
