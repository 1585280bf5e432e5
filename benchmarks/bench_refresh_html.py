#!/usr/bin/env python3
"""How long ``catalog refresh``'s anchor scan (``refresh_parse.simple_links``) takes on hostile
index pages of 1 MiB and of ``refresh_net.PAGE_LIMIT`` (16 MiB), and on a realistic PEP 503 page
of the same sizes (PyPI's layout: about 300 bytes per file), with the ratio of the two sizes (16
when linear, 256 when quadratic).  ``--html-parser`` also times the standard library's
``html.parser`` (what refresh used before, quadratic on CPython without the CVE-2025-6069 fix) on
64 KiB and 128 KiB pages (ratio 2 when linear, 4 when quadratic; on 3.11.7 its 1 MiB ``<a``
page did not finish in 13 minutes).  Prints, never asserts.

Usage::

    PYTHONPATH=src python benchmarks/bench_refresh_html.py [--runs 3] [--html-parser]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rocm_wizard.catalog.refresh_net import PAGE_LIMIT  # noqa: E402
from rocm_wizard.catalog.refresh_parse import ParseError, simple_links  # noqa: E402

MiB = 1024 * 1024
ROW = ('<a href="https://files.pythonhosted.org/packages/7b/64/1ad0107cec15706e4d972fcbfaa6b3da26734959109861a60902c922b50c/'
       'torch-2.15.0-cp315-cp315t-win_amd64.whl#sha256=c521a00891e92aba2f34717671c268acd0bde26444623efcceaeaf51c87b3b36" '
       'data-requires-python="&gt;=3.11">torch-2.15.0-cp315-cp315t-win_amd64.whl</a><br/>\n')
SHAPES = {
    "<a repeated": "<a",
    "<a x (tag never closed)": "<a x",
    "unclosed quote": "<a href='x",
    "<!-- repeated": "<!--",
    "end tags </": "</",
    "<! repeated": "<!",
    "real rows (~300 B/file)": ROW,
}


def page(unit: str, size: int) -> bytes:
    return (unit * (size // len(unit))).encode()


def scan(body: bytes) -> None:
    try:
        simple_links(body, "text/html", "https://pypi.org/simple/torch/")
    except ParseError:  # more than MAX_LINKS links: refused, after the scan that counted them
        pass


def best(fn, runs: int) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--html-parser", action="store_true")
    args = ap.parse_args()
    big = PAGE_LIMIT
    print(f"Python {sys.version.split()[0]}; PAGE_LIMIT {big // MiB} MiB")
    print("%-26s %10s %10s %7s" % ("shape", "1 MiB", f"{big // MiB} MiB", "ratio"))
    for name, unit in SHAPES.items():
        small_page, big_page = page(unit, MiB), page(unit, big)
        t1 = best(lambda: scan(small_page), args.runs)
        t2 = best(lambda: scan(big_page), args.runs)
        print("%-26s %8.0fms %8.0fms %7.1f" % (name, t1 * 1e3, t2 * 1e3, t2 / max(t1, 1e-9)))
    if args.html_parser:
        from html.parser import HTMLParser

        def feed(body: bytes) -> None:
            p = HTMLParser()
            p.feed(body.decode())
            p.close()

        print("\nhtml.parser (before):")
        print("%-26s %10s %10s %7s" % ("shape", "64 KiB", "128 KiB", "ratio"))
        for name, unit in SHAPES.items():
            a, b = page(unit, 64 * 1024), page(unit, 128 * 1024)
            t1 = best(lambda: feed(a), 1)
            t2 = best(lambda: feed(b), 1)
            print("%-26s %8.0fms %8.0fms %7.1f" % (name, t1 * 1e3, t2 * 1e3, t2 / max(t1, 1e-9)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
