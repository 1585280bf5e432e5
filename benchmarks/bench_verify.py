#!/usr/bin/env python3
"""How long the GPU smoke test takes, in total and per check, on this machine's GPU.

Prints (never asserts) for ``--runs`` runs of ``smoke.py --json`` (the script `rocm-wizard verify`
runs in the venv's interpreter; the first run is the cold one: empty Triton/inductor caches unless
``--keep-caches``), then the same through the wizard's launcher (``rocm-wizard verify --python``):

* the wall time of each run against the goal (15 s) and against the first run's figure recorded in
  ``benchmarks/README.md`` for the same machine kind, as a ratio;
* the per-check seconds of the median run, largest first, each as a share of the total, and the
  checks' sum against the wall time (what overlapping saves).

Usage::

    python benchmarks/bench_verify.py [--python PY] [--runs 3] [--keep-caches] [--baseline SECONDS] [--save DIR]

Needs a GPU and torch in PY (default: this interpreter).  Without a GPU the checks are skipped
and the figures say so.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "src" / "rocm_wizard" / "verify" / "smoke.py"
GOAL_S = 15.0


def run_once(argv, env):
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = None
    return wall, proc.returncode, doc, proc.stderr


def per_check(doc):
    rows = []
    for c in doc.get("checks") or []:
        where = "" if c.get("device") is None else "[%s]" % c["device"]
        rows.append((float(c.get("seconds") or 0.0), c["name"] + where, c.get("status")))
    return sorted(rows, reverse=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep-caches", action="store_true", help="do not empty Triton's and inductor's caches first")
    ap.add_argument("--baseline", type=float, default=None,
                    help="a wall time (s) to compare against, e.g. the figure before a change")
    ap.add_argument("--save", metavar="DIR", help="write each run's JSON report there (smoke-N.json)")
    args = ap.parse_args()

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    scratch = None
    if not args.keep_caches:
        scratch = tempfile.mkdtemp(prefix="bench-verify-")
        env["TRITON_CACHE_DIR"] = os.path.join(scratch, "triton")
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "inductor")
    print("interpreter %s, %d CPUs" % (args.python, os.cpu_count() or 0))
    walls = []
    docs = []
    for i in range(args.runs):
        wall, rc, doc, err = run_once([args.python, str(SMOKE), "--json"], env)
        label = "cold" if i == 0 and not args.keep_caches else "warm"
        if doc is None:
            print("smoke run %d failed (exit %s): %s" % (i + 1, rc, err.strip()[-400:]))
            continue
        s = doc.get("summary") or {}
        print("smoke.py run %d (%s): wall %.2f s, in-script %.2f s, %d pass %d fail %d skip, goal < %.0f s: %s" % (
            i + 1, label, wall, doc.get("duration_s") or 0.0, s.get("pass", 0), s.get("fail", 0), s.get("skip", 0),
            GOAL_S, "met" if wall < GOAL_S else "NOT met"))
        walls.append(wall)
        docs.append((wall, doc))
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            with open(os.path.join(args.save, "smoke-%d.json" % (i + 1)), "w") as fh:
                json.dump(doc, fh, indent=1)
    # through the wizard's launcher (what `rocm-wizard verify` runs)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rocm_wizard.commands.verify", "--python", args.python, "--json"],
                          capture_output=True, text=True, env=env)
    launcher = time.perf_counter() - t0
    print("rocm-wizard verify --python (launcher + smoke): wall %.2f s, exit %d" % (launcher, proc.returncode))
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    if not docs:
        return 1
    med = statistics.median(walls)
    print("median smoke wall %.2f s over %d runs (min %.2f, max %.2f)" % (med, len(walls), min(walls), max(walls)))
    if args.baseline:
        print("ratio against the baseline %.2f s: %.2fx faster" % (args.baseline, args.baseline / med))
    shown = [("median run", sorted(docs, key=lambda d: d[0])[len(docs) // 2])]
    if not args.keep_caches and len(docs) > 1:
        shown.insert(0, ("cold run", docs[0]))
    for label, (wall, doc) in shown:
        rows = per_check(doc)
        total = sum(r[0] for r in rows)
        print("per check (%s; wall %.2f s, checks' sum %.2f s, overlap saves %.2f s):" % (
            label, wall, total, max(0.0, total - (doc.get("duration_s") or wall))))
        for secs, name, status in rows:
            print("  %-22s %-4s %6.2f s  %4.0f%%" % (name, status, secs, 100.0 * secs / wall if wall else 0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
