"""The known error table's shipped index (``detect/error_index.py``) answers as the table does.

A live detection scans the kernel log through the index: only the signatures one of whose needles
the text holds are compiled and run, and the table itself (``error_signatures``, which unmarshals
the whole failure catalogue at import) is not loaded.  The index must be that of the table's files
as they are (``scripts/regen_error_index.py``), and give the same hits, in the same order, with the
same catalogue layers, as ``error_signatures.scan`` on every real fixture.
"""
from __future__ import annotations

import marshal
import shutil
from pathlib import Path
from typing import List

import pytest

from rocm_wizard.detect import error_index
from rocm_wizard.detect import error_signatures as es

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _real_texts() -> List[str]:
    return [p.read_bytes().decode("utf-8", "replace") for p in sorted(REAL.glob("*/*"))
            if p.is_file() and p.name != "labels.toml"]


TEXTS = _real_texts()


def _table_scan(text, limit=50):
    out = []
    for sig, line in es.scan(text, limit):
        row = es.failure(sig.id)
        out.append((sig.id, row.layer if row is not None else None, line))
    return out


def test_the_shipped_index_is_current():
    """Fails while ``_error_index.marshal`` is not that of error_signatures.py and failures.toml:
    run ``python scripts/regen_error_index.py``."""
    shipped = error_index.read()
    assert shipped is not None, "run scripts/regen_error_index.py"
    assert shipped[0] == error_index.build()["rows"]


def test_the_shipped_needle_index_is_the_table_s_and_the_scan_uses_it(monkeypatch):
    """The short texts' needle index (error_signatures._needle_index) comes from the shipped index
    for the table error_signatures built, and is made from the table where the table is another
    one (a test's) or the index holds none."""
    assert error_index.needle_index() == es.needle_index_parts(es.SIGNATURES)
    assert error_index.needle_index_rows() == len(es.SIGNATURES)
    monkeypatch.setattr(es, "_index_key", None)
    asked = []
    real = es.needle_index_parts
    monkeypatch.setattr(es, "needle_index_parts", lambda sigs: asked.append(len(sigs)) or real(sigs))
    rx, reach, free = es._needle_index()
    assert not asked and rx.pattern == error_index.needle_index()[0] and reach == error_index.needle_index()[1]
    other = es.SIGNATURES[:40]
    monkeypatch.setattr(es, "SIGNATURES", other)
    rx, reach, free = es._needle_index()
    assert asked == [40] and all(i < 40 for ids in reach.values() for i in ids)
    monkeypatch.setattr(es, "SIGNATURES", es._TABLE)
    monkeypatch.setattr(error_index, "_needles_read", (None, -1))  # (an index without it)
    es._needle_index()
    assert asked == [40, len(es._TABLE)]


def test_factors_and_line_bounds_come_from_the_shipped_index_as_the_patterns_give_them(monkeypatch):
    """(s11-speed) error_signatures.factors / line_bound read the shipped index's rows for the table it
    built (no pattern parsed in a run): the same answers as working them out from every pattern; for
    another table, or without an index, they are worked out."""
    facts = error_index.row_facts()
    assert facts is not None and len(facts) == len(es._TABLE)
    for sig in es._TABLE:
        assert facts[sig.id] == (sig.pattern, es._factors_of(sig), es._line_bound_of(sig)), sig.id
    monkeypatch.setattr(es, "_FACTORS", {})
    monkeypatch.setattr(es, "_BOUND", {})
    monkeypatch.setattr(es, "_seeded", False)
    parsed = []
    real = es._sre_parse

    def counting():
        parsed.append(1)
        return real()

    monkeypatch.setattr(es, "_sre_parse", counting)
    some = [s for s in es._TABLE if not s.whole][:50]
    assert [(es.factors(s), es.line_bound(s)) for s in some] == [(es._factors_of(s), es._line_bound_of(s)) for s in some]
    assert len(parsed) == 2 * len(some)  # (only the reference calls above parsed)
    # another table: worked out from the patterns
    monkeypatch.setattr(es, "_FACTORS", {})
    monkeypatch.setattr(es, "_BOUND", {})
    monkeypatch.setattr(es, "_seeded", False)
    monkeypatch.setattr(es, "SIGNATURES", es._TABLE[:10])
    parsed.clear()
    es.factors(es._TABLE[0])
    assert parsed == [1]
    # no index (stale or missing): worked out too
    monkeypatch.setattr(es, "SIGNATURES", es._TABLE)
    monkeypatch.setattr(es, "_FACTORS", {})
    monkeypatch.setattr(es, "_seeded", False)
    monkeypatch.setattr(error_index, "_data_read", (None,))
    parsed.clear()
    assert es.factors(es._TABLE[0]) == es._factors_of(es._TABLE[0])
    assert parsed == [1, 1]


@pytest.mark.parametrize("limit", [1, 50, 10_000])
def test_index_scan_equals_the_table_scan_on_every_fixture(limit):
    index = error_index.read()
    hits = 0
    for text in TEXTS:
        got = error_index.scan_with(index, text, limit)
        assert got == _table_scan(text, limit)
        hits += len(got)
    assert hits > 100  # the fixtures do hold known errors: the comparison can fail


def test_index_scan_on_all_fixtures_at_once_and_odd_texts():
    index = error_index.read()
    mixed = "\n".join(TEXTS)
    assert error_index.scan_with(index, mixed, 10_000) == _table_scan(mixed, 10_000)
    for text in ("", None, 42, "HSA_STATUS_ERROR_OUT_OF_RESOURCES\r\nhipErrorNoBinaryForGpu\r",
                 "nothing here\n" * 1000, "\u0130 HIP OUT OF MEMORY \u017f"):
        assert error_index.scan_with(index, text) == _table_scan(text)


def test_a_stale_or_broken_index_is_not_used(tmp_path):
    good = Path(error_index.INDEX_FILE)
    copy = tmp_path / "idx.marshal"
    shutil.copy(good, copy)
    assert error_index.read(str(copy)) is not None
    data = marshal.loads(good.read_bytes())
    data["key"] = (data["key"][0] ^ 1, data["key"][1])  # error_signatures.py edited since
    copy.write_bytes(marshal.dumps(data, 4))
    assert error_index.read(str(copy)) is None
    copy.write_bytes(b"\x00garbage")
    assert error_index.read(str(copy)) is None
    assert error_index.read(str(tmp_path / "missing")) is None


def test_with_the_table_loaded_scan_is_the_tables():
    """Here the table is loaded (imported above): scan answers from it, monkeypatched rows included."""
    assert not error_index.usable()
    assert error_index.scan("x hipErrorNoBinaryForGpu y") == _table_scan("x hipErrorNoBinaryForGpu y")


def test_the_needle_index_is_built_early_where_its_pattern_is_stored_code(monkeypatch):
    """(s11-speed) With the command-line program's stored regex code holding the needle index's
    pattern, any_match takes the index after a few short texts (asking every needle costs per text);
    without it, only after _PLAIN_CHARS characters, as before.  The answers are the same either way."""
    from rocm_wizard import _re_code

    texts = ["line %d: nothing to see" % i for i in range(40)] + ["hipErrorNoBinaryForGpu: Unable to find code object"]
    want = [es.any_match(t) for t in texts]
    for stored in (True, False):
        monkeypatch.setattr(es, "_index_key", None)
        monkeypatch.setattr(es, "_plain_chars", 0)
        monkeypatch.setattr(es, "_plain_texts", 0)
        monkeypatch.setattr(es, "_cheap", None)
        monkeypatch.setattr(_re_code, "stored", lambda pattern, flags=0: stored)
        got = [es.any_match(t) for t in texts]
        assert got == want
        assert (es._index_key == id(es.SIGNATURES)) is stored
