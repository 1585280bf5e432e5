"""uv inside a test root: the newest ``uv`` wheel from PyPI for x86_64 Linux, downloaded once with the
host's pip into the test cache (``wheels-uv/``) and its ``uv`` binary copied to /usr/local/bin in the
root (offline)."""
from __future__ import annotations

from pathlib import Path

from . import fetched
from .debroot import DebRoot, cache_dir

INSIDE = "/opt/rw-uv-wheel"


def ensure_wheel() -> Path:
    return fetched.wheels(cache_dir() / "wheels-uv", ["uv"], "uv-*.whl", platform="manylinux2014_x86_64", deps=False)


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
