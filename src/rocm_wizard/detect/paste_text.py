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
escaped line breaks 765, behind Docker Compose's column 825, a CI runner's stamps 829, kubectl's pod
prefix 821.

:func:`normalise` undoes what can be undone without guessing: it maps the Unicode space and quote
characters to their ASCII forms (and drops zero-width ones), decodes the few HTML entities a plain
text would hold, strips reply quote marks ("> ", nested too; not a Python prompt ">>>") and the prefixes
log collectors put before each line (a CI log's or ``docker logs -t``'s RFC 3339 stamp, BuildKit's step,
``kubectl logs --prefix``'s pod, Docker Compose's container column), and splits a line that carries
three or more escaped line breaks.  What cannot be undone without guessing is not rewritten: a
hard-wrapped paste is read a second time by the failure catalogue with its wrapped lines joined
(:func:`unwrapped`), as a few journal lines of a service among other text are without journalctl's prefix
(:func:`journal_messages`), each hit given back as pasted; a service's journal pasted whole loses the prefix
(:func:`_strip_journal`); lines that lost their breaks are read as they are.
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
_BY_CHAR = {chr(c): (r or "") for c, r in _TABLE.items()}  # (a sub over the few matches: str.translate reads every char)

# the entities an over-escaped plain text holds (HTML's five and the no-break space, named or numbered)
_ENTITY = re.compile(r"&(quot|apos|amp|lt|gt|nbsp|#0*(?:34|39|38|60|62|160)|#[xX]0*(?:22|27|26|3[cCeE]|[aA]0));")
_ENTITIES = {"quot": '"', "apos": "'", "amp": "&", "lt": "<", "gt": ">", "nbsp": " "}

# a reply's quote marks at the start of a line: each '>' followed by a blank or the line's end (so a
# Python prompt '>>> ' and a merge marker '>>>>>>>' stay), nested ones too, after at most 3 blanks
_QUOTE = re.compile(r"\n[ \t]{0,3}(?:>(?:[ \t]|(?=\n)))+")
# (every line-start pattern here is read on "\n" + text and begins with that "\n": a literal the regex engine finds by a
# fast scan, where "^" under re.M is tried at every position -- a third of the time on a 5 MB folder)

# escaped characters inside a line that carries a whole output (a JSON string, a Python repr)
_ESCAPE = re.compile(r"\\(r\\n|[nrt\"'\\])")
_ESCAPES = {"n": "\n", "r\\n": "\n", "r": "", "t": "\t", '"': '"', "'": "'", "\\": "\\"}
_WINDOWS_PATH = re.compile(r"(?<![A-Za-z])[A-Za-z]:\\\\?[A-Za-z_$]")
_ESCAPED_BREAKS = 3


# the prefixes a log collector puts before every line of a program's output, stripped so the line starts as the
# program printed it: a timestamp in RFC 3339 (GitHub Actions' raw logs, 'docker logs -t', 'kubectl logs
# --timestamps': '2025-01-02T03:04:05.6789012Z '), but not journalctl -o short-iso's, whose host and process name
# after it say whose line it is (the kernel's); BuildKit's plain progress ('#12 5.217 ', moby/buildkit
# util/progress/progressui/printer.go); 'kubectl logs --prefix' ('[pod/<name>/<container>] ', kubectl's logs command);
# Docker Compose's container column ('<service>-1  | ', docker/compose's log printer: the container's name, which ends in
# its replica number, padded to the longest one, then '|'), taken only when it is on most lines of the text
#: the stamp and the BuildKit step as alternatives of a pattern (parsers/paste_facts.py reads single-line facts after them)
STAMP_OR_STEP = (r"#\d{1,4} \d{1,6}\.\d{1,3} |\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d) "
                 r"(?![\w.-]{1,64} (?:[\w.@/-]{1,64}\[\d{1,9}\]|kernel): )")
_PREFIX_ALTERNATIVES = STAMP_OR_STEP + r"|\[(?:pod|deployment|job|statefulset|daemonset|replicaset)/[^\]\s]{1,253}\] "
_LINE_PREFIX = re.compile(r"\n(?:" + _PREFIX_ALTERNATIVES + ")")
# (one pass: kubectl's prefix before its stamp, Compose's before a program's RFC 3339 stamp)
_LINE_PREFIXES = re.compile(r"\n(?:" + _PREFIX_ALTERNATIVES + "){1,3}")
_COMPOSE = re.compile(r"\n[A-Za-z0-9][\w.-]{0,80}[-_]\d{1,3}[ \t]{1,40}\|(?: |(?=\n))")


def _strip_collectors(nl_text: str) -> str:
    """``nl_text`` ("\n" + a text) without the collectors' prefixes."""
    if " |" in nl_text:
        compose = len(_COMPOSE.findall(nl_text))
        if compose >= 3 and 2 * compose >= nl_text.count("\n") - nl_text.count("\n\n"):
            nl_text = _COMPOSE.sub("\n", nl_text)
    return _LINE_PREFIXES.sub("\n", nl_text)


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
    if not text.isascii():
        # (each character present replaced at once: a page's no-break spaces can be most of its characters)
        for ch in set(_NON_ASCII.findall(text)):
            text = text.replace(ch, _BY_CHAR[ch])
    if "&" in text and _ENTITY.search(text):
        text = _ENTITY.sub(_entity, text)
    nl_text = "\n" + text
    changed = False
    if ">" in text and _QUOTE.search(nl_text):
        nl_text, changed = _QUOTE.sub("\n", nl_text), True
    if _LINE_PREFIX.search(nl_text) or (" |" in text and _COMPOSE.search(nl_text)):
        nl_text, changed = _strip_collectors(nl_text), True
    if "]: " in text:
        stripped = _strip_journal(nl_text)
        if stripped is not None:
            nl_text, changed = stripped, True
    if changed:
        text = nl_text[1:]
    if "\\n" in text:
        text = "\n".join(_unescape_line(line) if "\\n" in line else line for line in text.split("\n"))
    return text


# journalctl's prefix of a line a service (not the kernel) wrote: syslog's stamp (journalctl's default short format,
# the month as the locale names it: "Mar 01", "avril 30"; or -o short-iso's RFC 3339 one), the host, the process name
# and its pid (systemd src/shared/logs-show.c, output_short: "<timestamp> <hostname> <identifier>[<pid>]: <message>")
_JOURNAL_SERVICE = re.compile(
    r"(?:[^\W\d_]{3,9}\.? {1,2}\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)) "
    r"[\w.-]{1,64} (?!kernel:)[\w.@/-]{1,64}\[\d{1,9}\]: ")
_JOURNAL_AT_LINE = re.compile(r"\n" + _JOURNAL_SERVICE.pattern)


# (s25) a service's journal pasted whole (journalctl -u NAME, journalctl -b filtered to a service, systemd-coredump's
# report as the journal holds it): at least this many lines carry the prefix, and they are at least half of the
# non-blank lines (a paste of mostly other text keeps its few journal lines as pasted: journal_messages reads them)
_JOURNAL_MIN_LINES = 3


def _strip_journal(nl_text: str) -> "str | None":
    """``nl_text`` ("\n" + a text) with journalctl's prefix taken off the lines a service wrote, when such lines are most
    of the text (see above); else None.  A multi-line output a service logged (a Python traceback, a backtrace's frames,
    a tool's report) then starts each line as the program printed it, for every reader: the recogniser, the parsers,
    the catch-all.  The kernel's lines keep their prefix (the kernel log's readers take it)."""
    hits = len(_JOURNAL_AT_LINE.findall(nl_text))
    if hits < _JOURNAL_MIN_LINES:
        return None
    lines = nl_text.count("\n") - nl_text.count("\n\n")
    if 2 * hits < lines:
        return None
    return _JOURNAL_AT_LINE.sub("\n", nl_text)


def journal_messages(text: str) -> "str | None":
    """The lines of ``text`` a service wrote, with journalctl's prefix taken off, line for line (every other line left
    empty: the kernel's lines and the rest were read as pasted already), or None when no line has the prefix: what the
    failure catalogue's rows read, which quote the service's own message from its start.  The text as pasted keeps
    the prefix: the process it names tells the workload and the layer."""
    if not text or "]: " not in text or not _JOURNAL_AT_LINE.search("\n" + text):
        return None
    out = []
    for line in text.split("\n"):
        m = _JOURNAL_SERVICE.match(line) if "]: " in line else None
        out.append(line[m.end():] if m else "")
    return "\n".join(out)


# a hard-wrapped paste (a narrow terminal's copy, a mail wrapped at its width): many lines exactly as long as the
# longest, each continued on the next line.  At least this wide, and this many lines at that width
_WRAP_MIN_WIDTH = 60
_WRAP_MIN_LINES = 2
_TABLE_END = frozenset("=-|+*#_~")


def unwrapped(text: str) -> "str | None":
    """``text`` with each line of the paste's widest length joined to the line after it (that line and every line not
    joined left empty, so line N of the result is still line N of ``text``), or None when the paste does not look hard-wrapped: its widest lines
    are narrower than 60 columns, fewer than two, or a table's (one repeated character, a rule or a cell's edge at the
    end).  What the failure catalogue reads a second time (probes/errors.py), its hits given back as pasted: a wrapped
    line's break can fall anywhere, so the text itself is never rewritten."""
    if not text or len(text) < _WRAP_MIN_WIDTH * _WRAP_MIN_LINES:
        return None
    lines = text.split("\n")
    width = max(len(line) for line in lines)
    if width < _WRAP_MIN_WIDTH:
        return None
    wide = [i for i, line in enumerate(lines)
            if len(line) == width and line[-1] not in _TABLE_END and len(set(line.strip())) > 2]
    if len(wide) < _WRAP_MIN_LINES:
        return None
    out = list(lines)
    joined = set()
    for i in reversed(wide):  # (from the end: a line wrapped twice is joined whole)
        if i + 1 < len(out) and out[i + 1].strip():
            out[i] = out[i] + out[i + 1]
            out[i + 1] = ""
            joined.add(i)
    # (the other lines left empty: they were read as pasted already)
    return "\n".join(line if i in joined else "" for i, line in enumerate(out))
