#!/usr/bin/env python3
"""Write the parsed form of every TOML file the package ships (``src/rocm_wizard/**/*.toml`` and
``plans/*.toml``) to ``src/rocm_wizard/_parsed/<sha256 of the TOML bytes>.marshal``, and remove the
forms no TOML file has any more.  Run it after editing any of those TOML files (the TOML stays the
source of truth; ``tests/catalog/test_parsed_toml.py`` fails while a form is missing or stale).
It also rewrites the known error table's compact index (``detect/_error_index.marshal``, see
``scripts/regen_error_index.py``), which goes stale with ``detect/failures.toml``: one command after
any data edit.  Then it rewrites the regex engine's code of the patterns a ``doctor`` run compiles
(``_re_code.marshal``, ``scripts/regen_re_code.py``): a cache, which ``--check`` leaves out.

Usage: python scripts/regen_parsed_toml.py [--check]
With ``--check`` nothing is written: exit status 1 when a form is missing, differs or is left over.
"""
from __future__ import annotations

import argparse
import marshal
import os
import sys
from pathlib import Path
from typing import Dict

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rocm_wizard.catalog import _data  # noqa: E402

OUT = Path(_data._SHIPPED_DIR)


def shipped_tomls():
    """The TOML files the package ships, in a stable order."""
    pkg = REPO / "src" / "rocm_wizard"
    files = sorted(p for p in pkg.rglob("*.toml") if "_parsed" not in p.parts)
    return files + sorted((REPO / "plans").glob("*.toml"))


def expected() -> Dict[str, bytes]:
    """File name -> bytes of every parsed form the tree's TOML files call for."""
    want: Dict[str, bytes] = {}
    for path in shipped_tomls():
        raw = path.read_bytes()
        data = _data._toml.loads(raw.decode("utf-8"))
        try:
            blob = marshal.dumps(data, _data.SHIPPED_MARSHAL_VERSION)
        except ValueError:  # a value marshal cannot hold (a TOML date): that file is always parsed
            print(f"skipped (not marshal-able): {path.relative_to(REPO)}", file=sys.stderr)
            continue
        want[_data.shipped_name(raw)] = blob
    return want


def _loads(blob: bytes):
    try:
        return marshal.loads(blob)
    except (EOFError, ValueError, TypeError):
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when out of date")
    args = ap.parse_args()
    want = expected()
    have = {p.name: p.read_bytes() for p in OUT.glob("*.marshal")} if OUT.is_dir() else {}
    # compared by what they hold: marshal's bytes may differ between Python versions for equal data
    stale = sorted(n for n in want if n not in have or _loads(have[n]) != marshal.loads(want[n]))
    extra = sorted(n for n in have if n not in want)
    from rocm_wizard.detect import error_index

    index_blob = marshal.dumps(error_index.build(), 4)
    index_path = Path(error_index.INDEX_FILE)
    index_stale = not index_path.is_file() or _loads(index_path.read_bytes()) != marshal.loads(index_blob)
    if args.check:
        for n in stale:
            print(f"missing or different: {n}")
        for n in extra:
            print(f"left over: {n}")
        if index_stale:
            print(f"missing or different: {index_path.relative_to(REPO)}")
        return 1 if stale or extra or index_stale else 0
    if index_stale:
        tmp = index_path.with_name(index_path.name + ".tmp")
        tmp.write_bytes(index_blob)
        os.replace(tmp, index_path)
        print(f"{index_path.relative_to(REPO)} written")
    OUT.mkdir(exist_ok=True)
    for n in stale:
        tmp = OUT / (n + ".tmp")
        tmp.write_bytes(want[n])
        os.replace(tmp, OUT / n)
    for n in extra:
        (OUT / n).unlink()
    print(f"{len(want)} parsed forms: {len(stale)} written, {len(extra)} removed")
    # last, the stored code of the patterns a doctor run compiles (a cache: not part of --check)
    import regen_re_code

    return regen_re_code.main([])


if __name__ == "__main__":
    sys.exit(main())
