"""Errors probe: known error texts in pasted logs, tool outputs and the kernel log.

Every text is scanned with the patterns of :mod:`rocm_wizard.detect.error_signatures` (the one
table of them); each hit becomes an :class:`~rocm_wizard.model.ErrorSighting` with the signature
id, the matching line and where it came from.  On a live system the kernel log is ``dmesg`` (often
not readable without root: then a note says so).
"""
from __future__ import annotations

from typing import List, Set, Tuple

from ...model import ErrorSighting, System, WorkloadSighting
from .. import error_signatures
from ..parsers import workloads as p_workloads
from ..sources import Source
from ._core_util import ok_outputs, pastes, run

MAX_SIGHTINGS = 100
DMESG_ARGV = ["dmesg"]


def probe(source: Source, system: System) -> None:
    texts: List[Tuple[str, str]] = []
    seen_text: Set[int] = set()

    def add(text: str, label: str) -> None:
        key = hash(text)
        if key in seen_text:
            return
        seen_text.add(key)
        texts.append((text, label))

    for name, text in pastes(source):
        add(text, "paste:%s" % name)
    for kind in ("error-log", "dmesg", "collect_env"):
        for raw in ok_outputs(source, kind):
            add(raw.text, raw.source)
    kraw = run(source, DMESG_ARGV)
    if kraw.ok and kraw.text.strip():
        add(kraw.text, kraw.source)
    elif kraw.error and "disabled" not in kraw.error and "not in snapshot" not in kraw.error:
        system.note("the kernel log could not be read (%s); run as root to include amdgpu messages" % kraw.error)

    have = {w.id for w in system.workloads}
    for text, label in texts:
        for wid, line in p_workloads.scan(text):
            if wid not in have:
                have.add(wid)
                ws = WorkloadSighting()
                ws.put("id", wid, label)
                ws.put("line", line, label)
                system.workloads.append(ws)
    seen: Set[Tuple[str, str]] = set()
    for text, label in texts:
        for sig, line in error_signatures.scan(text):
            key = (sig.id, line)
            if key in seen:
                continue
            seen.add(key)
            es = ErrorSighting()
            es.put("signature", sig.id, "catalog:error_signatures#" + sig.id)
            es.put("text", line[:500], label)
            system.errors.append(es)
            if len(system.errors) >= MAX_SIGHTINGS:
                system.note("more than %d error lines; the rest were not listed" % MAX_SIGHTINGS)
                return
