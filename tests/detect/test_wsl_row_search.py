"""``wsl._row_search`` tries the installed-package row patterns (``_ROCDXG_ROW``, ``_ROCR4WSL_ROW``) only
where a row can start -- the line of each place of the name's needle and the ``ii`` before it across
blanks; it must give exactly what the pattern's plain search over the whole text gives (span and text),
on real fixtures and on texts built to put names, ``ii``, blanks, line ends and package-row pieces
everywhere.  ``_hit`` must answer the same either way."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from rocm_wizard.detect.parsers import wsl

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

NAMES = ["librocdxg", "rocdxg-roct", "rocdxg-amd-smi-lib", "hsa-runtime-rocr4wsl-amdgpu", "rocdxg", "rocr4wsl",
         "xlibrocdxg", "librocdxgx", "rocdxg-rocm", "hsa-runtime-rocr4wsl"]
PIECES = NAMES + ["ii", "ii ", "iii", "hi", "\n", "\n\n", " ", "  ", "\t", "\u00a0", "\x0b", "\u2028", "\u3000",
                  "/noble,now", " 1.0 amd64 ", "[installed]", "[installed,automatic]", "[", "]", ":amd64", "-1.0",
                  ".x86_64", "-7.2.el9.x86_64", " @amdgpu", "@", ".", "-", "1", "x", "/", "1.0.0"]
# whole rows of each listing's shape (and near misses), so that many texts hold a row
ROWS = ["\nii  librocdxg  1.0-1  amd64", "\nii\n  rocdxg-roct:amd64 1.0 x", "\nlibrocdxg/noble,now 1.0 amd64 [installed]",
        "\nrocdxg-amd-smi-lib/noble 1 2 [installed,automatic]", "\nrocdxg-roct-1.0.x86_64", "\nlibrocdxg.x86_64  1.0  @amdgpu",
        "\nii  hsa-runtime-rocr4wsl-amdgpu  6.1.3  amd64", "\nhsa-runtime-rocr4wsl-amdgpu-6.1.3.x86_64",
        "\nhsa-runtime-rocr4wsl-amdgpu/jammy 6.1 amd64 [installed]", "\n ii  librocdxg 1 2", "\nxii librocdxg 1 2"]


def _same(text: str) -> None:
    for rx, needle in ((wsl._ROCDXG_ROW, "rocdxg"), (wsl._ROCR4WSL_ROW, "rocr4wsl")):
        want = rx.search(text)
        got = wsl._row_search(rx, text, needle)
        assert (got.span(), got.group(0)) == (want.span(), want.group(0)) if want else got is None, repr(text[:300])
    wsl._ROW_SEARCH = False
    try:
        want_hit = wsl._hit(text)
    finally:
        wsl._ROW_SEARCH = True
    assert wsl._hit(text) == want_hit


@pytest.mark.parametrize("seed", range(400))
def test_the_same_match_as_the_plain_search(seed):
    rnd = random.Random(seed)
    pieces = PIECES + ROWS * 3
    _same("".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 50))))


def test_the_same_match_on_real_fixtures():
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))]
    for text in texts:
        _same(text)
    _same("\n".join(texts))


@pytest.mark.parametrize("text, start", [
    # dpkg -l's "ii" lines before the name, blank lines between (\s+ crosses line ends)
    ("x\nii\n\n   librocdxg  1.0  amd64\n", 2),
    ("ii  rocdxg-roct:amd64  1.0-1  amd64  rocdxg\n", 0),
    # a first place that starts no row, then one that does
    ("see librocdxg here\nlibrocdxg/noble,now 1.0 amd64 [installed]\n", 19),
    ("hsa-runtime-rocr4wsl-amdgpu is missing\nhsa-runtime-rocr4wsl-amdgpu.x86_64  6.1  @amdgpu\n", 39),
    ("ii  hsa-runtime-rocr4wsl-amdgpu  6.1.3  amd64\n", 0),
])
def test_rows_after_other_places_and_across_blank_lines(text, start):
    rx, needle = (wsl._ROCR4WSL_ROW, "rocr4wsl") if "rocr4wsl" in text else (wsl._ROCDXG_ROW, "rocdxg")
    assert wsl._row_search(rx, text, needle).start() == start
    _same(text)


def test_no_row_no_match():
    assert wsl._row_search(wsl._ROCDXG_ROW, "Unable to locate package librocdxg\n", "rocdxg") is None
    assert wsl._row_search(wsl._ROCDXG_ROW, "nothing here\n", "rocdxg") is None


@pytest.mark.parametrize("make", [
    lambda n: "librocdxg " * (n // 10),  # one huge line full of names: looked back over once
    lambda n: "x librocdxg\n" * (n // 12),
    lambda n: ("ii" + " \n" * 50 + "  rocdxg-roct ") * (n // 120),
    lambda n: "hsa-runtime-rocr4wsl-amdgpu" * (n // 27),
])
def test_linear_on_names_everywhere(make):
    # a scan that looked back over a line once per name on it would not finish in the test's time
    text = make(4 * 1024 * 1024)
    for rx, needle in ((wsl._ROCDXG_ROW, "rocdxg"), (wsl._ROCR4WSL_ROW, "rocr4wsl")):
        got = wsl._row_search(rx, text, needle)
        want = rx.search(text)
        assert (got.span() if got else None) == (want.span() if want else None)
