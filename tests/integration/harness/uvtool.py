"""uv inside a test root: the newest ``uv`` wheel from PyPI for x86_64 Linux, downloaded once with the
host's pip into the test cache (``wheels-uv/``) and its ``uv`` binary copied to /usr/local/bin in the
root (offline)."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .debroot import DebRoot, cache_dir

INSIDE = "/opt/rw-uv-wheel"


def ensure_wheel() -> Path:
    target = cache_dir() / "wheels-uv"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir() and any(target.glob("uv-*.whl")):
            return target
        tmp = Path(str(target) + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        res = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                              "--platform", "manylinux2014_x86_64", "--python-version", "3.11",
                              "--disable-pip-version-check", "-q", "-d", str(tmp), "uv"],
                             capture_output=True, text=True, timeout=600)
        if res.returncode != 0 or not any(tmp.glob("uv-*.whl")):
            shutil.rmtree(tmp, ignore_errors=True)
            from .procs import CommandFailed

            raise CommandFailed(["pip", "download", "uv"], res)
        os.replace(tmp, target)
        return target


_INSTALL = r"""
import glob, os, sys, zipfile
(whl,) = glob.glob(sys.argv[1] + "/uv-*.whl")
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith(".data/scripts/uv"))
    with open("/usr/local/bin/uv", "wb") as out:
        out.write(z.read(name))
os.chmod("/usr/local/bin/uv", 0o755)
"""


def install(root: DebRoot, wheels: Path) -> None:
    root.bind(str(wheels), INSIDE)
    root.run(["python3", "-c", _INSTALL, INSIDE], check=True, timeout=300)
