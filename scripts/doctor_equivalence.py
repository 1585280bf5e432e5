#!/usr/bin/env python3
"""``doctor --snapshot F --json`` (and ``detect --snapshot F --json``) on every fixture folder of
``tests/data/real`` and on all of their pastes as one folder, with this tree's ``src/`` and with
git revision REV's, and the folders whose output differs (a speed change must differ on none).

The fixtures are this tree's for both runs, so a change of the data or of the rules between REV
and the tree shows as a difference too: compare against the commit the speed change starts from.

Usage: python scripts/doctor_equivalence.py [--against REV] [--only doctor|detect] [-j N]
Exit status 0 when every output is byte-identical, 1 otherwise.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Tuple

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "data" / "real"


def _src_of(rev: str, into: Path) -> Path:
    tar = into / "src.tar"
    with open(tar, "wb") as fh:
        subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", rev, "src"], stdout=fh, check=True)
    with tarfile.open(tar) as tf:
        tf.extractall(into)  # our own repository's tree
    return into / "src"


def _run(src: Path, cmd: str, folder: Path) -> Tuple[int, bytes]:
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "rocm_wizard", cmd, "--snapshot", str(folder), "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout + b"\n--stderr--\n" + p.stderr


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="HEAD")
    ap.add_argument("--only", choices=("doctor", "detect"), default=None)
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args(argv)
    cmds = [a.only] if a.only else ["doctor", "detect"]
    with tempfile.TemporaryDirectory(prefix="rw-equiv-") as tmp:
        t = Path(tmp)
        base = _src_of(a.against, t)
        mixed = t / "pastes"
        mixed.mkdir()
        for i, p in enumerate(sorted(REAL.glob("*/*.txt"))):
            shutil.copyfile(p, mixed / ("%03d-%s" % (i, p.name)))
        folders = [p for p in sorted(REAL.iterdir()) if p.is_dir()] + [mixed]
        jobs = [(c, f) for c in cmds for f in folders]

        def both(job):
            c, f = job
            return job, _run(base, c, f), _run(REPO / "src", c, f)

        bad = []
        with ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
            for (c, f), before, after in ex.map(both, jobs):
                if before != after:
                    bad.append("%s %s" % (c, f.name))
        print("%d outputs compared against %s, %d differ" % (len(jobs), a.against, len(bad)))
        for b in bad:
            print("  differs: " + b)
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
