"""Quoting for generated bash: every value that reaches the script goes through :func:`q`."""
from __future__ import annotations

import shlex
from typing import Iterable


def q(value: object) -> str:
    """One shell word that stands for exactly ``value`` (single quotes; a newline, ``$()``, a
    backtick or a quote inside stay literal)."""
    text = str(value)
    if "\x00" in text:
        raise ValueError("a NUL byte cannot be passed to a shell command")
    return shlex.quote(text)


def qlist(values: Iterable[object]) -> str:
    return " ".join(q(v) for v in values)


def comment(text: object) -> str:
    """Text safe inside a ``#`` comment line: control characters (a newline would end the
    comment and start a command) are replaced."""
    return "".join(c if (c.isprintable() and c not in "\r\n\x0b\x0c") else "?" for c in str(text))
