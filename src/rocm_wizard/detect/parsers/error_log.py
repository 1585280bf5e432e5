"""Error output users paste: Python tracebacks, HIP/ROCclr logs (``AMD_LOG_LEVEL``), HSA errors,
runtime aborts.

:func:`parse` gives the final exception (type and message), whether a traceback or AMD runtime
log lines are present, and the known error signatures found (see
:mod:`rocm_wizard.detect.error_signatures`, the single table of them).
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from .. import error_signatures
from ._core_text import lazy, lines

KIND = "error-log"

_TRACEBACK = lazy(r"^\s*Traceback \(most recent call last\):")
_FRAME = lazy(r'^\s*File "[^"]+", line \d+')
_EXC = lazy(r"^(?P<type>(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit))(?::\s?(?P<msg>.*))?$")
_AMD_LOG = lazy(r"^:\d:[\w.]+\s*:\s*\d+\s*:\s*\d+ us:")
_HSA = lazy(r"HSA_STATUS_ERROR_\w+|HSA Error Found|hsa api call failure")
_ABORT_WORDS = ("core dumped", "Aborted", "Segmentation fault", "terminate called after throwing")
_ABORT = lazy(r"\b(" + "|".join(_ABORT_WORDS) + r")\b")


@lean_dataclass
class ErrorLog:
    """What a pasted error log holds: known errors, exceptions, AMD log lines."""

    exception: Optional[str] = None  # "RuntimeError"
    message: Optional[str] = None  # the exception's message
    traceback: bool = False
    amd_log: bool = False  # AMD_LOG_LEVEL runtime lines
    hsa_error: bool = False
    aborted: bool = False
    signatures: List[str] = field(default_factory=list)  # ids from error_signatures, in order
    lines: List[str] = field(default_factory=list)  # the matching lines, same order

    @property
    def ok(self) -> bool:
        return bool(self.exception or self.signatures or self.traceback or self.amd_log or self.hsa_error)


def looks_like(text: object) -> float:
    return looks_like_above(text, -1.0)


def looks_like_above(text: object, floor: float) -> float:
    """:func:`looks_like` where it is above ``floor``; at or below ``floor`` when it is (the
    recogniser asks this way once another parser scored ``floor``: the slower checks, whose
    scores could not beat it, are left out)."""
    if not isinstance(text, str) or not text.strip():
        return 0.0
    head = text[:64 * 1024]
    if "Traceback (most recent call last)" in head:
        return 0.9
    score = 0.0
    if ":1:" in head or ":3:" in head or ":4:" in head:
        amd = sum(1 for l in lines(head) if l[:1] == ":" and _AMD_LOG.match(l))
        if amd >= 2:
            return 0.85
    if "HSA" in head and _HSA.search(head):
        return 0.7
    tail = text[-2000:]
    if ("Error" in tail or "Exception" in tail) and any(_EXC.match(l.strip()) for l in lines(tail)[-20:]):
        score = 0.5
    if score < 0.45 and floor < 0.45 and len(text) <= 4096 and error_signatures.any_match(text):
        score = 0.45  # a short paste of just a known error line
    if score < 0.3 and floor < 0.3 and any(w in head for w in _ABORT_WORDS) and _ABORT.search(head):
        score = 0.3
    return score


def parse(text: object) -> ErrorLog:
    res = ErrorLog()
    ls = lines(text)
    for line in ls:
        s = line.strip()
        if _TRACEBACK.match(s):
            res.traceback = True
        elif _AMD_LOG.match(s):
            res.amd_log = True
        if _HSA.search(s):
            res.hsa_error = True
        if _ABORT.search(s):
            res.aborted = True
        m = _EXC.match(s)
        if m and not _FRAME.match(line):
            res.exception = m.group("type")
            res.message = (m.group("msg") or "").strip() or None
    if isinstance(text, str):
        for sig, line in error_signatures.scan(text):
            res.signatures.append(sig.id)
            res.lines.append(line)
    return res
