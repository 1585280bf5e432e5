"""The fast paths of the error scan and of the recogniser give the same answers as their plain
reference forms on every real fixture, on a mixed folder-sized text, and on hostile ones.

``error_signatures.scan`` tries a pattern only on the lines holding one of the literal strings every
match of it contains, read from the parsed pattern (``factors``), when the pattern cannot match a
line end (``line_bound``); ``scan_reference`` runs every pattern over the whole text.  The
recogniser skips a parser whose anchors are not in a segment (``recognize.ANCHORS``);
``classify(..., quick=False)`` asks every parser; the workload scan has ``scan_reference`` too.
End to end, ``doctor --json`` on every third fixture folder and on all the fixtures' pastes as one
folder gives the same output with every fast path swapped for its reference form.  No timing is
asserted here (speed goals live in ``benchmarks/``).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import List

import pytest

from rocm_wizard.detect import error_signatures as es

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _real_texts() -> List[str]:
    out = []
    for p in sorted(REAL.glob("*/*")):
        if p.is_file() and p.name != "labels.toml":
            out.append(p.read_bytes().decode("utf-8", "replace"))
    return out


TEXTS = _real_texts()
MIXED = "\n".join(TEXTS)


def _ids(found):
    return [(sig.id, line) for sig, line in found]


@functools.lru_cache(maxsize=None)
def _reference(text: str, limit: int = 10_000) -> tuple:
    """``es.scan_reference(text, limit)`` as ids, worked out once per text and limit for this module (the
    reference runs every pattern over the whole text: the tests below ask it of the same texts again)."""
    return tuple(_ids(es.scan_reference(text, limit)))


def test_fixtures_are_there():
    assert len(TEXTS) > 150 and len(MIXED) > 200_000


@pytest.mark.parametrize("limit", [1, 50, 10_000])
def test_scan_matches_reference_on_every_fixture(limit):
    for text in TEXTS:
        assert tuple(_ids(es.scan(text, limit))) == _reference(text, limit)


@pytest.mark.parametrize("limit", [1, 50, 10_000])
def test_scan_matches_reference_on_all_fixtures_at_once(limit):
    assert _ids(es.scan(MIXED, limit)) == _ids(es.scan_reference(MIXED, limit))


def test_scan_matches_reference_on_every_recognised_segment():
    from rocm_wizard.detect.recognize import split

    for text in TEXTS:
        for _label, _cmd, body in split(text):
            assert tuple(_ids(es.scan(body, 1))) == _reference(body, 1)


HOSTILE = [
    # a line with a needle but a match only across lines; CRLF; odd case characters
    "amdgpu 0000:03:00.0: amdgpu:\nFatal error during GPU init\n",
    "HIPBLAS_STATUS_NOT_SUPPORTED\r\nrocBLAS error: Cannot read /x/TensileLibrary.dat for GPU arch : gfx1151\r\n",
    "Memory acceſs fault by GPU node-1 (Agent handle: 0x1)\nHIP out of memory\n",
    "\u0130\u0131 HIP OUT OF MEMORY ſ\nhipErrorNoBinaryForGpu: Unable to find code object\n",
    "amdgpu " * 300 + "\n" + "amdgpu: ring gfx timeout\n" * 2000,
    "\n".join("[%d.0] amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE" % i for i in range(3000)),
    "x" * 100_000 + " HSA_STATUS_ERROR_OUT_OF_RESOURCES",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
@pytest.mark.parametrize("limit", [1, 50, 10_000])
def test_scan_matches_reference_on_hostile_text(text, limit):
    assert _ids(es.scan(text, limit)) == _ids(es.scan_reference(text, limit))


def test_any_match_says_what_the_reference_scan_finds():
    # error_log's "a short paste of just a known error line" asks any_match(): whether the
    # reference scan finds anything, on every fixture, every recognised segment and hostile texts
    from rocm_wizard.detect.recognize import split

    texts = TEXTS + HOSTILE + [body for text in TEXTS for _l, _c, body in split(text)] + ["", "x", "error\r"]
    hits = 0
    for text in texts:
        want = bool(_reference(text, 1))
        assert es.any_match(text) is want, text[:200]
        hits += want
    assert 100 < hits < len(texts)


def test_scan_and_any_match_before_the_needle_index_is_built(monkeypatch):
    # a process asks the needles one by one until its short texts add up to _PLAIN_CHARS
    # characters: the same answers as the reference scan on that path too
    from rocm_wizard.detect.recognize import split

    monkeypatch.setattr(es, "_index_key", None)
    monkeypatch.setattr(es, "_PLAIN_CHARS", 10 ** 12)
    monkeypatch.setattr(es, "_plain_chars", 0)
    texts = TEXTS + HOSTILE + [body for text in TEXTS[::3] for _l, _c, body in split(text)]
    for text in texts:
        assert es.any_match(text) is bool(_reference(text, 1)), text[:200]
        assert tuple(_ids(es.scan(text, 50))) == _reference(text, 50)
    assert es._index_key is None  # (the index was never built)


def test_every_match_holds_a_factor():
    # what the line path relies on, checked on every match the fixtures hold
    for sig in es.SIGNATURES:
        facs = es.factors(sig)
        if not facs or sig.whole:
            continue
        rx = es.pattern(sig)
        for m in rx.finditer(MIXED):
            low = m.group(0).lower()
            assert any(f in low for f in facs), (sig.id, m.group(0))


def test_factors_and_line_bounds_are_read_from_the_pattern():
    def sig(p, **kw):
        return es.Signature("t-%d" % abs(hash((p, tuple(kw.items())))), p, source="test", meaning="test", **kw)

    # the most selective certain set: either branch's text is longer than the common prefix
    assert es.factors(sig(r"HIP error: (invalid device ordinal|out of memory)")) == ("invalid device ordinal", "out of memory")
    assert es.factors(sig(r"HIP error: (invalid|oom)")) == ("hip error: ",)
    assert set(es.factors(sig(r"(foo bar|baz qux)\d+"))) == {"foo bar", "baz qux"}
    assert es.factors(sig(r"(foo|x)")) == ()  # a one-letter branch: nothing certain of three characters
    assert es.factors(sig(r"(?:abcdef)?ghi")) == ("ghi",)  # an optional group is not required
    assert es.line_bound(sig(r"amdgpu.*failed"))
    assert es.line_bound(sig(r"^[ \t]*ERROR:\S+$"))
    assert not es.line_bound(sig(r"amdgpu:\s*failed"))  # \s matches a newline
    assert not es.line_bound(sig(r'File "[^"]+"'))  # [^"] matches a newline
    assert not es.line_bound(sig(r"(?s)a.b"))
    assert not es.line_bound(sig(r"\Afoo"))
    assert not es.line_bound(sig(r"(a)\1"))
    assert es.line_bound(sig(r"foo[^\n]{0,9}bar(?!\d)"))
    assert not es.line_bound(sig(r"foo(?=\s*bar)"))


def test_odd_case_characters_are_all_known():
    # the characters an ASCII letter matches under re.I whose lower case is no ASCII letter: a text
    # holding one takes the whole-text path
    odd = [chr(i) for i in range(128, 0x110000)
           if re.fullmatch("[a-z]", chr(i), re.I) and chr(i).lower() not in "abcdefghijklmnopqrstuvwxyz"]
    assert all(es._ODD_CASE.search(c) for c in odd) and len(odd) == 3


def _odd_spellings(text):
    # (s15-speed) the text with U+0131 for i and U+017F for s (each, one of each, both): characters
    # that match i and s under re.I but lower-case to themselves, found as i and s by the factors' copy
    return [text.replace("i", "\u0131"), text.replace("s", "\u017f"), text.replace("I", "\u0131", 1),
            text.replace("s", "\u017f", 1), text.replace("i", "\u0131").replace("s", "\u017f")]


def test_scan_and_any_match_on_odd_spellings_of_each_signatures_first_hit():
    # every fixture line a signature finds, spelled with U+0131/U+017F, alone and among other lines
    # (a near miss: the characters on lines no signature matches): the reference scan's answers
    # (one line of each signature the fixtures hold -- the first the reference finds, fixtures in order --
    # rather than every hit line: each pattern is tried in the odd spellings once, and the test does not
    # grow with the corpus' repeats of the same lines, a third of the hit lines then 24 s of the suite)
    first = {}
    for text in TEXTS:
        for sid, line in _reference(text):
            first.setdefault(sid, line)
    lines = sorted(set(first.values()))
    assert len(lines) > 50
    kept = 0
    for line in lines:
        for v in _odd_spellings(line):
            text = "the \u0131nit of the \u017fystem went fine\n" + v + "\nDone.\n" + line + "\n"
            for t in (v, text):
                want = _reference(t)  # (the reference finds something at limit 1 where it does at any limit)
                assert tuple(_ids(es.scan(t, 10_000))) == want, v
                assert es.any_match(t) is bool(want), v
            kept += bool(_reference(v))
    assert kept > 50  # (many spellings still match their signature: the copy must find them)
    from rocm_wizard.detect import error_index

    index = error_index._index()  # (the shipped index's own scan, which doctor's errors probe asks)
    if index is not None:
        for line in lines:
            for v in _odd_spellings(line):
                want = [(sig.id, said) for sig, said in es.scan(v, 50)]
                assert [(sid, said) for sid, _layer, said in error_index.scan_with(index, v, 50)] == want, v


def test_workload_scan_matches_reference():
    from rocm_wizard.detect.parsers import workloads

    for text in TEXTS + [MIXED, "x\u0131 llama-server\n", "> ggml_cuda_init: found 1 ROCm devices\r\nollama serve\n"]:
        assert workloads.scan(text) == workloads.scan_reference(text)
    # the workloads' lines in other orders and mixes: a row of a workload found already looks only
    # above that line, and each factor's next place is found only when the lines before are done
    import random

    rnd = random.Random(28)
    shown = [t for t in TEXTS if workloads.scan_reference(t)]
    assert len(shown) >= 10
    for _ in range(60):
        lines = "\n".join(rnd.sample(shown, 3) + rnd.sample(TEXTS, 2)).split("\n")
        rnd.shuffle(lines)
        text = "\n".join(lines)
        assert workloads.scan(text) == workloads.scan_reference(text)


def _segments():
    from rocm_wizard.detect.recognize import split

    return [(cmd, body) for text in TEXTS for _label, cmd, body in split(text)]


def test_classify_matches_asking_every_parser():
    from rocm_wizard.detect.recognize import classify

    segs = _segments()
    assert len(segs) > 200
    for cmd, body in segs:
        assert classify(body, cmd) == classify(body, cmd, quick=False)


def test_a_parser_scores_zero_without_its_anchors():
    # what the anchors promise, on every fixture segment and on texts built to miss them
    from rocm_wizard.detect import recognize

    bodies = [body for _cmd, body in _segments()] + ["Name: x\nfoo: 1\n", "deb\n", "1 2 3\n", "ROCk\n"]
    for mod in recognize.parser_modules():
        anchors = recognize.ANCHORS.get(mod.__name__.rsplit(".", 1)[-1])
        if not anchors:
            continue
        for body in bodies:
            low = body.lower()
            if recognize._UNSURE.search(body) is None and not any(a in low for a in anchors):
                assert mod.looks_like(body) == 0.0, (mod.__name__, body[:200])


def test_every_anchored_parser_exists():
    from rocm_wizard.detect import recognize

    names = {m.__name__.rsplit(".", 1)[-1] for m in recognize.parser_modules()}
    assert set(recognize.ANCHORS) <= names
    assert set(recognize.SURE_ANCHORS) <= names


# texts near the sure anchors' edges: a lone version line (hipconfig, rocm_version and rocm-sdk's
# weak terms), KEY=value lines without the keys os-release needs, prose around a release
_NEAR_SURE = ["6.2.0\n", "6.2.41134-65d174c3e\n", "gfx1100;gfx1201\n", "7.14.0\n", "FOO=1\nBAR=2\n",
              "Ubuntu 24.04 LTS\n", "NAME=Ubuntu\n", "my kernel is 6.8.0-45-generic\n", "HIP version: 6.2.41134\n",
              # command hints the output does or does not bear out
              "$ uname -r\n6.8.0-45-generic\n", "$ rocminfo\nROCk module is NOT loaded, possibly no GPU devices\n",
              "$ rocm-smi\nName:                    gfx1100\nMarketing Name:          Radeon RX 7900 XTX\n",
              "$ dpkg -l | grep rocm\nii  rocm-core  6.2.0.60200-66~22.04  amd64  ROCm Runtime software stack\n",
              "$ amd-smi version\nAMDSMI Tool: 24.6.2+2b02a07 | AMDSMI Library version: 24.6.2.0\n",
              "$ cat /etc/os-release\nTraceback (most recent call last):\n  File \"x\", line 1\nValueError: x\n",
              "$ hipconfig --version\n6.2.41134-65d174c3e\n", "$ pip list\nPackage Version\n------- -------\ntorch 2.4.1\n"]


def test_a_parser_is_never_sure_without_its_sure_anchors():
    # what SURE_ANCHORS promise (a score under THRESHOLD), on every fixture segment and near misses
    from rocm_wizard.detect import recognize

    bodies = [body for _cmd, body in _segments()] + _NEAR_SURE
    for mod in recognize.parser_modules():
        name = mod.__name__.rsplit(".", 1)[-1]
        if name not in recognize.SURE_ANCHORS:
            continue
        sure = recognize.SURE_ANCHORS[name]
        for body in bodies:
            low = body.lower()
            if recognize._UNSURE.search(body) is None and not any(a in low for a in sure):
                assert mod.looks_like(body) < recognize.THRESHOLD, (name, body[:200])


def test_no_parser_scores_above_its_cap():
    # what MAX_SCORE promises (the recogniser stops asking a parser once the best score so far is at
    # its cap), on every fixture segment, the near misses and hostile texts
    from rocm_wizard.detect import recognize

    assert set(recognize.MAX_SCORE) <= {m.__name__.rsplit(".", 1)[-1] for m in recognize.parser_modules()}
    bodies = [body for _cmd, body in _segments()] + _NEAR_SURE + ["", "\n", "x" * 5000, "Linux\n" * 3,
                                                                  "Traceback (most recent call last):\n" * 50]
    for mod in recognize.parser_modules():
        cap = recognize.MAX_SCORE.get(mod.__name__.rsplit(".", 1)[-1])
        if cap is None:
            continue
        for body in bodies:
            assert mod.looks_like(body) <= cap, (mod.__name__, body[:200])


def test_recognised_kinds_match_asking_every_parser():
    # recognize() asks for the kind alone (SURE_ANCHORS): the kinds of classify(quick=False)
    from rocm_wizard.detect.recognize import classify, recognize, split

    texts = TEXTS + ["\n".join(TEXTS[i::7]) for i in range(7)] + _NEAR_SURE
    for text in texts:
        want = [classify(body, cmd, quick=False)[0] for _label, cmd, body in split(text)]
        assert [kind for kind, _body, _label in recognize(text)] == want


def _doctor_json(folder: Path, capsys) -> tuple:
    from rocm_wizard import cli

    rc = cli.main(["doctor", "--snapshot", str(folder), "--json"])
    return rc, capsys.readouterr().out


def test_doctor_findings_match_the_slow_paths_on_every_third_fixture_and_all_at_once(monkeypatch, capsys):
    # end to end: every real fixture folder and all of them as one folder of pastes, once with the
    # fast paths and once with each of them replaced by its plain reference form
    import shutil
    import tempfile

    from rocm_wizard.detect import recognize
    from rocm_wizard.detect.parsers import workloads

    # every third fixture folder (by name, so the same ones each run), and all the fixtures' pastes as one
    # folder: the scans, the recogniser and the workload scan are compared with their reference forms on
    # every fixture's text above; what this adds is the whole command over them, whose cost grew with the
    # corpus (about 1000 folders, twice each, 80 s of a loaded worker in the twentieth session)
    folders = [p for p in sorted(REAL.iterdir()) if p.is_dir()][::3]
    with tempfile.TemporaryDirectory(prefix="rw-equiv-") as tmp:
        mixed = Path(tmp) / "pastes"
        mixed.mkdir()
        for i, p in enumerate(sorted(REAL.glob("*/*.txt"))):
            shutil.copyfile(p, mixed / ("%03d-%s" % (i, p.name)))
        fast = [_doctor_json(f, capsys) for f in folders + [mixed]]
        monkeypatch.setattr(es, "scan", es.scan_reference)
        monkeypatch.setattr(es, "any_match", lambda text: bool(es.scan_reference(text, 1)))
        monkeypatch.setattr(workloads, "scan", workloads.scan_reference)
        # every parser asked about every segment, no floor (the anchors and error_log's floor off)
        slow_classify = functools.partial(recognize.classify, quick=False)
        monkeypatch.setattr(recognize, "classify", slow_classify)
        # (recognize() asks _kind for the kind alone: the parsers that cannot make it are left out)
        # (its third argument says the paste holds no character that makes anchors unsure)
        monkeypatch.setattr(recognize, "_kind", lambda text, command, sure=False: slow_classify(text, command)[0])
        slow = [_doctor_json(f, capsys) for f in folders + [mixed]]
    assert len(fast) > 150 and len(fast) * 3 > len(list(REAL.glob("*/labels.toml")))
    for folder, a, b in zip(folders + [mixed], fast, slow):
        assert a == b, folder.name
