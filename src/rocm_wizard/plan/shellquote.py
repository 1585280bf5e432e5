"""Quoting for generated bash: every value that reaches the script goes through :func:`q`."""
from __future__ import annotations

import re
import shlex
from typing import Iterable

from ..termsafe import clean

# control characters other than tab and newline (C0, DEL, C1): never written raw into a script
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def q(value: object) -> str:
    """One shell word that stands for exactly ``value`` (single quotes; a newline, ``$()``, a
    backtick or a quote inside stay literal).  A value with terminal control characters in it (a
    venv named ``$'\\e]52;...'``) is written as ``$'...'`` with those bytes escaped, so that the
    script, ``cat`` of it and bash's own error messages never carry a raw escape sequence."""
    text = str(value)
    if "\x00" in text:
        raise ValueError("a NUL byte cannot be passed to a shell command")
    if _CONTROL.search(text):
        return _ansi_c(text)
    return shlex.quote(text)


def _ansi_c(text: str) -> str:
    out = []
    for b in text.encode("utf-8", "surrogateescape"):
        c = chr(b)
        if c in "\\'":
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\x%02x" % b)
    return "$'" + "".join(out) + "'"


def qlist(values: Iterable[object]) -> str:
    return " ".join(q(v) for v in values)


def comment(text: object) -> str:
    """Text safe inside a ``#`` comment line: terminal sequences removed (:mod:`rocm_wizard.termsafe`),
    and what is left of line breaks (a newline would end the comment and start a command) and
    other unprintable characters replaced."""
    return "".join(c if (c.isprintable() and c not in "\r\n\x0b\x0c") else "?" for c in clean(text))
