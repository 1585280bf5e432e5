"""``wsl._use_search`` starts the librocdxg pattern where its first match can begin; it must give
exactly what the pattern's plain search over the whole text gives (span and text), on real
fixtures and on texts built to put its needles, white space, ``export`` and line ends everywhere."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from rocm_wizard.detect.parsers import wsl

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

PIECES = ["HSA_ENABLE_DXG_DETECTION", "HSA_ENABLE_DXG_DETECTION=1", "librocdxg", "librocdxg.so.1", "xlibrocdxg",
          "librocdxgx", "export", "export ", "reexport", "\n", "\n\n", " ", "\t", "\u00a0", "\x0b", "=", "1", "=1",
          "x", "report", "HSA_ENABLE_DXG_DETECTION_x", "_", ".so", ".2", "rocdxg", "DXG_DETECTION", "\u2028"]


def _same(text: str) -> None:
    want = wsl._ROCDXG_USE.search(text)
    got = wsl._use_search(text)
    assert (got.span(), got.group(0)) == (want.span(), want.group(0)) if want else got is None, repr(text[:300])


@pytest.mark.parametrize("seed", range(300))
def test_the_same_match_as_the_plain_search(seed):
    rnd = random.Random(seed)
    _same("".join(rnd.choice(PIECES) for _ in range(rnd.randrange(0, 40))))


def test_the_same_match_on_real_fixtures():
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))]
    for text in texts:
        _same(text)
    # a match of the first branch that begins lines before its needle, past blank lines and 'export'
    text = "ok\n\n   \n  export   HSA_ENABLE_DXG_DETECTION=1\nlibrocdxg.so\n"
    assert wsl._use_search(text).start() == 3
    _same(text)
