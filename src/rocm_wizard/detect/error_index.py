"""The known error texts' needles and patterns in a compact form shipped with the package, so that a
scan of a text with no needle of the table (or a few) costs no loading of the whole table.

:mod:`rocm_wizard.detect.error_signatures` builds its table at import: it unmarshals the parsed
failure catalogue (``failures.toml``, some 450 kB) and makes a frozen record per row, which was most
of a live ``detect --json``'s errors probe.  ``_error_index.marshal`` (beside this module, made by
``scripts/regen_error_index.py``) holds, for each signature of that table in its order, its id, its
pattern and flags as compiled there, whether it matches the whole text, its needles and its
catalogue layer.  It is valid only for the exact bytes of ``error_signatures.py`` and
``failures.toml`` it was made from (their CRC-32s are in it); otherwise, and wherever the table is
already loaded, :func:`scan` is the table's own :func:`~rocm_wizard.detect.error_signatures.scan`.

:func:`scan` gives what ``error_signatures.scan`` gives (that one is held to the plain
``scan_reference``, which runs every signature whose needles are in the text over the whole text):
only the signatures one of whose needles is in the text are compiled and run.
``tests/detect/test_error_index.py`` checks the shipped form is current and the results equal.
"""
from __future__ import annotations

import marshal
import os
import re
import sys
import zlib
from typing import Any, Dict, List, Optional, Tuple

from .parsers._core_text import lowered

_HERE = os.path.dirname(os.path.abspath(__file__))
INDEX_FILE = os.path.join(_HERE, "_error_index.marshal")
_TABLE_MODULE = "rocm_wizard.detect.error_signatures"
_FORMAT = 2
#: (id, pattern, flags, whole, needles, catalogue layer or None, meaning of a whole-text signature or
#: None, the pattern's literal factors, whether every match lies within one line): one row per
#: signature, in table order (the last two as ``error_signatures.factors`` / ``line_bound`` say)
Row = Tuple[str, str, int, bool, Tuple[str, ...], Optional[str], Optional[str], Tuple[str, ...], bool]

_loaded: Optional[Tuple[Tuple[Row, ...], Tuple[str, ...]]] = None
_tried = False


def table_key() -> Tuple[int, int]:
    """CRC-32s of the two files the table is made of: ``error_signatures.py`` and ``failures.toml``."""
    out = []
    for name in ("error_signatures.py", "failures.toml"):
        with open(os.path.join(_HERE, name), "rb") as fh:
            out.append(zlib.crc32(fh.read()))
    return (out[0], out[1])


def build() -> Dict[str, Any]:
    """The index of the table as loaded now (what ``scripts/regen_error_index.py`` writes)."""
    from . import error_signatures as es

    rows = []
    for sig in es.SIGNATURES:
        row = es.failure(sig.id)
        rows.append((sig.id, sig.pattern, es.pattern(sig).flags, bool(sig.whole), tuple(sig.needles),
                     row.layer if row is not None else None, sig.meaning if sig.whole else None,
                     tuple(es._factors_of(sig)), bool(es._line_bound_of(sig))))
    # (the needle index of error_signatures.scan's short texts: its trie pattern's text and map,
    # which take longer to make than to read; the pattern is compiled where it is used)
    return {"format": _FORMAT, "key": table_key(), "rows": tuple(rows),
            "needle_index": es.needle_index_parts(es.SIGNATURES)}


def read(path: str = INDEX_FILE) -> Optional[Tuple[Tuple[Row, ...], Tuple[str, ...]]]:
    """(rows, every distinct needle) of the index in ``path``, None where it is missing, unreadable
    or not that of the table's files as they are now."""
    data = _read_data(path)
    if data is not None:
        try:
            rows = tuple(data["rows"])
            return rows, tuple(sorted({n for r in rows for n in r[4]}))
        except (TypeError, KeyError, IndexError):
            pass
    return None


def _read_data(path: str) -> Optional[Dict[str, Any]]:
    """The index in ``path`` as written, None where it is missing, unreadable or not that of the
    table's files as they are now."""
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())
        if isinstance(data, dict) and data.get("format") == _FORMAT and tuple(data["key"]) == table_key():
            return data
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        pass
    return None


_needles_read: Optional[Tuple[Optional[Tuple[Any, Any, Any]], int]] = None
_data_read: Optional[Tuple[Optional[Dict[str, Any]]]] = None


def _data_once() -> Optional[Dict[str, Any]]:
    """:func:`_read_data` of the shipped index, read once for the needle index and the rows' facts."""
    global _data_read
    if _data_read is None:
        _data_read = (_read_data(INDEX_FILE),)
    return _data_read[0]


def _needle_data() -> Tuple[Optional[Tuple[Any, Any, Any]], int]:
    """(the shipped needle index or None, the number of rows it was made with), read once."""
    global _needles_read
    if _needles_read is None:
        data = _data_once()
        got, rows = None, -1
        if data is not None:
            try:
                pattern, reach, free = data["needle_index"]
                if (pattern is None or isinstance(pattern, str)) and isinstance(reach, dict) and isinstance(free, tuple):
                    got, rows = (pattern, reach, free), len(data["rows"])
            except (KeyError, TypeError, ValueError):
                pass
        _needles_read = (got, rows)
    return _needles_read


def needle_index() -> Optional[Tuple[Optional[str], Dict[str, Tuple[int, ...]], Tuple[int, ...]]]:
    """``error_signatures.needle_index_parts`` of the table as the shipped index holds it (written
    by :func:`build`), None where the index is missing, stale or holds none."""
    return _needle_data()[0]


def needle_index_rows() -> int:
    """The number of signatures the shipped needle index was made for (-1: none)."""
    return _needle_data()[1]


def row_facts() -> Optional[Dict[str, Tuple[str, Tuple[str, ...], bool]]]:
    """``{signature id: (pattern, literal factors, whether every match lies within one line)}`` as the
    shipped index holds them (``error_signatures.factors`` / ``line_bound`` of the table it was made
    from, which parse every pattern), None where the index is missing or stale."""
    data = _data_once()
    if data is None:
        return None
    try:
        return {r[0]: (r[1], tuple(r[7]), bool(r[8])) for r in data["rows"]}
    except (KeyError, TypeError, IndexError):
        return None


def _index() -> Optional[Tuple[Tuple[Row, ...], Tuple[str, ...]]]:
    """The shipped index (:func:`read`), read once."""
    global _loaded, _tried
    if not _tried:
        _tried = True
        _loaded = read()
    return _loaded


def usable() -> bool:
    """Whether :func:`scan` answers from the shipped index (the table module not loaded yet, and
    the index current)."""
    return _TABLE_MODULE not in sys.modules and _index() is not None


def scan(text: object, limit: int = 50) -> List[Tuple[str, Optional[str], str]]:
    """``[(signature id, its catalogue layer or None, matching line)]``: the hits
    ``error_signatures.scan(text, limit)`` gives, in its order."""
    if not usable():
        from . import error_signatures as es

        out = []
        for sig, line in es.scan(text, limit):
            row = es.failure(sig.id)
            out.append((sig.id, row.layer if row is not None else None, line))
        return out
    return scan_with(_index(), text, limit)  # type: ignore[arg-type]


def scan_with(index: Tuple[Tuple[Row, ...], Tuple[str, ...]], text: object,
              limit: int = 50) -> List[Tuple[str, Optional[str], str]]:
    """:func:`scan` through ``index`` (:func:`read`'s answer)."""
    if not isinstance(text, str) or not text:
        return []
    rows, needles = index
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    low = lowered(text)
    present = {n for n in needles if n in low}
    # as error_signatures.scan: offsets in low are offsets in text, and no character that matches a
    # letter under re.I lower-cases to another one, so literal factors are found in low
    flow = factor_case(text, low)  # (the factors' copy of low: the needles above are looked up in low itself)
    plain = flow is not None
    starts_of: Dict[str, List[int]] = {}
    found: List[Tuple[str, Optional[str], str]] = []
    seen = set()
    for sid, pattern, flags, whole, sig_needles, layer, meaning, factors, bound in rows:
        if sig_needles and not any(n in present for n in sig_needles):
            continue
        starts = _factor_lines(text, flow, factors, starts_of) if plain and bound and not whole else None
        if starts is not None and not starts:
            continue  # (no line holds a factor: no match, and nothing to compile)
        rx = re.compile(pattern, flags)
        if starts is not None:
            # only the lines that hold a factor (each match lies within one line and contains one)
            size = len(text)
            for st in starts:
                nl = text.find("\n", st)
                stop = size if nl < 0 else nl
                m = rx.search(text, st, size if nl < 0 else nl + 1)
                if m is None or m.start() > stop:
                    continue
                clean = text[st:stop].strip()[:4000]
                if (sid, clean) in seen:
                    continue
                seen.add((sid, clean))
                found.append((sid, layer, clean))
                if len(found) >= limit:
                    return found
            continue
        if whole:
            m = rx.search(text)
            if m:
                said = " / ".join(l.strip() for l in m.group(0).splitlines() if l.strip())[:4000] or meaning
                if (sid, said) not in seen:
                    seen.add((sid, said))
                    found.append((sid, layer, said))
            continue
        for m in rx.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            clean = text[start:end if end >= 0 else len(text)].strip()[:4000]
            if (sid, clean) in seen:
                continue
            seen.add((sid, clean))
            found.append((sid, layer, clean))
            if len(found) >= limit:
                return found
    return found



_ODD_CASE = re.compile("[\u0130\u0131\u017f]")  # (also error_signatures._ODD_CASE)
_CHARS_PER_LINE_CALL = 48  # (error_signatures._CHARS_PER_LINE_CALL)


def factor_case(text: str, low: str) -> Optional[str]:
    """(s15-speed) The copy of ``low`` (``text``'s lower case) that literal factors are looked up in
    (by :func:`_factor_lines`, offsets in it being offsets in ``text``), or None where there is none:
    a character lower-cased to two (U+0130 does).  U+0131 and U+017F match i and s under re.I but
    lower-case to themselves: they stand as i and s in the copy (one character for one), and each
    factor is looked up as i and s too, so every line a pattern can match on still holds one of its
    factors there -- the pattern itself still decides on the line, so the answers are those of the
    whole-text scan that such a text used to get."""
    if len(low) != len(text) or "\u0130" in text:
        return None
    if "\u0131" not in text and "\u017f" not in text:  # (_ODD_CASE's other two: a find each, cheaper than its search)
        return low
    return _fold(low)


def _fold(s: str) -> str:
    return s.replace("\u0131", "i").replace("\u017f", "s")


def _factor_lines(text: str, low: str, factors: Tuple[str, ...], cache: Dict[str, List[int]]) -> Optional[List[int]]:
    """The start offsets, in order, of the lines of ``text`` that hold one of ``factors``; None when
    there are none or they are on too many lines for a search per line to pay (as
    ``error_signatures._factor_lines``).  ``low`` is :func:`factor_case`'s copy."""
    if not factors:
        return None
    most = len(text) // _CHARS_PER_LINE_CALL
    starts: set = set()
    for n in factors:
        got = cache.get(n)
        if got is None:
            got = []
            f = _fold(n)  # (as factor_case's copy has them; a factor without them is itself)
            i = low.find(f)
            while i >= 0:
                got.append(text.rfind("\n", 0, i) + 1)
                if len(got) > most:
                    break
                nl = text.find("\n", i + len(f))
                if nl < 0:
                    break
                i = low.find(f, nl + 1)
            cache[n] = got
        if len(got) > most:
            return None
        starts.update(got)
        if len(starts) > most:
            return None
    return sorted(starts)
