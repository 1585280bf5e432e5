#!/usr/bin/env python3
"""How long a converged re-run of the ROCm upgrade plan takes (goal: under 1.5 s, with no
``apt-get update`` when nothing changed).

It builds the integration tier's world (a Debian root from the cached mmdebstrap image, the
signed radeon-like repository on 127.0.0.1), installs ROCm 6.2.4, upgrades to 6.4.3 once with
``rocm-wizard --yes``, then times repeated ``rocm-wizard --yes --no-verify`` runs of the same
plan inside the root, interpreter start, detection and planning included.  It prints (never
asserts) the median and the worst time, and whether any run fetched a Release file (which would
mean an ``apt-get update``).  The generated ``--plan-only`` script's re-run is timed the same way.

Usage (as root, with the integration tier's packages installed)::

    python benchmarks/bench_rerun_upgrade.py [--runs 7]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))

GOAL_S = 1.5


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    opts = ap.parse_args()

    from harness import debroot, wizard  # noqa: E402
    from harness.procs import missing_prerequisites
    from harness.sites import build_apt_world

    missing = missing_prerequisites()
    if missing:
        print("cannot run: " + "; ".join(missing), file=sys.stderr)
        return 1
    work = tempfile.mkdtemp(prefix="rw-bench-")
    world = build_apt_world(os.path.join(work, "world"), os.uname().release)
    base = debroot.BaseTree(debroot.ensure_image(log=lambda m: print(m, file=sys.stderr)), work)
    root = base.new_root()
    try:
        root.make_ubuntu()
        wizard.prepare(root)
        wizard.add_gpu(root)
        world.install_rocm(root, world.old)
        args = ["--yes", "--no-verify", "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror",
                world.radeon_url, "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]
        root.run(["python3", "-m", "compileall", "-q", "/opt/rocm-wizard/src"])  # as pip install would
        first = wizard.run(root, *args)
        if first.returncode != 0:
            print(first.stderr, file=sys.stderr)
            return 1
        script = wizard.run(root, *[a for a in args if a not in ("--yes", "--no-verify")], "--plan-only").stdout
        root.write("/root/plan.sh", script, mode=0o755)

        def timed(argv):
            world.radeon.requests.clear()
            t0 = time.perf_counter()
            res = root.run(argv, env=wizard.env())
            dt = time.perf_counter() - t0
            if res.returncode != 0:
                print(res.stderr, file=sys.stderr)
            return dt, bool(world.radeon.fetched("Release")), res.returncode

        for label, argv in (("rocm-wizard --yes (converged re-run)", ["python3", "-m", "rocm_wizard", *args]),
                            ("--plan-only script (converged re-run)", ["bash", "/root/plan.sh"])):
            results = [timed(argv) for _ in range(opts.runs)]
            times = [r[0] for r in results]
            med = statistics.median(times)
            updates = sum(1 for r in results if r[1])
            failed = sum(1 for r in results if r[2] != 0)
            print(f"{label}: median {med:.3f} s, worst {max(times):.3f} s over {opts.runs} runs "
                  f"(goal < {GOAL_S} s: {'met' if med < GOAL_S else 'NOT met'}); "
                  f"runs that fetched a Release file (apt-get update): {updates}; failed runs: {failed}")
        print("(times include entering the chroot, the interpreter start, detection and planning)")
        return 0
    finally:
        root.close()
        base.close()
        world.radeon.stop()
        world.distro.stop()
        for key in (world.site.radeon_key, world.site.distro_key, world.rogue_key):
            key.close()


if __name__ == "__main__":
    raise SystemExit(main())
