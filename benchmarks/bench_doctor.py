#!/usr/bin/env python3
"""How fast the doctor is (speed goals live here, not in timed tests).

Goals: ``rocm-wizard doctor --json`` on a saved System JSON finishes in under 0.5 s of wall time
(interpreter start included); ``diagnose()`` on an already detected system takes under 20 ms.

Usage: python3 benchmarks/bench_doctor.py [N]   (N diagnose() rounds, default 200)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "doctor"))


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    from _doctor_systems import healthy
    from rocm_wizard.doctor import diagnose
    from rocm_wizard.model import to_dict

    sysm = healthy()
    sysm.rocm.apt_pins = []
    err = "RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`"
    t0 = time.perf_counter()
    diagnose(sysm, err)  # first call loads the catalog
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(rounds):
        diagnose(sysm, err)
    per = (time.perf_counter() - t0) / rounds
    print(f"diagnose(): first call {first * 1000:.1f} ms (catalog load), then {per * 1000:.2f} ms per call"
          f" [goal < 20 ms] {'OK' if per < 0.02 else 'SLOW'}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "system.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(to_dict(sysm), fh)
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        walls = []
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", path, "--json"],
                           stdout=subprocess.DEVNULL, env=env, check=False)
            walls.append(time.perf_counter() - t0)
        best = min(walls)
        print(f"rocm-wizard doctor --json (System JSON): best of 5 {best:.3f} s [goal < 0.5 s] "
              f"{'OK' if best < 0.5 else 'SLOW'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
