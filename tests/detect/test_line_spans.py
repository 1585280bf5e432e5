"""(s11-speed) ``_core_text.line_spans_with``: the lines a loop over ``text.split("\\n")`` would keep for
holding a needle, found by ``str.find``; and the access probe's pasted overrides and visible-device
masks, read through it, as the line loop read them (random texts of their own words, wrapped Ollama
maps, CR line ends, a key at the very end)."""
from __future__ import annotations

import random

from rocm_wizard.detect.parsers._core_text import line_spans_with
from rocm_wizard.detect.probes import _core_util, access
from rocm_wizard.model import AccessInfo

WORDS = ["ROCR_VISIBLE_DEVICES=1", "HIP_VISIBLE_DEVICES=0,1", "server config env=map[ROCR_VISIBLE_DEVICES:1 HIP_VISIBLE_DEVICES:",
         "]", "]\"", "\n", "\n\n", "\r", "# export CUDA_VISIBLE_DEVICES=2", "export GPU_DEVICE_ORDINAL=1", "-e HIP_VISIBLE_DEVICES=3",
         " x ", "HSA_OVERRIDE_GFX_VERSION=11.0.0", "export HSA_OVERRIDE_GFX_VERSION_1=10.3.0",
         "server config env=\"map[HSA_OVERRIDE_GFX_VERSION:11.0.2 ]", "extraEnvs=map[ROCR_VISIBLE_DEVICES:0]", "0:1"]


def test_line_spans_are_the_split_lines_holding_a_needle():
    rng = random.Random(28)
    for _ in range(2000):
        text = "".join(rng.choice(["ab", "key", "\n", "\n\n", "k", "ey", "x key y", "keykey"]) for _ in range(rng.randint(0, 20)))
        want, pos = [], 0
        for line in text.split("\n"):
            if "key" in line or "ab" in line:
                want.append((pos, pos + len(line)))
            pos += len(line) + 1
        assert list(line_spans_with(text, ("key", "ab"))) == want, repr(text)


def _reference_visible(text):
    """access._pasted_visible's line loop as it was (the continuation lines of a wrapped map joined)."""
    found = []
    lines = text.replace("\r", "\n").split("\n")
    for i, raw in enumerate(lines):
        if "server config" in raw and "map[" in raw and not raw.rstrip().endswith(("]\"", "]")):
            for more in lines[i + 1:i + 4]:
                raw += more
                if more.rstrip().endswith(("]\"", "]")):
                    break
        if ("VISIBLE_DEVICES" not in raw and "GPU_DEVICE_ORDINAL" not in raw) or len(raw) > 8000:
            continue
        found.append(raw)
    return found


def _run(fn, text, monkeypatch):
    monkeypatch.setattr(_core_util, "pastes", lambda source: [("p.txt", text)])
    a = AccessInfo()
    fn(None, a)
    return dict(a.env), dict(a.sources), list(a.notes)


def test_pasted_visible_and_overrides_read_as_the_line_loop_did(monkeypatch):
    rng = random.Random(11)
    hits = 0
    for _ in range(1500):
        text = "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 25)))
        got = _run(access._pasted_visible, text, monkeypatch)
        # every value taken is one a line of the reference loop shows
        for k, v in got[0].items():
            assert any(k in raw for raw in _reference_visible(text))
        hits += bool(got[0])
        env = _run(access._pasted_overrides, text, monkeypatch)[0]
        for k, v in env.items():
            assert any(k in line and v in line for line in text.replace("\r", "\n").split("\n"))
    assert hits > 100
