"""A pasted text as the site it was copied from carried it, brought back to what the program printed.

A log copied out of a web page, a chat, a mail or a word processor is rarely the bytes the terminal
showed: HTML renders runs of spaces as no-break spaces (U+00A0) and a copy keeps them; typographers
(Discourse's and markdown-it's, Word's, macOS's) turn straight quotes into curly ones and "..." into
an ellipsis outside code blocks; an archive that escaped the text once too often leaves ``&quot;``,
``&#39;``, ``&lt;`` and ``&gt;``; a reply quotes each line with "> "; a JSON log or a Python
``repr`` of a process's output carries its lines as one line with ``\\n`` inside.  Every pattern of
the catalogue, every detection parser and the catch-all read the printed form (``'gfx1100'``, a
colon after a word and one space, a line that starts with the program's own prefix), so each of
these leaves a known failure unread.  Measured on the labelled real fixtures re-rendered each of
these ways (``scripts/paste_renderings.py``, before this module): with no-break spaces doctor placed 480 of 910 failing
fixtures at their layer instead of 851; curly quotes 811, HTML entities 806, quoted lines 831,
escaped line breaks 765.

:func:`normalise` undoes what can be undone without guessing: it maps the Unicode space and quote
characters to their ASCII forms (and drops zero-width ones), decodes the few HTML entities a plain
text would hold, strips reply quote marks ("> ", nested too; not a Python prompt ">>>"), and splits
a line that carries three or more escaped line breaks.  What cannot be undone is left: a line that
was hard-wrapped at a width, or lines that lost their breaks, are read as they are.
"""
from __future__ import annotations

import re

# The Unicode spaces a web page, chat or word processor puts where a terminal printed ASCII spaces
# (U+00A0 no-break, U+2000-U+200A the typographic ones, U+202F narrow no-break, U+205F, U+3000 the
# ideographic one, U+1680) and the zero-width characters a copy carries along (U+200B-U+200D, U+2060,
# U+FEFF); typographic quotes (U+2018-U+201F, the primes U+2032/U+2033) and the ellipsis U+2026; the
# fullwidth forms of ASCII (U+FF01-U+FF5E) an East Asian input method writes ("RuntimeError\uff1a").
_TABLE = {c: " " for c in (0x00A0, 0x1680, 0x202F, 0x205F, 0x3000, *range(0x2000, 0x200B))}
_TABLE.update({c: None for c in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF)})
_TABLE.update({c: "'" for c in (0x2018, 0x2019, 0x201A, 0x201B, 0x2032)})
_TABLE.update({c: '"' for c in (0x201C, 0x201D, 0x201E, 0x201F, 0x2033)})
_TABLE[0x2026] = "..."
# (the Unicode line and paragraph separators a rich-text copy ends lines with)
_TABLE.update({0x2028: "\n", 0x2029: "\n"})
_TABLE.update({c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)})
_NON_ASCII = re.compile("[%s]" % "".join("\\u%04x" % c for c in sorted(_TABLE)))

# the entities an over-escaped plain text holds (HTML's five and the no-break space, named or numbered)
_ENTITY = re.compile(r"&(quot|apos|amp|lt|gt|nbsp|#0*(?:34|39|38|60|62|160)|#[xX]0*(?:22|27|26|3[cCeE]|[aA]0));")
_ENTITIES = {"quot": '"', "apos": "'", "amp": "&", "lt": "<", "gt": ">", "nbsp": " "}

# a reply's quote marks at the start of a line: each '>' followed by a blank or the line's end (so a
# Python prompt '>>> ' and a merge marker '>>>>>>>' stay), nested ones too, after at most 3 blanks
_QUOTE = re.compile(r"^[ \t]{0,3}(?:>(?:[ \t]|$))+", re.M)

# escaped characters inside a line that carries a whole output (a JSON string, a Python repr)
_ESCAPE = re.compile(r"\\(r\\n|[nrt\"'\\])")
_ESCAPES = {"n": "\n", "r\\n": "\n", "r": "", "t": "\t", '"': '"', "'": "'", "\\": "\\"}
_WINDOWS_PATH = re.compile(r"(?<![A-Za-z])[A-Za-z]:\\\\?[A-Za-z_$]")
_ESCAPED_BREAKS = 3


def _entity(m: "re.Match[str]") -> str:
    name = m.group(1)
    if name[0] != "#":
        return _ENTITIES[name]
    return chr(int(name[2:], 16) if name[1] in "xX" else int(name[1:]))


def _unescape_line(line: str) -> str:
    if line.count("\\n") < _ESCAPED_BREAKS or _WINDOWS_PATH.search(line):
        return line
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], line)


def normalise(text: str) -> str:
    """``text`` with the renderings above undone (the same text when it has none of them)."""
    if not text:
        return text
    if not text.isascii() and _NON_ASCII.search(text):
        text = text.translate(_TABLE)
    if "&" in text and _ENTITY.search(text):
        text = _ENTITY.sub(_entity, text)
    if ">" in text and _QUOTE.search(text):
        text = _QUOTE.sub("", text)
    if "\\n" in text:
        text = "\n".join(_unescape_line(line) if "\\n" in line else line for line in text.split("\n"))
    return text
