#!/usr/bin/env python3
"""How long ``rocm-wizard doctor --snapshot FOLDER --json`` takes on a 5 MB folder of real pastes
(goal: under 1 s here, interpreter start included).

The folder is made of the real fixtures under ``tests/data/real`` (every ``.txt`` file, copied
round-robin until the folder holds about 5 MB in files of at most 256 kB), so it has the mix of
kernel logs, tool outputs, tracebacks, apt output and prose that users paste.  Prints (never
asserts) the median wall time of --runs runs and the median CPU time (user + system) of the same
runs -- on a shared machine the CPU time moves less with the load -- after one run that is not
counted (it writes the package's bytecode, as installing it does: ``PYTHONDONTWRITEBYTECODE`` is
dropped for the runs, else every run would compile every module from source first).

``--baseline REV`` measures the ``src/`` of git revision REV on the same folder too, the two
versions' runs alternating, and prints the ratios.

The folder repeats the real pastes (about ten copies of each): the recogniser classifies a segment
seen before once (``recognize``'s kinds by command hint and text), which a folder of distinct
pastes gains nothing from.  ``--distinct`` measures a folder of every real paste once instead
(about 0.5 MB, no repeats), the work per character without that.

Usage: python benchmarks/bench_doctor_folder.py [--runs 5] [--mb 5] [--baseline REV] [--distinct]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[1]
GOAL_S = 1.0


def build(folder: Path, mb: float, distinct: bool = False) -> int:
    """Write the folder; ``distinct``: every real paste once (no repeats: about 0.5 MB), whatever ``mb``."""
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((REPO / "tests" / "data" / "real").glob("*/*.txt"))]
    total, i, n = 0, 0, 0
    chunk = []
    while (i < len(texts)) if distinct else (total < mb * 1024 * 1024):
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


def _env(src: Path) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def once(folder: Path, env: Dict[str, str]) -> Tuple[float, float, int, str]:
    """(wall s, CPU s of the child, exit status, stderr tail) of one doctor run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", str(folder), "--json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stderr.decode(errors="replace")[-400:]


def baseline_src(rev: str, into: Path) -> Path:
    """The ``src/`` tree of git revision ``rev``, unpacked under ``into``."""
    tar = into / "src.tar"
    with open(tar, "wb") as fh:
        subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", rev, "src", "plans"], stdout=fh, check=True)
    with tarfile.open(tar) as tf:
        tf.extractall(into)  # our own repository's tree
    return into / "src"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--baseline", metavar="REV", help="also measure src/ of this git revision, runs alternating")
    ap.add_argument("--distinct", action="store_true", help="every real paste once (about 0.5 MB, no repeats) instead")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-doctor-folder-") as tmp:
        folder = Path(tmp) / "pastes"
        folder.mkdir()
        size = build(folder, args.mb, args.distinct)
        print("folder: %d files, %.1f MB of real pastes%s" % (len(list(folder.iterdir())), size / 1e6,
                                                          " (each once)" if args.distinct else ""))
        versions: List[Tuple[str, Dict[str, str]]] = [("this tree", _env(REPO / "src"))]
        if args.baseline:
            base = Path(tmp) / "baseline"
            base.mkdir()
            versions.append((args.baseline, _env(baseline_src(args.baseline, base))))
        results: Dict[str, List[Tuple[float, float]]] = {name: [] for name, _ in versions}
        for _name, env in versions:
            once(folder, env)  # warm-up (bytecode), not counted
        for _ in range(args.runs):
            for name, env in versions:
                wall, cpu, rc, err = once(folder, env)
                if rc not in (0, 2):
                    print("doctor (%s) failed (exit %d): %s" % (name, rc, err))
                    return 1
                results[name].append((wall, cpu))
        med: Dict[str, Tuple[float, float]] = {}
        for name, _env_ in versions:
            walls = [w for w, _c in results[name]]
            cpus = [c for _w, c in results[name]]
            med[name] = (statistics.median(walls), statistics.median(cpus))
            print("doctor --snapshot FOLDER --json (%s): median %.3f s wall (min %.3f, max %.3f), %.3f s CPU, n=%d   "
                  "goal < %.1f s: %s" % (name, med[name][0], min(walls), max(walls), med[name][1], len(walls), GOAL_S,
                                          "met" if med[name][0] < GOAL_S else "NOT met"))
        if args.baseline:
            a, b = med["this tree"], med[args.baseline]
            print("against %s: %.2fx faster wall, %.2fx less CPU" % (args.baseline, b[0] / a[0], b[1] / a[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
