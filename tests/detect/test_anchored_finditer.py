"""``_core_text.anchored_finditer`` gives ``finditer``'s matches (s11-speed): on every real paste and on
random texts made of the patterns' own words, whitespace runs across lines, odd-case characters and
near misses, for each pattern it is used with (the WSL facts); and it stays linear on hostile text."""
from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from rocm_wizard.detect import wsl_facts
from rocm_wizard.detect.parsers import wsl
from rocm_wizard.detect.parsers._core_text import anchored_finditer

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# (pattern, anchors, keyword arguments) as the callers pass them
USES = [
    (wsl._ADRENALIN, ("adrenalin", "driver"), {"words_before": 1}),
    (wsl._SWITCH_SET, ("hsa_enable_dxg_detection",), {"words_before": 1}),
    (wsl._TORCH_HSA, ("libhsa-runtime64",), {"lines_before": 2}),
    (wsl._WSL_SAID, ("WSL",), {"words_before": 2}),
    (wsl_facts._WSL_VERSION, ("WSL",), {}),
    (wsl_facts._TORCH_NO_GPU_SAID, ("is_available",), {}),
]

WORDS = ["Adrenalin", "ADRENALIN", "adrenalin", "Edition", "\u2122", ":", "driver", "Drivers", "DRIVER", "version", "is",
         "are", "v", "software", "gpu", "GPU", "windows", "Windows", "amd", "AMD", "25.3.1", "24.12.1", "2.1", "26.10.10",
         "in", "on", "under", "using", "via", "inside", "with", "a", "the", "WSL", "WSL2", "wsl", "2", "Ubuntu", "distro",
         "export", "HSA_ENABLE_DXG_DETECTION=1", "HSA_ENABLE_DXG_DETECTION", "hsa_enable_dxg_detection", "=", "1", "prints",
         "torch/lib/libhsa-runtime64.so.1", "libhsa-runtime64.so", "libhsa-runtime64.so.1.2", "-rwxr-xr-x", "lrwxrwxrwx",
         "torch.cuda.is_available()", "is_available()`)", "returns", "False", "FALSE", "WSL version:", "2.4.11.0", "WSL:",
         "\u0130", "\u0131", "\u017f", "\u212a", "x", "-", "(", ")", "#", "`", "'", "\""]
SEPS = [" ", "  ", "\n", "\n\n", "\t", " \n ", "", "\u00a0", "\r\n"]


def _random_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 40)):
        out.append(rng.choice(WORDS))
        out.append(rng.choice(SEPS))
    return "".join(out)


def _spans(it):
    return [(m.span(), m.groups()) for m in it]


@pytest.mark.parametrize("use", range(len(USES)))
def test_same_matches_as_finditer_on_real_pastes(use):
    rx, anchors, kw = USES[use]
    for path in sorted(REAL.glob("*/*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")
        assert _spans(anchored_finditer(rx, text, anchors, **kw)) == _spans(rx.finditer(text)), path.name


@pytest.mark.parametrize("use", range(len(USES)))
def test_same_matches_as_finditer_on_random_texts(use):
    rx, anchors, kw = USES[use]
    rng = random.Random(1100 + use)
    for _ in range(3000):
        text = _random_text(rng)
        assert _spans(anchored_finditer(rx, text, anchors, **kw)) == _spans(rx.finditer(text)), repr(text)


def test_words_and_lines_before_bound_the_start():
    """A pattern whose match starts further before its anchor than it was told is a caller's error;
    within the bounds the matches are finditer's, and a near miss is none."""
    rx = re.compile(r"\b(?:in|on)\s+(?:a\s+)?WSL\b")
    text = "ran it on a\n\n   WSL box; in WSLg no; on  WSL"
    assert _spans(anchored_finditer(rx, text, ("WSL",), words_before=2)) == _spans(rx.finditer(text))
    assert len(_spans(rx.finditer(text))) == 2
    rx2 = re.compile(r"^(?:-\S+\s.*\s)?(lib\.so)$", re.M)
    text2 = "-rw x\nfoo\nlib.so\nlib.so.1\n"
    assert _spans(anchored_finditer(rx2, text2, ("lib.so",), lines_before=2)) == _spans(rx2.finditer(text2))
    assert not list(anchored_finditer(rx, "in WSLg", ("WSL",), words_before=2))


def test_linear_on_hostile_text():
    def cost(n: int) -> float:
        text = ("driver " + " " * 50 + "\n") * n + "adrenalin" * n
        t0 = time.perf_counter()
        list(anchored_finditer(wsl._ADRENALIN, text, ("adrenalin", "driver"), words_before=1))
        return time.perf_counter() - t0

    small, big = min(cost(2000) for _ in range(3)), min(cost(20000) for _ in range(3))
    assert big < small * 30
