"""The stored regex engine code (``rocm_wizard._re_code``, ``_re_code.marshal``): every stored pattern
builds the very pattern ``re`` compiles, and anything the file cannot answer compiles as before."""
from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_wizard import _re_code

REPO = Path(__file__).resolve().parents[1]


def _same(a: re.Pattern, b: re.Pattern) -> bool:
    # Pattern.__eq__ compares the flags, the pattern and the engine code
    return a == b and a.groups == b.groups and dict(a.groupindex) == dict(b.groupindex) and a.flags == b.flags


def test_every_stored_pattern_is_what_re_compiles():
    table = _re_code.load()
    if _re_code.header() != marshal.loads(Path(_re_code.CODE_FILE).read_bytes())[0]:
        pytest.skip("the stored code is for another Python (%s): it is not used here" % (_re_code.header(),))
    assert len(table) > 300
    comp = _re_code._compiler()
    bad = [p for (p, flags), e in table.items() if not _same(_re_code.build(p, e), comp.compile(p, flags))]
    assert not bad, bad[:3]


def test_entry_of_matches_re_for_varied_patterns():
    comp = _re_code._compiler()
    for p, flags in ((r"(?P<a>x+)(?:y|z)*\b(?P<b>\d{2,5})$", 0), (r"gfx(?P<t>[0-9a-f]{3,4})", re.I),
                     (r"^\s*Name:\s+(gfx\w+)\s*$", re.M), ("caf\u00e9|\U0001f600", 0), (r"(?x) a  b # c", 0),
                     (r"(?i)ab(?-i:C)", 0), (r"[^\W\d_]+", re.A), (r"a{3,}?", re.S)):
        e = _re_code.entry_of(p, int(flags))
        assert e is not None
        assert _same(_re_code.build(p, e), comp.compile(p, int(flags)))
    assert _re_code.entry_of(r"x", re.DEBUG) is None
    assert _re_code.entry_of(rb"x", 0) is None  # type: ignore[arg-type]


def test_install_answers_stored_patterns_and_compiles_others(tmp_path, monkeypatch):
    pat, other = r"(?P<dev>[0-9a-f]{4})\s+s11sp-stored", r"s11sp-not-stored\d+"
    table = {(pat, 0): _re_code.entry_of(pat, 0)}
    path = tmp_path / "code.marshal"
    path.write_bytes(_re_code.dumps(table))
    monkeypatch.setattr(_re_code, "CODE_FILE", str(path))
    comp = _re_code._compiler()
    original = comp.compile
    calls = []

    def counting(p, flags=0):
        calls.append(p)
        return original(p, flags)

    monkeypatch.setattr(comp, "compile", counting)
    _re_code.uninstall()
    try:
        assert _re_code.install()
        got = comp.compile(pat, 0)
        assert calls == []  # built from the stored code
        assert got.match("83af  s11sp-stored").group("dev") == "83af"
        assert _same(got, original(pat, 0))
        comp.compile(other, 0)
        assert calls == [other]
        comp.compile(pat, re.I)  # (other flags: not stored)
        assert calls == [other, pat]
    finally:
        _re_code.uninstall()
    assert comp.compile is counting


def test_a_file_of_another_interpreter_or_damaged_is_not_used(tmp_path):
    path = tmp_path / "code.marshal"
    path.write_bytes(marshal.dumps((("cpython", (2, 7), 1, 4, "I"), {("x", 0): (0, b"", 0, {}, ())})))
    assert _re_code.load(str(path)) == {}
    path.write_bytes(b"\x00damaged")
    assert _re_code.load(str(path)) == {}
    assert _re_code.load(str(tmp_path / "missing")) == {}


def test_off_switch_and_same_output():
    """``ROCM_WIZARD_RE_CODE=0`` leaves ``re`` alone; doctor's output is the same either way."""
    fixture = sorted((REPO / "tests" / "data" / "real").glob("*/*.txt"))[0]
    outs = []
    for flag in ("1", "0"):
        env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_RE_CODE=flag)
        r = subprocess.run([sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", str(fixture), "--json"],
                           capture_output=True, text=True, env=env, timeout=120)
        outs.append(r.stdout)
    assert outs[0] and outs[0] == outs[1]
