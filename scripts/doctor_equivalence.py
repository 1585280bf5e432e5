#!/usr/bin/env python3
"""``doctor --snapshot F --json`` (and ``detect --snapshot F --json``) on every fixture folder of
``tests/data/real`` and on all of their pastes as one folder, with this tree's ``src/`` and with
git revision REV's, and the folders whose output differs (a speed change must differ on none).

The fixtures are this tree's for both runs, so a change of the data or of the rules between REV
and the tree shows as a difference too: compare against the commit the speed change starts from.

Usage: python scripts/doctor_equivalence.py [--against REV] [--only doctor|detect]
Exit status 0 when every output is byte-identical, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "data" / "real"


def _src_of(rev: str, into: Path) -> Path:
    tar = into / "src.tar"
    with open(tar, "wb") as fh:
        subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", rev, "src", "plans"], stdout=fh, check=True)
    with tarfile.open(tar) as tf:
        tf.extractall(into)  # our own repository's tree
    return into / "src"


# run in a child interpreter with one revision's src/ first on sys.path: every folder's output in
# one process (as tests/detect/test_scan_equivalence.py does in-process), one JSON line per folder
_CHILD = r"""
import contextlib, io, json, sys
try:  # (the stored regex code, as the command-line program installs it, where the revision has it)
    from rocm_wizard import _re_code
    _re_code.install()
except ImportError:
    pass
from rocm_wizard import cli
for line in sys.stdin:
    cmd, folder = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main([cmd, "--snapshot", folder, "--json"])
        except SystemExit as exc:
            rc = exc.code
    print(json.dumps([cmd, folder, rc, out.getvalue(), err.getvalue()]), flush=True)
"""


def _outputs(src: Path, jobs: List[Tuple[str, str]]) -> Dict[Tuple[str, str], list]:
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1")
    feed = "".join(json.dumps(list(j)) + "\n" for j in jobs)
    p = subprocess.run([sys.executable, "-c", _CHILD], input=feed, stdout=subprocess.PIPE, text=True, env=env,
                       check=True)
    got = {}
    for line in p.stdout.splitlines():
        cmd, folder, rc, out, err = json.loads(line)
        got[(cmd, folder)] = [rc, out, err]
    return got


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="HEAD")
    ap.add_argument("--only", choices=("doctor", "detect"), default=None)
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
        jobs = [(c, str(f)) for c in cmds for f in folders]
        with ThreadPoolExecutor(max_workers=2) as ex:
            before_f = ex.submit(_outputs, base, jobs)
            after_f = ex.submit(_outputs, REPO / "src", jobs)
            before, after = before_f.result(), after_f.result()
        bad = ["%s %s" % (c, Path(f).name) for c, f in jobs if before.get((c, f)) != after.get((c, f))]
        print("%d outputs compared against %s, %d differ" % (len(jobs), a.against, len(bad)))
        for b in bad:
            print("  differs: " + b)
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
