"""Keep secrets out of logs: credentials in URLs, values of secret-looking options and variables.

Applied to every argv, command output line and message before it is logged or printed.
"""
from __future__ import annotations

import re
from typing import List, Sequence

MASK = "***"

_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/\s@:]+)(?::[^/\s@]*)?@")
_SECRET_WORD = r"(?:password|passwd|passphrase|token|secret|api[-_]?key|access[-_]?key|private[-_]?key|auth|credential)"
_ASSIGN = re.compile(r"(?i)\b([A-Za-z0-9_.-]*" + _SECRET_WORD + r"[A-Za-z0-9_.-]*)(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|\S+)")
_OPTION = re.compile(r"(?i)^--?[a-z0-9-]*" + _SECRET_WORD + r"[a-z0-9-]*$")
_HEADER = re.compile(r"(?i)\b(authorization|proxy-authorization)(\s*:\s*)(\S+\s+)?\S+")


def redact(text: str) -> str:
    """``text`` with credentials masked (never raises)."""
    if not text:
        return text
    try:
        out = _URL_USERINFO.sub(lambda m: m.group(1) + MASK + "@", text)
        out = _HEADER.sub(lambda m: m.group(1) + m.group(2) + MASK, out)
        out = _ASSIGN.sub(lambda m: m.group(1) + m.group(2) + MASK, out)
        return out
    except (TypeError, re.error):  # pragma: no cover - defensive
        return MASK


def redact_argv(argv: Sequence[str]) -> List[str]:
    """An argv with secret option values (``--token X``, ``--password=X``) and URL credentials masked."""
    out: List[str] = []
    hide_next = False
    for arg in argv:
        arg = str(arg)
        if hide_next:
            out.append(MASK)
            hide_next = False
            continue
        name, eq, _value = arg.partition("=")
        if _OPTION.match(name):
            if eq:
                out.append(name + "=" + MASK)
            else:
                out.append(arg)
                hide_next = True
            continue
        out.append(redact(arg))
    return out
