"""Debian's build tools (cmake, gcc, make, git) as cached .debs, for tests that build something in a
root the way a user's WSL console does (librocdxg's README: CMake >= 3.15, GCC >= 11.4, git).

The .debs come from Debian's archive once (a scratch root with ``apt-get install --download-only``,
the same way :mod:`.ansible` fetches its packages) and are cached in the test cache; a root gets
them with ``dpkg -i``, offline."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Optional

from .debroot import DEFAULT_MIRROR, RECIPE, BaseTree, DebRoot, cache_dir, recipe_key

PACKAGES = ["cmake", "gcc", "g++", "make", "git", "libc6-dev"]
APT_OPTS = ["--no-install-recommends"]
INSIDE = "/opt/rw-toolchain-debs"


def debs_dir(recipe: dict = RECIPE) -> Path:
    key = hashlib.sha256(json.dumps([recipe_key(recipe), PACKAGES, APT_OPTS], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"debs-toolchain-{key}"


def ensure_debs(base: BaseTree, recipe: dict = RECIPE, mirror: Optional[str] = None) -> Path:
    """The cached .debs of :data:`PACKAGES` (downloaded when missing; atomic, locked)."""
    target = debs_dir(recipe)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir() and any(target.glob("cmake_*.deb")):
            return target
        mirror = mirror or os.environ.get("ROCM_WIZARD_TEST_MIRROR") or DEFAULT_MIRROR
        scratch = base.new_root()
        try:
            scratch.write("/etc/apt/sources.list", f"deb {mirror} {recipe['suite']} main\n")
            scratch.write("/etc/resolv.conf", open("/etc/resolv.conf").read())
            scratch.apt("update", check=True, timeout=900)
            scratch.apt("install", "--download-only", *APT_OPTS, *PACKAGES, check=True, timeout=1800)
            cache = scratch.host_path("/var/cache/apt/archives")
            tmp = Path(str(target) + f".tmp{os.getpid()}")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            for name in sorted(os.listdir(cache)):
                if name.endswith(".deb"):
                    shutil.copy2(os.path.join(cache, name), tmp / name)
            os.replace(tmp, target)
        finally:
            scratch.close()
        return target


def install(root: DebRoot, debs: Path) -> None:
    """dpkg -i the cached .debs inside ``root`` (offline)."""
    root.bind(str(debs), INSIDE)
    root.run(f"dpkg -i {INSIDE}/*.deb", check=True, timeout=900)
