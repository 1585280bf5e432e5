"""Errors probe: known error texts in pasted logs, tool outputs and the kernel log.

Every text is scanned with the patterns of :mod:`rocm_wizard.detect.error_signatures` (the one
table of them); each hit becomes an :class:`~rocm_wizard.model.ErrorSighting` with the signature
id, the matching line, where it came from and its layer of the stack.  A line that reads as an
error but that no known text matches becomes an ``unrecognised`` sighting with its layer
(:mod:`rocm_wizard.detect.failure_lines`): nothing that looks like a failure is dropped.  On a live
system the kernel log is ``dmesg`` (often not readable without root: then a note says so).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ...model import ErrorSighting, ReleaseChange, System, WorkloadSighting
from .. import failure_lines
from ..parsers import workloads as p_workloads
from ..parsers._core_text import lazy_module
from ..sources import Source
from .._forked import worked_out
from ._core_util import ok_outputs, paste_label, pastes, run

# the table of the known error texts: scanned through its shipped index (error_index), which loads
# and compiles only the signatures one of whose needles a text holds; the whole table is loaded only
# where that index is out of date or the table is loaded already
error_index = lazy_module("rocm_wizard.detect.error_index")
# (s13-heldbb) the known error texts as programs print them under another locale (loaded on the first paste)
translations = lazy_module("rocm_wizard.detect.translations")
paste_text = lazy_module("rocm_wizard.detect.paste_text")

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
        for wid, line in worked_out("workloads", p_workloads.scan, text):
            if wid not in have:
                have.add(wid)
                ws = WorkloadSighting()
                ws.put("id", wid, label)
                ws.put("line", line, label)
                system.workloads.append(ws)
    _releases(source, system, texts)
    seen: Set[Tuple[str, str]] = set()
    known_lines: List[str] = []
    for text, label in texts:
        hits, named, more = worked_out("known_errors", known_in, text)
        if label.startswith("paste:"):
            # (s13-heldbb) a paste printed under another locale: the known errors its translated messages hide
            # (glibc's loader and strerror texts, translations.toml), each with its line as pasted
            if more is None:
                more = [(hit, _NOT_NAMED) for hit in _hidden_known(text, hits)]
            hits, named = list(hits) + [hit for hit, _n in more], list(named) + [n for _h, n in more]
        for (sig_id, layer, line), line_layer in zip(hits, named):
            key = (sig_id, line)
            if key in seen:
                continue
            seen.add(key)
            if sig_id not in _CONTEXT_ONLY:
                known_lines.append(line)
            es = ErrorSighting()
            es.put("signature", sig_id, "catalog:error_signatures#" + sig_id)
            es.put("text", line[:500], label)
            first = failure_lines.summary_layer(text, line) if sig_id in failure_lines.SUMMARY_ROWS else None
            if first is not None:  # (s19-libmore) a build's summary line: the layer of the first compiler error above it
                es.put("layer", first, "catalog:failure_lines#first-error")
            elif layer is not None:  # a catalogue row knows its layer
                es.put("layer", layer, "catalog:failures#" + sig_id)
            else:
                es.put("layer", failure_lines.layer_of(line, _kind_of(label)) if line_layer is _NOT_NAMED
                       else failure_lines.with_kind(line_layer, _kind_of(label)), "catalog:failure_lines")
            system.errors.append(es)
            if len(system.errors) >= MAX_SIGHTINGS:
                system.note("more than %d error lines; the rest were not listed" % MAX_SIGHTINGS)
                return
    _unrecognised(source, system, texts, known_lines)


_NOT_NAMED = object()  # (a known error line whose named layer is still to be worked out)
# (s21) rows that tell where the stack runs, not that it failed: the WSL build's banner or source path, a VM's
# hypervisor line.  A line they quote stays the catch-all's to read -- the WSL build's own assertion ("python3:
# ./sources/wsl/libhsakmt/src/topology.cpp:613: ... Assertion ... failed.", fixture 2622) is a failure whether or not
# the WSL rule, which needs more facts, reports it; a banner line reads as no failure and is not shown
_CONTEXT_ONLY = frozenset({"wsl_runtime", "vm_guest"})


def known_in(text: str, translated: bool = False) -> Tuple[list, List[object], Optional[list]]:
    """(``error_index.scan(text)``: the known error lines of ``text`` as ``(signature, layer, line)``; for each, the
    layer the line names itself where its row has none -- ``failure_lines.named_layer``, the costly part of
    ``layer_of`` -- else None; with ``translated``, ``[(hit, its named layer)]`` of the known errors its translated
    messages hide -- ``translations.known_lines``, what the probe reads in a paste --, else None): one answer, pure in
    the text, that a forked worker of the recogniser works out for each paste, a frame each (bundle._LATER), while
    this process goes on."""
    hits = error_index.scan(text)
    named: List[object] = [failure_lines.named_layer(line) if layer is None else None for _sig, layer, line in hits]
    more = None
    if translated:
        more = [(hit, failure_lines.named_layer(hit[2]) if hit[1] is None else None)
                for hit in _hidden_known(text, hits)]
    return hits, named, more


def _hidden_known(text: str, hits: list) -> list:
    """The known errors a paste's translated messages hide (translations.toml), then those a journal's service prefix
    hides from rows that quote the service's message from its start (s20: paste_text.journal_messages), then those a
    hard wrap cut in two (paste_text.unwrapped), each with its line as pasted, none twice."""
    out = translations.known_lines(text, error_index.scan, hits)
    out += translations.known_lines(text, error_index.scan, list(hits) + out, rewrite=paste_text.journal_messages)
    # (s20) a hard-wrapped paste read with its wrapped lines joined (paste_text.unwrapped), as pasted
    return out + translations.known_lines(text, error_index.scan, list(hits) + out, rewrite=paste_text.unwrapped)


# kinds of pasted segments that are a tool's own output (no prose, no package listing, no DKMS line):
# the release readers skip them (a 5 MB folder is mostly kernel logs and tool outputs)
_NO_RELEASE_KINDS = frozenset(("dmesg", "rocminfo", "rocm-smi", "amd-smi", "collect_env", "lspci", "lsmod", "lshw",
                               "pip-freeze", "os-release", "uname", "kfd-properties", "opt-listing", "hipconfig",
                               "amd-smi-version", "rocm-sdk", "docker-images", "docker-version", "mokutil"))
_LISTING_KINDS = frozenset(("dpkg", "apt-list", "dnf-list", "pacman-list", "apt-policy"))


def _releases(source: Source, system: System, texts: List[Tuple[str, str]]) -> None:
    """The GPU firmware package's version from a pasted listing (and the firmware files' own versions
    amdgpu reports), the amdgpu DKMS build a DKMS/make.log line names, and the release changes the pasted
    prose names (issue 28: the releases a known regression hangs on; ``parsers/release_changes``).
    Pasted segments are taken with the kind the recogniser gave them: tool outputs are skipped."""
    from ..parsers import release_changes

    segments: List[Tuple[str, Optional[str], str]] = []
    recognized = getattr(source, "recognized", None)
    if callable(recognized):
        try:
            segments = [(text, kind, paste_label(name, kind)) for kind, name, text in recognized()]
        except Exception:
            segments = []
    if not segments:
        segments = [(text, None, label) for text, label in texts if label.startswith("paste:")]
    segments += [(text, _kind_of(label), label) for text, label in texts if not label.startswith("paste:")]
    prose: List[Tuple[str, str]] = []  # (text, label) of the segments read for prose
    for text, kind, label in segments:
        if kind in _NO_RELEASE_KINDS or not isinstance(text, str):
            continue
        if not system.os.gpu_firmware and "feature version" in text:
            blobs = release_changes.firmware_blobs(text)
            if blobs:
                system.os.gpu_firmware = blobs
                system.os.sources["gpu_firmware"] = label
        if system.rocm.amdgpu_dkms is None and "amdgpu" in text:
            build = release_changes.dkms_build(text)
            if build is not None:
                system.rocm.put("amdgpu_dkms", build, "%s (amdgpu DKMS build)" % label, overwrite=False)
        if system.os.linux_firmware is None:
            fw = release_changes.firmware_version(text)
            if fw is not None:
                system.os.put("linux_firmware", fw[1], "%s (%s)" % (label, fw[0]))
        if kind not in _LISTING_KINDS:
            prose.append((text[:release_changes.MAX_PROSE], label))
    if not prose:
        return
    # one pass over all of them (thousands of small segments: the per-text passes would cost more than the text)
    joined = "\n".join(p for p, _ in prose)
    for c in release_changes.changes(joined, whole=True):
        label = next((lb for p, lb in prose if c.line in p), prose[0][1])
        rc = ReleaseChange()
        for name in ("component", "direction", "good", "bad"):
            rc.put(name, getattr(c, name), label)
        rc.put("line", c.line[:300], label)
        system.changes.append(rc)


def _kind_of(label: str) -> Optional[str]:
    """The kind of text a label names: ``paste:NAME#KIND``, ``cmd:dmesg``, ``file:...``."""
    if "#" in label:
        return label.rsplit("#", 1)[1] or None
    if label.startswith("cmd:dmesg") or label.startswith("file:/var/log/kern") or label.endswith("dmesg"):
        return "dmesg"
    return None


def _unrecognised(source: Source, system: System, texts: List[Tuple[str, str]], known: List[str]) -> None:
    """Lines that read as an error but that no known error text matched: recorded with their layer,
    so that the doctor never calls a system healthy over them (``unrecognised-failure``).  Each
    pasted text is taken with the kind the recogniser gave it (a package listing is no log)."""
    segments: List[Tuple[str, Optional[str], str]] = []
    recognized = getattr(source, "recognized", None)
    if callable(recognized):
        try:
            for kind, name, text in recognized():
                segments.append((text, kind, paste_label(name, kind)))
        except Exception:
            segments = []
    if not segments:
        segments = [(text, _kind_of(label), label) for text, label in texts if label.startswith("paste:")]
    segments += [(text, _kind_of(label), label) for text, label in texts if not label.startswith("paste:")]
    room = MAX_SIGHTINGS - len(system.errors)
    told: List[Tuple[str, Optional[str], str]] = []
    # (s13-heldbb) a paste printed under another locale is read with the English messages in place (translations.toml:
    # glibc's strsignal, strerror and loader texts), and each line found is given back as pasted
    back: Dict[str, str] = {}
    translated: List[Tuple[str, Optional[str], str]] = []
    for text, kind, label in segments:
        en = translations.english(text) if label.startswith("paste:") else None
        if en is not None:
            for was, now in zip(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"),
                                en.replace("\r\n", "\n").replace("\r", "\n").split("\n")):
                if was != now and now.strip():
                    back.setdefault(now.strip(), was.strip())
            text = en
        translated.append((text, kind, label))
    if back:
        segments = translated
        known = list(known) + [e for e in (translations.english(k) for k in known) if e is not None]
    shown = failure_lines.scan(segments, known, limit=min(room, failure_lines.MAX_LINES), told=told)
    if back:
        shown = [(back.get(line.strip(), line), layer, label) for line, layer, label in shown]
        told[:] = [(back.get(line.strip(), line), layer, label) for line, layer, label in told]
    whole_pastes = None
    if any(failure_lines.usage_error(line) for line, _layer, _label in shown):
        # (s11-catchall) a refused command line is the layer of the command that ran, echoed above it in the paste
        # as written (the recogniser may have cut the echo into a segment of its own)
        # (the pastes as written: "paste:NAME"; a recogniser output of one, "paste:NAME#KIND", is a part of it)
        whole_pastes = {label: text for text, label in texts if label.startswith("paste:") and "#" not in label}
        shown = [(line, (failure_lines.layer_above(whole_pastes.get(label.split("#", 1)[0], ""), line) or layer)
                  if failure_lines.usage_error(line) else layer, label) for line, layer, label in shown]
    if any(layer is None for _line, layer, _label in shown):
        # a line the recogniser's segment gave no layer: the lines above it in the paste as written (the
        # prompt that ran the program, cut off into a segment of its own) may name one (s10-heldy)
        whole = {label.split("#", 1)[0]: text for text, label in texts if label.startswith("paste:")}
        # (s13) -- but a caption ("Compilation failure:") is about what it introduces: the lines below it first
        shown = [(line, layer if layer is not None
                  else (failure_lines.layer_below(whole.get(label.split("#", 1)[0], ""), line)
                        or failure_lines.layer_above(whole.get(label.split("#", 1)[0], ""), line)), label)
                 for line, layer, label in shown]
    for signature, rows in (("unrecognised", shown), ("failure_told", told[:max(0, room - len(shown))][:10])):
        for line, layer, label in rows:
            es = ErrorSighting()
            es.put("signature", signature, "catalog:failure_lines")
            es.put("text", line, label)
            es.put("layer", layer, "catalog:failure_lines")
            system.errors.append(es)
