"""The failure catalogue (``detect/failures.toml``) as data: every row compiles, is linear-safe
(no nested quantifiers), has needles its matches contain, a known layer and severity, a source
naming a repository and the file that prints the message, and a real example line (from a real
fixture under ``tests/data/real`` or from ``tests/data/failure_examples.toml`` with its URL) that
its own pattern matches and that no earlier row of another layer claims first."""
from __future__ import annotations

import functools
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Tuple

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.error_signatures import FAILURES, LAYERS

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

try:
    from re import _parser as sre_parse  # type: ignore[attr-defined]  # Python >= 3.11
    from re import _constants as sre_c  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as sre_c  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "data" / "real"
EXAMPLES_FILE = REPO / "tests" / "data" / "failure_examples.toml"
ROWS = [pytest.param(f, id=f.id) for f in FAILURES]
SEVERITIES = ("info", "warning", "error", "critical")
PATHS = (None, "rocm-upgrade", "torch-reinstall", "docker")
STATUSES = ("documented", "observed", "inferred")


def _rx(row) -> re.Pattern:
    return error_signatures.pattern(error_signatures.by_id(row.id))


# read once per process, not once per row (each test_example_is_a_real_line read all ~1000 pastes again)
@functools.lru_cache(maxsize=None)
def _real_texts() -> Tuple[str, ...]:
    return tuple(p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt")))


@functools.lru_cache(maxsize=None)
def _public_examples() -> Tuple[Mapping[str, Any], ...]:
    if not EXAMPLES_FILE.is_file():
        return ()
    with open(EXAMPLES_FILE, "rb") as fh:
        return tuple(MappingProxyType(e) for e in tomllib.load(fh).get("example", []))


def test_the_catalogue_is_there_and_ids_are_unique():
    ids = [f.id for f in FAILURES]
    assert len(ids) >= 60
    assert len(ids) == len(set(ids))
    python_ids = {s.id for s in error_signatures.SIGNATURES[: len(error_signatures.SIGNATURES) - len(FAILURES)]}
    assert not python_ids & set(ids), "a catalogue row reuses the id of a Python signature"
    # the rows joined the one table the errors probe scans
    assert all(error_signatures.by_id(i) is not None for i in ids)


def _nested_repeat(tree, inside=False) -> bool:
    for op, av in tree:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            unbounded = hi == sre_c.MAXREPEAT or hi > 64
            if inside and unbounded:
                return True
            if _nested_repeat(sub, inside or unbounded):
                return True
        elif op == sre_c.SUBPATTERN:
            if _nested_repeat(av[-1], inside):
                return True
        elif op == sre_c.BRANCH:
            if any(_nested_repeat(b, inside) for b in av[1]):
                return True
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            if _nested_repeat(av[1], inside):
                return True
    return False


@pytest.mark.parametrize("row", ROWS)
def test_row_is_well_formed(row):
    rx = _rx(row)
    assert not _nested_repeat(sre_parse.parse(row.pattern)), "nested unbounded quantifiers: not linear-safe"
    assert row.layer in LAYERS
    assert row.severity in SEVERITIES and row.path in PATHS and row.status in STATUSES
    assert row.needles and all(n == n.lower() and len(n) >= 4 for n in row.needles)
    assert row.meaning and row.causes and row.next and row.fix
    # the source names a repository (owner/name) and a file (a name with an extension, or one of initramfs-tools' extensionless scripts)
    assert re.search(r"\b[\w.-]+/[\w.-]+\b", row.source), row.source
    assert re.search(r"[\w-]+\.(?:c|cc|cpp|h|hpp|py|go|rs|cu|in|cmake|toml|nix|ps1|bat|sh|jl|ts|cs)\b|hook-functions|\bmkinitramfs\b|\bupdate-initramfs\b", row.source), row.source
    m = rx.search(row.example)
    assert m, "the example line does not match its own pattern"
    assert any(n in m.group(0).lower() for n in row.needles), "no needle in the example's match"


@pytest.mark.parametrize("row", ROWS)
def test_example_is_claimed_first_by_a_row_of_its_layer(row):
    first = next(f for f in FAILURES if _rx(f).search(row.example))
    assert first.layer == row.layer, (first.id, first.layer)


# conversions of a source format string: printf's (C/C++ and the kernel's %p extensions), Python
# logging's %r, Go's %v/%w (fmt.Errorf), and the {fields} of Python f-strings and str.format
_CONV = re.compile(r"%([-+ #0]*)(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?([diuxXscpo%rvwf])|\{[\w.\[\]'\"!:()]*\}")


def _format_rx(fmt: str, cut: int = 0) -> re.Pattern:
    """The lines a format string can print: its constant parts literally, each conversion as any
    run of characters of a line.  Written apart from the catalogue's patterns on purpose."""
    parts, pos, fmt = [], 0, fmt.strip()
    for m in _CONV.finditer(fmt):
        parts.append(re.escape(fmt[pos:m.start()]))
        parts.append("%" if m.group(2) == "%" else r"[^\n]*?")
        pos = m.end()
    parts.append(re.escape(fmt[pos:]))
    return re.compile("".join(parts), re.I)


def _render(fmt: str, values: dict) -> str:
    def one(m: re.Match) -> str:
        conv = m.group(2) or "s"  # an f-string field prints like %s
        if conv == "%":
            return "%"
        return ("0x" if "#" in (m.group(1) or "") and conv in "xX" else "") + values[conv]
    return _CONV.sub(one, fmt)


_SAMPLES = ({"d": "0", "i": "1", "u": "7", "x": "ff", "X": "0A", "o": "7", "c": "a", "s": "sdma0", "p": "00000000deadbeef",
             "r": "ImportError('libamdhip64.so.6')", "v": "exit status 2", "w": "no such file or directory", "f": "512.00"},
            {"d": "-110", "i": "-22", "u": "4294967295", "x": "0", "X": "FFFF", "o": "0", "c": "Z", "s": "gfx_0.0.0", "p": "ffff9b2a40c8",
             "r": "'gfx1100'", "v": "[gfx1030 gfx1100]", "w": "stat /usr/lib/ollama/rocm: permission denied", "f": "98988.40"})
FORMAT_ROWS = [pytest.param(f, id=f.id) for f in FAILURES if f.format]


@pytest.mark.parametrize("row", ROWS)
def test_example_is_a_real_line(row):
    if row.example_source:
        found = [e for e in _public_examples() if e.get("line") == row.example]
        assert found and found[0].get("source", "").startswith("https://"), "not in failure_examples.toml with its URL"
        assert row.example_source == found[0]["source"]
    elif not any(row.example in t for t in _real_texts()):
        # no real paste shows it: the example is the message's own format string (verbatim from its
        # source, a documented row) rendered with sample values
        assert row.format and row.status == "documented", "the example is in no file of tests/data/real and the row has no source format"
        assert _format_rx(row.format).search(row.example), "the example is not a line the row's source format prints"


def test_most_rows_carry_their_source_format_and_the_catalogue_is_large():
    assert len(FAILURES) >= 300
    assert len(FORMAT_ROWS) >= 180
    layers = {f.layer for f in FAILURES}
    assert layers == set(LAYERS)


@pytest.mark.parametrize("row", FORMAT_ROWS)
def test_pattern_matches_whatever_the_format_prints(row):
    """The variable parts (%d, %s, %x...) of the message are groups of the pattern, not the sample
    values of one paste: two renderings with different values are both matched, and the constant
    part the pattern is anchored on is in the format."""
    rx = _rx(row)
    for values in _SAMPLES:
        line = "[  12.000001] amdgpu 0000:c3:00.0: amdgpu: " + _render(row.format, values)
        m = rx.search(line)
        assert m, (row.pattern, line)
        assert any(n in m.group(0).lower() for n in row.needles)
    assert any(n in row.format.lower() for n in row.needles), "the needle is not a constant part of the format"


def test_scan_finds_every_example_with_its_row():
    for row in FAILURES:
        assert row.id in {s.id for s, _ in error_signatures.scan(row.example)}, row.id


@pytest.mark.parametrize("row", ROWS)
def test_a_row_whose_match_spans_lines_is_matched_whole(row):
    """A finding names one line; a row whose pattern matches across lines (a traceback frame and its
    source line, a command and the crash under it) says ``whole = true`` (one finding per text, its
    lines joined), so no finding's line holds a line break.  Checked on the row's own example, every
    match of it: the hostile-input test below only samples examples."""
    if row.whole:
        return
    rx = error_signatures.pattern(row.signature())
    for m in rx.finditer(row.example):
        assert "\n" not in m.group(0), (row.id, m.group(0))


def test_public_examples_name_their_thread():
    for e in _public_examples():
        assert e.get("source", "").startswith("https://") and e.get("line"), e


_POOL = [f.example for f in FAILURES]
hostile = st.one_of(
    st.text(max_size=3000),
    st.lists(st.sampled_from(_POOL), max_size=30).map("\n".join),
    # cut and repeated examples: the prefixes that make backtracking patterns blow up
    st.tuples(st.sampled_from(_POOL), st.integers(1, 200), st.integers(5, 400)).map(
        lambda t: (t[0][: t[1]] * t[2])[:20000]),
    st.tuples(st.sampled_from(_POOL), st.sampled_from([" ", "a", "0", "[", ":", "/", "\t"]), st.integers(100, 5000)).map(
        lambda t: t[0][: len(t[0]) // 2] + t[1] * t[2]),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile)
# (found by Hypothesis in the fifteenth session: a row's "(?:^|\s)#0" began its match at the line break before it)
@example("0\n#0 0X0 IN __0_MOD_0")
def test_catalogue_scan_never_raises_on_hostile_input(text):
    found = error_signatures.scan(text)
    assert isinstance(found, list)
    for sig, line in found:
        assert "\n" not in line
