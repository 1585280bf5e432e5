"""The regex engine's code of the package's patterns, kept from one run to the next as CPython keeps
compiled modules (``.pyc``).

``re.compile`` parses a pattern and generates the engine's code in Python the first time a process
uses the pattern.  ``doctor`` on a folder of pastes compiles about 600 patterns (the parsers', the
recogniser's, the known error table's and its needle index, one pattern of 25,000 characters), about
0.1 s of CPU in every run -- in the recogniser's forked worker too.  ``_re_code.marshal`` (written by
``scripts/regen_parsed_toml.py``, see :func:`entries`) holds, for the patterns such a run compiles,
what ``re._compiler.compile`` hands to ``_sre.compile``: the final flags, the code, the groups.
:func:`install` (the command-line program only: ``python -m rocm_wizard`` and ``cli.entry``) puts a
step in front of ``re``'s compile that builds a stored pattern with ``_sre.compile`` from that code:
the same pattern object (equal flags, pattern and code: ``Pattern.__eq__``; the same groups), without
the parse.  Anything else -- another Python version or regex engine (the file names the
``sys.version_info``, ``_sre.MAGIC`` and ``_sre.CODESIZE`` it was made with), a pattern not stored
(a row added since), bytes, the DEBUG or LOCALE flag, a file missing or damaged -- compiles as before,
so a stale file only costs the time it would save.  ``ROCM_WIZARD_RE_CODE=0`` leaves ``re`` alone.

Imports nothing of the package.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Dict, Optional, Tuple

CODE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_re_code.marshal")
# flags whose patterns are never stored: re.DEBUG prints while compiling; re.LOCALE is left alone
_SKIP_FLAGS = 128 | 4

Entry = Tuple[int, bytes, int, Dict[str, int], Tuple[Optional[str], ...]]

_installed: Optional[Callable] = None  # the compile step replaced (re._compiler.compile), once installed
_table: Dict[Tuple[str, int], Entry] = {}  # what the installed step answers from


def header() -> Optional[tuple]:
    """What the stored code depends on: the interpreter, its version, the engine's magic number and
    the size of a code word; None where there is no ``_sre`` to build patterns with."""
    try:
        import _sre

        return (sys.implementation.name, tuple(sys.version_info[:2]), int(_sre.MAGIC), int(_sre.CODESIZE),
                _typecode(int(_sre.CODESIZE)))
    except Exception:
        return None


def _typecode(size: int) -> Optional[str]:
    from array import array

    for tc in ("I", "L", "H", "Q"):
        if array(tc).itemsize == size:
            return tc
    return None


def _compiler():
    """``re._compiler`` (Python 3.11 on) or ``sre_compile`` (3.10): the module whose ``compile``
    ``re`` calls."""
    import re

    mod = getattr(re, "_compiler", None)
    if mod is None:
        import sre_compile as mod  # type: ignore[no-redef]
    return mod


def entry_of(pattern: str, flags: int) -> Optional[Entry]:
    """What ``re``'s compile step hands ``_sre.compile`` for ``pattern`` (the code as bytes), worked out
    as that step does; None for a pattern that is not stored (bytes, :data:`_SKIP_FLAGS`)."""
    if not isinstance(pattern, str) or not isinstance(flags, int) or flags & _SKIP_FLAGS:
        return None
    import re
    from array import array

    comp = _compiler()
    parser = getattr(re, "_parser", None)
    if parser is None:
        import sre_parse as parser  # type: ignore[no-redef]
    head = header()
    if head is None or head[4] is None:
        return None
    p = parser.parse(pattern, flags)
    code = comp._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    return (int(flags | p.state.flags), array(head[4], [int(c) for c in code]).tobytes(), int(p.state.groups - 1),
            {str(k): int(v) for k, v in groupindex.items()}, tuple(indexgroup))


def build(pattern: str, entry: Entry):
    """The pattern object ``entry`` describes (``_sre.compile``)."""
    import _sre
    from array import array

    flags, code, groups, groupindex, indexgroup = entry
    return _sre.compile(pattern, flags, array(_typecode(_sre.CODESIZE) or "I", code).tolist(), groups,
                        dict(groupindex), tuple(indexgroup))


def load(path: Optional[str] = None) -> Dict[Tuple[str, int], Entry]:
    """``{(pattern, flags): entry}`` of the file, or ``{}`` where it is missing, damaged or made by
    another interpreter or engine (:func:`header`)."""
    try:
        import marshal

        with open(path or CODE_FILE, "rb") as fh:
            blob = fh.read()
        head, table = marshal.loads(blob)
        if tuple(head) != header() or not isinstance(table, dict):
            return {}
        return table
    except Exception:
        return {}


def dumps(table: Dict[Tuple[str, int], Entry]) -> bytes:
    """The file's bytes for ``table`` (the patterns in order: the same table gives the same bytes).  Not
    compressed: decompressing it would cost a tenth of what it saves."""
    import marshal

    ordered = {k: table[k] for k in sorted(table)}
    return marshal.dumps((header(), ordered), 4)


def install() -> bool:
    """Answer ``re``'s compile step from the stored code from now on in this process (once; True when
    installed).  Nothing is changed where the file holds nothing for this interpreter."""
    global _installed, _table
    if _installed is not None:
        return True
    if os.environ.get("ROCM_WIZARD_RE_CODE", "").strip() == "0":
        return False
    table = load()
    if not table:
        return False
    try:
        import _sre
        from array import array

        comp = _compiler()
        original = comp.compile
        tc = _typecode(int(_sre.CODESIZE))
        if tc is None:
            return False
    except Exception:
        return False
    sre_compile = _sre.compile
    get = table.get

    def compile(p, flags=0):
        if type(p) is str:
            e = get((p, flags))
            if e is not None:
                try:
                    return sre_compile(p, e[0], array(tc, e[1]).tolist(), e[2], dict(e[3]), e[4])
                except Exception:
                    pass
        return original(p, flags)

    compile.__doc__ = original.__doc__
    comp.compile = compile
    _installed = original
    _table = table
    return True


def stored(pattern: str, flags: int = 0) -> bool:
    """Whether compiling ``pattern`` in this process is building it from stored code (installed, and
    the file holds it): a caller that weighs compiling a large pattern against other work."""
    return _installed is not None and (pattern, flags) in _table


def uninstall() -> None:
    """``re``'s own compile step again (for tests)."""
    global _installed, _table
    if _installed is not None:
        _compiler().compile = _installed
        _installed = None
        _table = {}
