"""Debian's build tools (cmake, gcc, make, git) as cached .debs, for tests that build something in a
root the way a user's WSL console does (librocdxg's README: CMake >= 3.15, GCC >= 11.4, git).

The .debs come from Debian's archive once (a scratch root with ``apt-get install --download-only``,
the same way :mod:`.ansible` fetches its packages) and are cached in the test cache; a root gets
them with ``dpkg -i``, offline."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

from . import fetched
from .debroot import RECIPE, BaseTree, DebRoot, cache_dir, recipe_key

PACKAGES = ["cmake", "gcc", "g++", "make", "git", "libc6-dev"]
APT_OPTS = ["--no-install-recommends"]
INSIDE = "/opt/rw-toolchain-debs"


def debs_dir(recipe: dict = RECIPE) -> Path:
    key = hashlib.sha256(json.dumps([recipe_key(recipe), PACKAGES, APT_OPTS], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"debs-toolchain-{key}"


def ensure_debs(base: BaseTree, recipe: dict = RECIPE, mirror: Optional[str] = None) -> Path:
    """The cached .debs of :data:`PACKAGES` (downloaded when missing; atomic, locked: :func:`.fetched.debs`)."""
    return fetched.debs(base, debs_dir(recipe), PACKAGES, "cmake_*.deb", recipe=recipe, mirror=mirror,
                        apt_opts=APT_OPTS, timeout=1800)


def install(root: DebRoot, debs: Path) -> None:
    """dpkg -i the cached .debs inside ``root`` (offline)."""
    root.bind(str(debs), INSIDE)
    root.run(f"dpkg -i {INSIDE}/*.deb", check=True, timeout=900)
