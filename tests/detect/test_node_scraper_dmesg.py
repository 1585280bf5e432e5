"""The comparison with AMD's own dmesg analyser (``amd-node-scraper`` on PyPI, MIT): for every error
class its ``DmesgAnalyzer.ERROR_REGEX`` recognises, ``tests/data/node_scraper_dmesg.toml`` holds a
kernel text built from its regex and from the kernel source that prints the message, and either the
rocm-wizard signatures that recognise it too or the reason it is left out (events that are not the
AMD GPU stack's).  The text must be one amd-node-scraper recognises (its regex, copied verbatim,
matches) and one rocm-wizard recognises (a catalogue/known signature, or an unrecognised failure at
the layer named).  When the package itself is importable (a test extra: install it in a throw-away
environment), its live regexes are checked against the copy, so that a new class is not missed."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_wizard.detect import error_signatures, failure_lines

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

DATA = Path(__file__).resolve().parents[1] / "data" / "node_scraper_dmesg.toml"
with open(DATA, "rb") as _fh:
    CASES = tomllib.load(_fh)["case"]
GPU = [pytest.param(c, id=c["message"]) for c in CASES if "expect" in c]
LEFT_OUT = [pytest.param(c, id=c["message"]) for c in CASES if "exclude" in c]


def _flags(case) -> int:
    fl = 0
    for name in case.get("flags", []):
        fl |= getattr(re, name)
    return fl


def _recognised(text: str):
    known = error_signatures.scan(text)
    ids = {sig.id for sig, _ in known}
    unrec = failure_lines.scan([(text, "dmesg", "dmesg")], known=[line for _, line in known])
    ids |= {"unrecognised:%s" % layer for _, layer, _ in unrec}
    return ids


def test_the_comparison_covers_the_analyser():
    assert len(CASES) >= 55
    assert len(GPU) >= 30
    # every AMD GPU event class of the analyser (amdgpu, kfd, RAS/ACA, GPU PCIe port events) is expected
    gpu_words = ("amdgpu", "gpu", "ras ", "aca ", "poison", "sq ", "qcm", "ip block", "tmr", "page fault", "pcie", "dpc", "edr", "i/o page")
    for c in CASES:
        if "exclude" in c:
            assert len(c["exclude"]) > 40, c["message"]  # a reason, not a shrug
        if any(w in c["message"].lower() for w in ("amdgpu", "gpu", "poison", "aca ", "bad page", "sq interrupt", "qcm")):
            assert "expect" in c, c["message"]
    assert gpu_words


@pytest.mark.parametrize("case", GPU)
def test_every_gpu_event_it_reports_rocm_wizard_reports(case):
    text = case["text"]
    if "regex" in case:
        assert re.search(case["regex"], text, _flags(case)), "the text is not one amd-node-scraper recognises"
    found = _recognised(text)
    assert found & set(case["expect"]), (case["expect"], sorted(found))


@pytest.mark.parametrize("case", LEFT_OUT)
def test_left_out_classes_are_built_from_its_regex_too(case):
    if "regex" in case and "text" in case:
        assert re.search(case["regex"], case["text"], _flags(case))


def test_against_the_installed_analyser():
    analyser = pytest.importorskip("nodescraper.plugins.inband.dmesg.dmesg_analyzer")
    live = [(r.message, r.regex.pattern) for r in analyser.DmesgAnalyzer.ERROR_REGEX]
    messages = {c["message"] for c in CASES}
    assert {m for m, _ in live} <= messages, "amd-node-scraper has error classes this comparison lacks"
    copied = {(c["message"], c["regex"]) for c in CASES if "regex" in c}
    for m, pattern in live:
        if any(cm == m for cm, _ in copied):
            assert (m, pattern) in copied or m.startswith("MCE"), m


REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _real_kernel_logs():
    return sorted(p for p in REAL.glob("*/*.txt") if re.search(r"dmesg|journal|kern|syslog", p.name, re.I))


def test_on_the_real_kernel_logs_every_gpu_event_it_finds_is_recognised():
    """amd-node-scraper's regexes (the copy above) run over every real kernel log of the fixtures:
    each GPU event they find there is recognised by rocm-wizard too (a known signature, or a failure
    line at some layer)."""
    logs = _real_kernel_logs()
    assert len(logs) >= 20
    hits, missed = 0, []
    for path in logs:
        text = path.read_text(encoding="utf-8", errors="replace")
        for case in CASES:
            if "expect" not in case or "regex" not in case:
                continue
            for m in re.finditer(case["regex"], text, _flags(case) | re.M):
                start = text.rfind("\n", 0, m.start()) + 1
                end = text.find("\n", m.end())
                chunk = text[start:end if end >= 0 else len(text)]
                if "gpu_line" in case and not re.search(case["gpu_line"], chunk):
                    continue  # that class's hit on a line outside the GPU stack is no GPU event
                hits += 1
                if not _recognised(chunk):
                    missed.append((path.parent.name, case["message"], chunk[:160]))
                break  # one hit per class and file is enough
    assert hits >= 10, "the real logs should show some of the analyser's GPU events"
    assert not missed, missed


# s9-sweepkern: the layer, and the analyser's catch-all over the swept kernel messages.
PROBLEM = ("warning", "error", "critical")
COVERAGE = Path(__file__).resolve().parents[1] / "data" / "coverage_sources.toml"
_CATCH_ALL = next(c for c in CASES if c["message"] == "Unknown dmesg error")
_STAMP = re.compile(r"^\s*\[\s*\d+\.\d+\]\s*")


def test_doctor_warns_at_the_rows_layer_on_each_gpu_event(tmp_path):
    """doctor over a folder holding only the analyser's text: a warning or worse at the layer of the
    first expected catalogue row (the event is reported where the user acts, not only recognised)."""
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose

    wrong, checked = [], 0
    for i, case in enumerate(c for c in CASES if "expect" in c):
        rows = [e for e in case["expect"] if error_signatures.failure(e) is not None]
        if not rows:
            continue
        layer = error_signatures.failure_layer(rows[0])
        d = tmp_path / str(i)
        d.mkdir()
        (d / "dmesg.txt").write_text(case["text"] + "\n", encoding="utf-8")
        found = {(f.layer, f.severity) for f in diagnose(detect_snapshot(str(d))).findings}
        checked += 1
        if not any(lay == layer and sev in PROBLEM for lay, sev in found):
            wrong.append((case["message"], layer, sorted(found, key=str)))
    assert checked >= 25
    assert not wrong, wrong


def _swept_kernel_messages():
    with open(COVERAGE, "rb") as fh:
        messages = tomllib.load(fh)["message"]
    return [m for m in messages if m["source"].startswith("torvalds/linux") and m["status"] != "left"
            and "amdgpu" in m["line"]]


def test_the_catch_all_class_on_every_swept_kernel_message():
    """amd-node-scraper reports any amdgpu line dmesg prints at err/crit level ('Unknown dmesg error',
    on `dmesg -x --time-format iso` output): each amdgpu/amdkfd message of the failure sweep
    (tests/data/coverage_sources.toml), printed in that form, is one it reports and one the
    catalogue knows by the row the sweep names."""
    swept = _swept_kernel_messages()
    assert len(swept) >= 80
    missed = []
    for m in swept:
        text = "kern  :err   : 2026-01-01T00:00:00,000000+00:00 " + _STAMP.sub("", m["line"])
        assert re.search(_CATCH_ALL["regex"], text, _flags(_CATCH_ALL)), text
        if m["row"] not in {sig.id for sig, _ in error_signatures.scan(text)}:
            missed.append((m["row"], text[:140]))
    assert not missed, missed
