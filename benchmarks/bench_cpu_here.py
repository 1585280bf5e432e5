#!/usr/bin/env python3
"""Issue 29's "here" figures as CPU time: snapshot ``detect --json`` (goal 150 ms), ``doctor
--json`` on a fixture folder (goal 250 ms) and ``--plan-only`` for each output format (goal 250
ms), medians of whole processes (interpreter start, imports, work, output).

On a machine shared with other jobs the wall time moves with the load; the CPU time of the child
(user + system, from the operating system's accounting) moves much less, so that is what is
compared against the goals.  Wall medians are printed too.  ``--baseline REV`` measures the
``src/`` and ``plans/`` of git revision REV as well, the two versions' runs taken in turn (A B A B
...), and prints the ratios.  One run of each case that is not counted comes first (it writes the
package's bytecode, as installing it does: ``PYTHONDONTWRITEBYTECODE`` is dropped).  Prints, never
asserts.

Usage: python benchmarks/bench_cpu_here.py [--runs 11] [--baseline REV]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_doctor_folder import baseline_src  # noqa: E402  (one copy of the revision's src/ unpacking)
FIXTURE = REPO / "tests" / "data" / "real" / "019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04"
SYSTEM = REPO / "tests" / "plan" / "systems" / "seed-rx7900xt-jammy-rocm6.2.json"

# (case, argv after "python -m rocm_wizard", goal in seconds)
CASES: Tuple[Tuple[str, List[str], float], ...] = (
    ("detect --snapshot (fixture 019)", ["detect", "--json", "--snapshot", str(FIXTURE)], 0.150),
    ("doctor --snapshot (fixture 019)", ["doctor", "--json", "--snapshot", str(FIXTURE)], 0.250),
    ("--plan-only torch-reinstall, shell", ["--plan-only", "--snapshot", str(SYSTEM), "--path", "torch-reinstall",
                                            "--torch", "2.4.1"], 0.250),
    ("--plan-only rocm-upgrade, shell", ["--plan-only", "--snapshot", str(SYSTEM), "--path", "rocm-upgrade",
                                         "--rocm", "6.4"], 0.250),
    ("--plan-only rocm-upgrade, ansible", ["--plan-only", "--snapshot", str(SYSTEM), "--path", "rocm-upgrade",
                                           "--format", "ansible"], 0.250),
    ("--plan-only docker, json", ["--plan-only", "--snapshot", str(SYSTEM), "--path", "docker", "--format", "json"],
     0.250),
    ("--plan-only default, json", ["--plan-only", "--snapshot", str(SYSTEM), "--format", "json"], 0.250),
)


def _env(src: Path) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def once(argv: List[str], env: Dict[str, str]) -> Tuple[float, float, int]:
    """(wall s, CPU s of the child, exit status) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rocm_wizard"] + argv, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--baseline", metavar="REV", help="also measure src/ of this git revision, runs taken in turn")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cpu-here-") as tmp:
        versions: List[Tuple[str, Dict[str, str]]] = [("this tree", _env(REPO / "src"))]
        if args.baseline:
            versions.append((args.baseline, _env(baseline_src(args.baseline, Path(tmp)))))
        print("interpreter alone (python -c pass): %.1f ms CPU" % (statistics.median(once_py() for _ in range(5)) * 1000))
        print("%-38s %-10s %12s %12s   goal" % ("case", "version", "CPU median", "wall median"))
        for case, argv, goal in CASES:
            got: Dict[str, List[Tuple[float, float]]] = {name: [] for name, _e in versions}
            for _name, env in versions:
                once(argv, env)  # bytecode and file cache, not counted
            for _ in range(args.runs):
                for name, env in versions:
                    wall, cpu, rc = once(argv, env)
                    if rc not in (0, 1, 2, 3):
                        print("%s (%s) failed: exit %d" % (case, name, rc))
                        return 1
                    got[name].append((wall, cpu))
            meds = {}
            for name, _e in versions:
                cpu = statistics.median(c for _w, c in got[name])
                wall = statistics.median(w for w, _c in got[name])
                meds[name] = cpu
                print("%-38s %-10s %9.1f ms %9.1f ms   %.0f ms: %s" % (case, name[:10], cpu * 1000, wall * 1000,
                                                                       goal * 1000, "met" if cpu <= goal else "NOT met"))
            if args.baseline:
                print("%-38s %-10s %9.2fx less CPU" % ("", "ratio", meds[args.baseline] / meds["this tree"]))
    return 0


def once_py() -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "pass"])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    raise SystemExit(main())
