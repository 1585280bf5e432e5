#!/usr/bin/env python3
"""How long ``rocm-wizard doctor --snapshot FOLDER --json`` takes on a 5 MB folder of real pastes
(goal: under 1 s here, interpreter start included).

The folder is made of the real fixtures under ``tests/data/real`` (every ``.txt`` file, copied
round-robin until the folder holds about 5 MB in files of at most 256 kB), so it has the mix of
kernel logs, tool outputs, tracebacks, apt output and prose that users paste.  Prints (never
asserts) the median of --runs runs, after one run that is not counted (it writes the package's
bytecode, as installing it does: ``PYTHONDONTWRITEBYTECODE`` is dropped for the runs, else every run
would compile every module from source first).

Usage: python benchmarks/bench_doctor_folder.py [--runs 5] [--mb 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_S = 1.0


def build(folder: Path, mb: float) -> int:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((REPO / "tests" / "data" / "real").glob("*/*.txt"))]
    total, i, n = 0, 0, 0
    chunk = []
    while total < mb * 1024 * 1024:
        t = texts[i % len(texts)]
        i += 1
        chunk.append(t)
        total += len(t.encode("utf-8"))
        if sum(len(c) for c in chunk) > 256 * 1024:
            (folder / ("paste-%03d.txt" % n)).write_text("\n".join(chunk), encoding="utf-8")
            n, chunk = n + 1, []
    if chunk:
        (folder / ("paste-%03d.txt" % n)).write_text("\n".join(chunk), encoding="utf-8")
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mb", type=float, default=5.0)
    args = ap.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="bench-doctor-folder-") as tmp:
        folder = Path(tmp)
        size = build(folder, args.mb)
        print("folder: %d files, %.1f MB of real pastes" % (len(list(folder.iterdir())), size / 1e6))
        times = []
        subprocess.run([sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", str(folder), "--json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)  # warm-up, not counted
        for _ in range(args.runs):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", str(folder), "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            times.append(time.perf_counter() - t0)
            if proc.returncode not in (0, 2):
                print("doctor failed (exit %d): %s" % (proc.returncode, proc.stderr.decode()[-400:]))
                return 1
        med = statistics.median(times)
        print("doctor --snapshot FOLDER --json: median %.3f s (min %.3f, max %.3f, n=%d)   goal < %.1f s: %s" % (
            med, min(times), max(times), len(times), GOAL_S, "met" if med < GOAL_S else "NOT met"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
