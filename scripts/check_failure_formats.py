#!/usr/bin/env python3
"""Check the failure catalogue's format strings against the sources they are taken from.

Every row of ``src/rocm_wizard/detect/failures.toml`` with a ``format`` names its source file; this
script looks the format up, verbatim, among the C string literals of that file (adjacent literals
joined, escapes undone, a trailing newline ignored) in a checkout given on the command line, and,
where the source gives a line number, checks that the literal starts within a few lines of it.
Run it when re-basing rows on a newer release; the test suite never needs the checkouts.

Usage:
  python scripts/check_failure_formats.py --tree torvalds/linux=PATH [--tree ROCm/clr=PATH ...]
Exit status 0 when every row of the given repositories was found, 1 otherwise.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
CATALOGUE = REPO / "src" / "rocm_wizard" / "detect" / "failures.toml"
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_JOIN = re.compile(r'"\s*"')


def literals(text: str):
    """(string, first line) of every C string literal, adjacent literals joined."""
    out = []
    pos = 0
    while True:
        m = _LITERAL.search(text, pos)
        if not m:
            return out
        value, end = m.group(1), m.end()
        while True:
            j = re.match(r'\s*"((?:[^"\\\n]|\\.)*)"', text[end:])
            if not j:
                break
            value += j.group(1)
            end += j.end()
        line = text.count("\n", 0, m.start()) + 1
        value = value.replace('\\"', '"').replace("\\n", "").replace("\\t", "\t").replace("\\\\", "\\")
        out.append((value, line))
        pos = end


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", default=[], metavar="OWNER/NAME=PATH",
                    help="a checkout of a repository named in the rows' sources")
    args = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree)
    with open(CATALOGUE, "rb") as fh:
        rows = tomllib.load(fh)["failure"]
    checked = bad = 0
    cache = {}
    for row in rows:
        fmt = row.get("format")
        if not fmt:
            continue
        m = re.match(r"([\w.-]+/[\w.-]+) ((?:[\w.+-]+/)*[\w.+-]+\.(?:cpp|cc|c|hpp|h|py))\b(?::(\d+))?", row["source"])
        if not m or m.group(1) not in trees:
            continue
        repo, path, line = m.group(1), m.group(2), m.group(3)
        f = Path(trees[repo]) / path
        if f not in cache:
            cache[f] = literals(f.read_text(encoding="utf-8", errors="replace")) if f.is_file() else None
        lits = cache[f]
        checked += 1
        if lits is None:
            print("MISSING FILE %s: %s" % (row["id"], f))
            bad += 1
            continue
        want = fmt.rstrip("\n")
        if want.startswith("HIP error: ") and "'HIP error: %s'" in row["source"]:
            want = want[len("HIP error: "):]  # PyTorch's prefix (named in the source), then HIP's own string
        hits = [ln for s, ln in lits if want == s.rstrip("\n") or want in s]
        if not hits:
            print("NOT FOUND %s: %r in %s" % (row["id"], want, path))
            bad += 1
        elif line and not any(abs(int(line) - h) <= 3 for h in hits):
            print("MOVED %s: %s:%s, found at %s" % (row["id"], path, line, hits))
            bad += 1
    print("%d rows checked, %d not as written" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
