#!/usr/bin/env python3
"""How long the paste clean-up and the os-release parser take on hostile 100 KiB and 1 MiB
pastes (issue 14: two patterns used to backtrack quadratically; a 100 KB paste took minutes).

Prints (never asserts) the best of ``--runs`` timings for each shape and size and the ratio of
the 1 MiB to the 100 KiB time (about 10 when linear, about 100 when quadratic), and the time of a
whole ``detect`` of each 1 MiB paste.

Usage::

    PYTHONPATH=src python benchmarks/bench_hostile_paste.py [--runs 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rocm_wizard.detect import detect_snapshot  # noqa: E402
from rocm_wizard.detect.parsers import _paste, os_release  # noqa: E402
from rocm_wizard.detect.paste_text import normalise, unwrapped  # noqa: E402
from rocm_wizard.termsafe import clean  # noqa: E402

SHAPES = {
    "tmux mark": lambda n: "x" + " " * n + "]",
    "release line": lambda n: "a" + " " * n + "release" + "x",
    "parentheses": lambda n: "Ubuntu " + "(" * n,
    "arch suffix": lambda n: "Ubuntu" + " " * n + "(x86_64)z",
    "OSC storm": lambda n: "\x1b]" * (n // 2),
    "mixed lines": lambda n: ("Rocky release 9 " + " " * 60 + "[1/2" + "\x1b]52;c;" + " " * 40 + "]\n") * (n // 128),
    # (s20) detect/paste_text.normalise's shapes: nested quote marks, entities, escaped breaks, a Compose-like column,
    # no-break spaces, one wide wrapped-looking line after another
    "quote storm": lambda n: "> " * (n // 2),
    "entities": lambda n: "&amp;" * (n // 5),
    "escaped breaks": lambda n: "\\n" * (n // 2),
    "compose column": lambda n: ("a" * 80 + "-1" + " " * 40 + "| x\n") * (n // 126),
    "no-break spaces": lambda n: "\u00a0" * n,
    "wide lines": lambda n: ("y" * 99 + "\n") * (n // 100),
    # (s20) nothing but line breaks: probes/os.py's CPU-line pattern began "^\s*" under re.M and ran over every blank
    # line after each line start (25,600 blank lines took 4 s in detect)
    "blank lines": lambda n: "\n" * n,
}


def parse_all(text: str) -> None:
    normalise(text)
    unwrapped(text)
    _paste.clean_lines(text)
    os_release.parse(text)
    os_release.from_pretty(text)
    clean(text)


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
    args = ap.parse_args()
    print("%-14s %12s %12s %7s %14s" % ("shape", "100 KiB", "1 MiB", "ratio", "detect 1 MiB"))
    for name, make in SHAPES.items():
        small, big = make(100 * 1024), make(1024 * 1024)
        t_small = best(lambda: parse_all(small), args.runs)
        t_big = best(lambda: parse_all(big), args.runs)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "paste.txt")
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(big)
            t_detect = best(lambda: detect_snapshot(p, []), 1)
        print("%-14s %10.1fms %10.1fms %7.1f %12.1fms" % (name, t_small * 1e3, t_big * 1e3,
                                                          t_big / max(t_small, 1e-9), t_detect * 1e3))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
