"""(s11-speed) A segment pasted twice is parsed once: the later functions of the recogniser's worker
(``recognize.answers_each``) and the probes' ``_gpu_shared.parsed`` give a repeat a copy of the first
parse -- equal to parsing it, sharing no object with it -- and parse again where a copy fails."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import recognize
from rocm_wizard.detect.bundle import open_snapshot
from rocm_wizard.detect.parsers import rocminfo
from rocm_wizard.detect.probes import _gpu_shared as sh
from rocm_wizard.model import System

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _rocminfo_texts():
    for path in sorted(REAL.glob("*/*.txt")):
        for kind, body, _label in recognize.recognize(path.read_text(encoding="utf-8", errors="replace")):
            if kind == "rocminfo":
                yield body


def test_answers_each_parses_each_text_once_and_shares_nothing():
    texts = list(_rocminfo_texts())[:6]
    assert len(texts) >= 3
    asked = []

    def parse(t):
        asked.append(t)
        return rocminfo.parse(t)

    seq = [texts[0], texts[1], texts[0], texts[2], texts[1], texts[0]]
    got = recognize.answers_each(parse, seq)
    assert got == [rocminfo.parse(t) for t in seq]
    assert sorted(asked) == sorted({texts[0], texts[1], texts[2]})
    assert len({id(g) for g in got}) == len(got)


def test_answers_each_parses_again_where_a_copy_fails():
    class Odd:
        def __reduce__(self):
            raise TypeError("no copy")

    asked = []
    got = recognize.answers_each(lambda t: asked.append(t) or Odd(), ["a", "a", "b"])
    assert asked == ["a", "a", "b"] and len(got) == 3 and got[0] is not got[1]


def test_probe_parse_of_a_repeated_segment_is_a_copy(tmp_path):
    text = next(iter(_rocminfo_texts()))
    (tmp_path / "one.txt").write_text("$ rocminfo\n" + text + "\n$ rocminfo\n" + text, encoding="utf-8")
    src = open_snapshot(str(tmp_path))
    asked = []

    def parse(t):
        asked.append(t)
        return rocminfo.parse(t)

    got = sh.parsed(src, System(origin="snapshot"), "rocminfo", parse)
    assert len(got) == 2 and len(asked) == 1
    assert got[0][1] == got[1][1] == rocminfo.parse(got[1][0].text) and got[0][1] is not got[1][1]
