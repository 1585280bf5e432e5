"""The one sanitiser for text that came from outside and is about to reach a terminal.

rocm-wizard runs as root and prints what users paste, what files and tools on the machine say,
and what a smoke test's interpreter writes.  Any of it may hold terminal control sequences: a
colour code is harmless, but OSC 52 writes the clipboard, OSC 0/2 set the window title, OSC 8
hides a link behind text, DCS/APC talk to the terminal, ``\\r`` and backspaces overwrite what was
printed.  :func:`clean` removes every one of them:

* CSI (``ESC [`` or 8-bit ``\\x9b``) with its parameters;
* OSC, DCS, SOS, PM and APC (``ESC ] P X ^ _`` or their 8-bit forms) up to BEL / ST, or to the end
  of the line when unterminated;
* every other escape sequence, a lone ESC, the C1 controls (U+0080-U+009F), DEL, and the C0
  controls except tab and newline (``\\r\\n`` becomes ``\\n``; other ``\\r`` go).

It is linear in the length of the text (no backtracking pattern) and returns plain text: what
was inside a string sequence (a title, a clipboard payload) is dropped with it.  JSON output keeps
its own escaping; :func:`json_c1` makes ``json.dumps(..., ensure_ascii=False)`` escape the C1
controls too.  Standard library only (headless paths import this).
"""
from __future__ import annotations

import re

# OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \ or 8-bit ST); unterminated: to line end
_STRING_SEQ = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
# CSI: parameter bytes, intermediate bytes, final byte (7-bit and 8-bit introducer)
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
# any other escape sequence (nF / Fp / Fe / Fs) or a lone ESC
_ESC = r"\x1b[ -/]*[0-~]?"
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"
_SEQ = re.compile("|".join((_STRING_SEQ, _CSI, _ESC, _CONTROL)))
_ANY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_C1 = {c: "\\u%04x" % c for c in range(0x7F, 0xA0)}


def clean(text: object) -> str:
    """``text`` (anything; ``None`` -> ``""``) without terminal control sequences or control
    characters other than tab and newline."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = text.decode("utf-8", "replace") if isinstance(text, (bytes, bytearray)) else str(text)
    if _ANY.search(text) is None:  # the common case: nothing to do
        return text
    return _SEQ.sub("", text.replace("\r\n", "\n"))


def clean_line(text: object) -> str:
    """:func:`clean`, and newlines and tabs turned into spaces (a table cell, a title)."""
    return clean(text).replace("\n", " ").replace("\t", " ")


def clean_tree(value: object) -> object:
    """A copy of parsed JSON (dicts, lists, scalars) with every string -- keys too -- cleaned.
    Recursive: give it documents read with :func:`rocm_wizard.limits.loads_json` (depth-bounded)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_tree(v) for v in value]
    return value


def json_c1(json_text: str) -> str:
    """JSON text from ``json.dumps(..., ensure_ascii=False)`` with DEL and the C1 controls escaped
    as well (``json`` escapes only U+0000-U+001F; a raw U+009B is a CSI to some terminals).  Those
    characters can only occur inside JSON strings, so the result is the same document."""
    return json_text.translate(_C1) if _C1_RE.search(json_text) else json_text


_C1_RE = re.compile(r"[\x7f-\x9f]")
